/**
 * The send intent's workflow activities (spec 2.5, 3, 6; contracts/send-intent.ts
 * `advanceSendIntent`), registered by activities/index.ts under these names. Each step reads what
 * the chain and the bridge say now and applies the transitions the intent's record allows
 * (activities/records/send-intents.ts), each with its outbox event in one transaction; deadlines
 * are judged in workflow time (domain/object-clock.ts). A missing row is ApplicationFailure
 * `NotFound` (non-retryable). Amounts in the stablecoin's 6-decimal minor units.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { SendIntentActivities, SendProgress } from '../../contracts/send-intent';
import { objectClock } from '../../domain/object-clock';
import {
  sendIntentTransitions,
  sourceMismatch,
  SOURCE_TX_SEARCH_SECONDS,
  type SendFailureReason,
  type SendIntentStatus,
} from '../../domain/wallet-sends';
import { WalletSendIntent } from '../../entities';
import { transaction } from '../../lib/db';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import {
  expireSendIntent,
  failSendIntent,
  lockSendIntent,
  settleSendIntent,
  startSendIntentBridging,
  submitSendIntent,
} from '../records/send-intents';

/** How often an open intent re-reads the chain or the bridge when nothing wakes it (ms). */
export const SEND_POLL_MS = 15_000;

/** One step of an intent: its target status and the record transition that takes it there (activities/records/send-intents.ts). */
type SendChange = { to: SendIntentStatus; apply: (m: EntityManager, r: WalletSendIntent) => Promise<WalletSendIntent> };

/**
 * Advances intent `intentId` as far as the facts allow at workflow time `workflowNowMs` (deadlines
 * judged by domain/object-clock.ts from the workflow's `originMs`; wake-ups in workflow time):
 * - `created` with no hash: `expired` once `expires_at` passed, else wake at `expires_at`;
 * - `created` with a hash: not on chain -> `failed` `source_tx_not_found` after
 *   SOURCE_TX_SEARCH_SECONDS from the recording, else poll; on chain but not the built transfer
 *   -> `failed` with the mismatch; matching -> `source_submitted`, then `settled` (direct) or
 *   `bridging_started` (bridge);
 * - `bridging_started`: the bridge delivered -> `settled`; failed -> the undelivered funds return
 *   to the wallet (idempotent) and `failed` `bridge_failed`; else poll.
 * Throws ApplicationFailure `NotFound` (non-retryable) when the intent is gone.
 */
export async function advanceSendIntent(intentId: string, workflowNowMs: number, originMs?: number): Promise<SendProgress> {
  const r = await transaction((m) => m.findOneBy(WalletSendIntent, { id: intentId }));
  if (!r) throw ApplicationFailure.nonRetryable(`send intent ${intentId} not found`, 'NotFound');
  const clock = objectClock({ workflowNowMs, originMs, createdAtMs: r.created_at.getTime(), wallNowMs: Date.now() });
  const nowMs = clock.now;
  const poll = workflowNowMs + SEND_POLL_MS;
  const changes: SendChange[] = [];
  let waitingFor = '';
  let wakeAtMs: number | null = null;

  if (r.status === 'created' && !r.source_tx_hash) {
    if (nowMs >= r.expires_at.getTime()) changes.push({ to: 'expired', apply: (m, row) => expireSendIntent(m, row) });
    else {
      wakeAtMs = clock.toWorkflowMs(r.expires_at.getTime());
      waitingFor = `the holder to sign and record the transaction (until ${r.expires_at.toISOString()})`;
    }
  } else if (r.status === 'created' || r.status === 'source_submitted') {
    const tx = await chainAdapter().locate(r.source_tx_hash!);
    const deadline = r.source_tx_recorded_at!.getTime() + SOURCE_TX_SEARCH_SECONDS * 1000;
    if (!tx) {
      if (nowMs >= deadline) changes.push(fail('source_tx_not_found'));
      else {
        wakeAtMs = Math.min(poll, clock.toWorkflowMs(deadline));
        waitingFor = `transaction ${r.source_tx_hash} on chain (until ${new Date(deadline).toISOString()})`;
      }
    } else {
      const mismatch = sourceMismatch(
        { chain: r.chain, asset: r.asset, from: r.from_address, to: r.transfer_to, amount: BigInt(r.amount_minor) },
        { chain: tx.chain, asset: tx.asset, from: tx.from_address, to: tx.to_address, amount: tx.amount },
      );
      if (mismatch) changes.push(fail(mismatch));
      else {
        changes.push({ to: 'source_submitted', apply: (m, row) => submitSendIntent(m, row) });
        if (r.route_kind === 'direct')
          changes.push({ to: 'settled', apply: (m, row) => settleSendIntent(m, row, { deliveryTxHash: tx.tx_hash }) });
        else changes.push({ to: 'bridging_started', apply: (m, row) => startSendIntentBridging(m, row) });
      }
    }
  }
  const bridging = r.status === 'bridging_started' || changes.some((c) => c.to === 'bridging_started');
  if (bridging && r.bridge_transfer_id) {
    const bridge = payInBridgeAdapter();
    const p = await bridge.advance(r.bridge_transfer_id);
    if (p.state === 'delivered') {
      const delivery = p.delivery ? { deliveryTxHash: p.delivery.tx_hash, amountOutMinor: p.delivery.amount.toString() } : {};
      changes.push({ to: 'settled', apply: (m, row) => settleSendIntent(m, row, delivery) });
    } else if (p.state === 'failed') {
      await bridge.returnUndelivered(r.bridge_transfer_id, r.from_address);
      changes.push(fail('bridge_failed'));
    } else {
      wakeAtMs = poll;
      waitingFor = `the bridge to deliver on ${r.destination_chain} (transfer ${r.bridge_transfer_id})`;
    }
  }

  const status = changes.length ? await applySendChanges(intentId, changes) : r.status;
  if (sendIntentTransitions.terminal.includes(status)) return { status, wakeAtMs: null, waitingFor: `nothing (${status})` };
  return { status, wakeAtMs: wakeAtMs ?? poll, waitingFor: waitingFor || `the next look at the ${status} intent` };
}

function fail(reason: SendFailureReason): SendChange {
  return { to: 'failed', apply: (m, row) => failSendIntent(m, row, { reason }) };
}

/** Applies `changes` in order under a row lock, each a transition of the intent's record with its `send_intent.<status>` event; returns the final status. */
async function applySendChanges(id: string, changes: SendChange[]): Promise<SendIntentStatus> {
  return transaction(async (m) => {
    const r = await lockSendIntent(m, id);
    if (!r) throw ApplicationFailure.nonRetryable(`send intent ${id} not found`, 'NotFound');
    for (const c of changes) {
      if (!sendIntentTransitions.can(r.status, c.to)) continue; // a concurrent run already moved it
      await c.apply(m, r);
    }
    return r.status;
  });
}

/** The activities of contracts/send-intent.ts. */
export const sendIntentWorkflowActivities = { advanceSendIntent } satisfies SendIntentActivities;
