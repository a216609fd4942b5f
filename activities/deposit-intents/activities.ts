/**
 * The deposit intent's workflow activities (spec 2.5, 3, 6; contracts/deposit-intent.ts:
 * `advanceDepositIntent`, `expireDepositIntent`), registered by activities/index.ts under these
 * names. Each step reads what the source chain and the bridge say now and applies the transitions
 * the intent's record allows (activities/records/deposit-intents.ts), each with its outbox event in
 * one transaction. A missing row is an Error named `NotFound`. Amounts in 6-decimal minor units.
 */
import type { EntityManager } from 'typeorm';
import type { DepositIntentActivities, DepositIntentState } from '../../contracts/deposit-intent';
import { depositIntentTransitions, type DepositIntentStatus } from '../../domain/wallet-deposits';
import { WalletDepositIntent } from '../../entities';
import { db, transaction } from '../../lib/db';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import {
  detectDepositIntentSource,
  failDepositIntent,
  lockDepositIntent,
  markDepositIntentExpired,
  requireDepositIntentManualRecovery,
  settleDepositIntent,
  startDepositIntentBridging,
  startDepositIntentRecovery,
} from '../records/deposit-intents';

/**
 * Moves intent `id` to `to` under a row lock through `apply`, a transition of its record
 * (activities/records/deposit-intents.ts, which writes the event), in one transaction. Already in
 * `to`: no change. Illegal: `IllegalTransition` (409; non-retryable in a workflow).
 */
async function stepDepositIntent(
  id: string,
  to: DepositIntentStatus,
  apply: (m: EntityManager, d: WalletDepositIntent) => Promise<WalletDepositIntent>,
): Promise<WalletDepositIntent> {
  return transaction(async (m) => {
    const d = await lockDepositIntent(m, id);
    if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
    if (d.status === to) return d;
    return apply(m, d);
  });
}

const depositIntentState = (d: WalletDepositIntent, before: string): DepositIntentState => ({
  status: d.status,
  sourceChain: d.source_chain,
  expiresAt: d.expires_at.toISOString(),
  createdAt: d.created_at.toISOString(),
  terminal: depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus),
  changed: d.status !== before,
});

async function loadDepositIntent(id: string): Promise<WalletDepositIntent> {
  const d = await db().getRepository(WalletDepositIntent).findOneBy({ id });
  if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
  return d;
}

/**
 * Workflow step: `awaiting_funds` -> `source_detected` when USDC reached the deposit address on
 * the source chain; then advances the bridge: held (`bridging`), delivered to the wallet
 * (`bridging` then `settled`, amount delivered and delivery hash), or failed: the undelivered
 * funds go back to the refund address (`recovering` then `failed`, `bridge_failed`), or
 * `manual_recovery_required` when there is no address to return them to; a failure with nothing
 * held is `failed`. Idempotent: a repeated step changes nothing twice.
 */
export async function advanceDepositIntent(id: string): Promise<DepositIntentState> {
  let d = await loadDepositIntent(id);
  const before = d.status;
  if (depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus)) return depositIntentState(d, before);
  if (d.status === 'awaiting_funds') {
    const seen = await chainAdapter().transfersTo(d.source_chain, d.deposit_address, d.source_asset);
    if (!seen.length) return depositIntentState(d, before);
    const received = seen.reduce((s, t) => s + t.amount, 0n);
    const source = { receivedMinor: received.toString(), sourceTxHash: seen[0].tx_hash, sourceFromAddress: seen[0].from_address };
    d = await stepDepositIntent(id, 'source_detected', (m, row) => detectDepositIntentSource(m, row, source));
    return depositIntentState(d, before);
  }
  const bridge = payInBridgeAdapter();
  if (d.status === 'recovering') return depositIntentState(await recoverDepositIntent(d), before);
  const p = await bridge.advance(d.bridge_transfer_id);
  if (p.state === 'in_flight' || p.state === 'delivered') {
    if (d.status === 'source_detected')
      d = await stepDepositIntent(id, 'bridging', (m, row) => startDepositIntentBridging(m, row, { receivedMinor: p.received.toString() }));
    if (p.state === 'delivered') {
      const delivered = {
        receivedMinor: p.received.toString(),
        deliveredMinor: p.delivered.toString(),
        deliveryTxHash: p.delivery?.tx_hash ?? d.delivery_tx_hash,
      };
      d = await stepDepositIntent(id, 'settled', (m, row) => settleDepositIntent(m, row, delivered));
    }
  } else if (p.state === 'failed') {
    if (p.undelivered > 0n) {
      const to = d.refund_address ?? d.source_from_address;
      d = to
        ? await recoverDepositIntent(
            await stepDepositIntent(id, 'recovering', (m, row) =>
              startDepositIntentRecovery(m, row, { receivedMinor: p.received.toString() }),
            ),
          )
        : await stepDepositIntent(id, 'manual_recovery_required', (m, row) =>
            requireDepositIntentManualRecovery(m, row, { receivedMinor: p.received.toString() }),
          );
    } else {
      d = await stepDepositIntent(id, 'failed', (m, row) => failDepositIntent(m, row, { reason: 'bridge_failed' }));
    }
  }
  return depositIntentState(d, before);
}

/** Returns a failed bridge's undelivered funds to the refund address (idempotent by the received total), then `failed`. */
async function recoverDepositIntent(d: WalletDepositIntent): Promise<WalletDepositIntent> {
  const to = d.refund_address ?? d.source_from_address;
  if (!to) return stepDepositIntent(d.id, 'manual_recovery_required', (m, row) => requireDepositIntentManualRecovery(m, row));
  const r = await payInBridgeAdapter().returnUndelivered(d.bridge_transfer_id, to);
  const recovered = { reason: d.failure_reason ?? 'bridge_failed', recoveryTxHash: r?.tx_hash ?? d.recovery_tx_hash };
  return stepDepositIntent(d.id, 'failed', (m, row) => failDepositIntent(m, row, recovered));
}

/**
 * Workflow step at `expires_at` (workflow time): a last look at the source chain (funds seen:
 * the intent goes on as `source_detected`), else `awaiting_funds` -> `expired`.
 */
export async function expireDepositIntent(id: string): Promise<DepositIntentState> {
  const d = await loadDepositIntent(id);
  if (d.status !== 'awaiting_funds') return depositIntentState(d, d.status);
  const s = await advanceDepositIntent(id);
  if (s.changed) return s;
  return depositIntentState(await stepDepositIntent(id, 'expired', (m, row) => markDepositIntentExpired(m, row)), 'awaiting_funds');
}

/** The activities of contracts/deposit-intent.ts (registered by activities/index.ts). */
export const depositIntentWorkflowActivities = { advanceDepositIntent, expireDepositIntent } satisfies DepositIntentActivities;
