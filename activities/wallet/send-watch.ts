/**
 * The send intent's progress (spec 2.5, part 6 `send_intent.*`; issue 14): the one activity its
 * workflow runs. Reads the intent and what the chain and the bridge say now, applies every status
 * change its transition table allows (each with its outbox event, in one transaction), and tells
 * the workflow when to look again. Amounts are bigint minor units of the stablecoin.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { sendIntentTransitions, sourceMismatch, SOURCE_TX_SEARCH_SECONDS, type SendFailureReason, type SendIntentStatus } from '../../domain/wallet-sends';
import { objectClock } from '../../domain/object-clock';
import { WalletSendIntent } from '../../entities';
import { transaction } from '../../lib/db';
import { emitEvent } from '../../lib/outbox';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { sendIntentView } from '../../views/wallet-sends';

/** How often an open intent re-reads the chain or the bridge when nothing wakes it (ms). */
export const SEND_POLL_MS = 15_000;

/** What the workflow does next: stop (terminal), or look again at `wakeAtMs` (workflow time) or when signalled. */
export interface SendProgress { status: SendIntentStatus; wakeAtMs: number | null; waitingFor: string }

type Change = { to: SendIntentStatus; set?: Partial<WalletSendIntent> };

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
  const changes: Change[] = [];
  let waitingFor = '';
  let wakeAtMs: number | null = null;

  if (r.status === 'created' && !r.source_tx_hash) {
    if (nowMs >= r.expires_at.getTime()) changes.push({ to: 'expired' });
    else { wakeAtMs = clock.toWorkflowMs(r.expires_at.getTime()); waitingFor = `the holder to sign and record the transaction (until ${r.expires_at.toISOString()})`; }
  } else if (r.status === 'created' || r.status === 'source_submitted') {
    const tx = await chainAdapter().locate(r.source_tx_hash!);
    const deadline = r.source_tx_recorded_at!.getTime() + SOURCE_TX_SEARCH_SECONDS * 1000;
    if (!tx) {
      if (nowMs >= deadline) changes.push(fail('source_tx_not_found'));
      else { wakeAtMs = Math.min(poll, clock.toWorkflowMs(deadline)); waitingFor = `transaction ${r.source_tx_hash} on chain (until ${new Date(deadline).toISOString()})`; }
    } else {
      const mismatch = sourceMismatch(
        { chain: r.chain, asset: r.asset, from: r.from_address, to: r.transfer_to, amount: BigInt(r.amount_minor) },
        { chain: tx.chain, asset: tx.asset, from: tx.from_address, to: tx.to_address, amount: tx.amount });
      if (mismatch) changes.push(fail(mismatch));
      else {
        changes.push({ to: 'source_submitted', set: { submitted_at: new Date() } });
        if (r.route_kind === 'direct') changes.push({ to: 'settled', set: { settled_at: new Date(), delivery_tx_hash: tx.tx_hash } });
        else changes.push({ to: 'bridging_started' });
      }
    }
  }
  const bridging = r.status === 'bridging_started' || changes.some((c) => c.to === 'bridging_started');
  if (bridging && r.bridge_transfer_id) {
    const bridge = payInBridgeAdapter();
    const p = await bridge.advance(r.bridge_transfer_id);
    if (p.state === 'delivered') {
      changes.push({ to: 'settled', set: { settled_at: new Date(), ...(p.delivery ? { delivery_tx_hash: p.delivery.tx_hash, amount_out_minor: p.delivery.amount.toString() } : {}) } });
    } else if (p.state === 'failed') {
      await bridge.returnUndelivered(r.bridge_transfer_id, r.from_address);
      changes.push(fail('bridge_failed'));
    } else { wakeAtMs = poll; waitingFor = `the bridge to deliver on ${r.destination_chain} (transfer ${r.bridge_transfer_id})`; }
  }

  const status = changes.length ? await apply(intentId, changes) : r.status;
  if (sendIntentTransitions.terminal.includes(status)) return { status, wakeAtMs: null, waitingFor: `nothing (${status})` };
  return { status, wakeAtMs: wakeAtMs ?? poll, waitingFor: waitingFor || `the next look at the ${status} intent` };
}

function fail(reason: SendFailureReason): Change {
  return { to: 'failed', set: { failure_reason: reason, failed_at: new Date() } };
}

/** Applies `changes` in order under a row lock, each through the table with its `send_intent.<status>` event; returns the final status. */
async function apply(id: string, changes: Change[]): Promise<SendIntentStatus> {
  return transaction(async (m) => {
    const r = await m.findOne(WalletSendIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw ApplicationFailure.nonRetryable(`send intent ${id} not found`, 'NotFound');
    for (const c of changes) {
      if (!sendIntentTransitions.can(r.status, c.to)) continue; // a concurrent run already moved it
      r.status = c.to;
      Object.assign(r, c.set ?? {});
      await m.save(r);
      await emitEvent(m, { accountId: r.account_id, livemode: r.livemode, type: `send_intent.${c.to}`, objectType: 'send_intent', objectId: r.id, object: sendIntentView(r) });
    }
    return r.status;
  });
}

/** The activities the send-intent workflow calls. */
export const sendIntentWorkflowActivities = { advanceSendIntent };
export type SendIntentWorkflowActivities = typeof sendIntentWorkflowActivities;
