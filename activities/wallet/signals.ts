/**
 * Starting and signalling the wallet's workflows (issue 14; workflow id = object id, `AccountId`):
 * deposit intents (contracts/deposit-intent.ts), conversions (contracts/conversion.ts), send intents
 * (contracts/send-intent.ts), virtual accounts (contracts/virtual-account.ts) and off-ramp intents
 * (contracts/offramp-intent.ts): what commands call after their commit (signalWithStart heals a lost
 * start), provider notifications, and the recovery sweeps at worker start.
 */
import { accountOf } from '../records/account-of';
import { conversionContract } from '../../contracts/conversion';
import { depositIntentContract } from '../../contracts/deposit-intent';
import { offrampIntentContract } from '../../contracts/offramp-intent';
import { sendIntentContract } from '../../contracts/send-intent';
import { virtualAccountContract } from '../../contracts/virtual-account';
import { offrampTransitions } from '../../domain/offramp';
import type { TransitionTable } from '../../domain/transitions';
import { virtualAccountCreditTransitions, virtualAccountTransitions } from '../../domain/virtual-accounts';
import { conversionTransitions, depositIntentTransitions } from '../../domain/wallet-deposits';
import { sendIntentTransitions } from '../../domain/wallet-sends';
import { db, forEachByKeyset } from '../../lib/db';
import { logger } from '../../lib/logger';
import { startIfAbsent, startOrSignal } from '../../temporal/client';

/**
 * The open set of `table` as an SQL list of literals (`'a', 'b'`) for a sweep's `status IN (...)`
 * (forEachByKeyset binds only the cursor and the batch). Statuses are the table's own names;
 * anything but `[a-z_]` throws Error.
 */
function openList<S extends string>(table: TransitionTable<S>): string {
  return table.open.map((s) => {
    if (!/^[a-z_]+$/.test(s)) throw new Error(`${table.object}: status ${s} is not a plain name`);
    return `'${s}'`;
  }).join(', ');
}

/** Signals (starting if needed) the intent's workflow to re-read the chain and the bridge. */
export async function signalDepositIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(depositIntentContract, { id, accountId }, depositIntentContract.signals.update);
}

/**
 * The bridge (simulator or provider callback) or the chain reported a change for `ref`: when it
 * is a deposit intent (`dpi_`), its workflow re-reads. False otherwise; never throws (logged).
 */
export async function notifyDepositIntentUpdate(ref: string): Promise<boolean> {
  if (!ref.startsWith('dpi_')) return false;
  const accountId = await accountOf('wallet_deposit_intents', ref);
  if (!accountId) return false;
  try {
    await signalDepositIntent(ref, accountId);
  } catch (e) {
    logger.error({ err: e, deposit_intent_id: ref }, 'could not signal the deposit intent workflow');
  }
  return true;
}

/** A chain transfer to a deposit intent's address (simulator `/sim/chain/transfers`): wakes its workflow. */
export async function notifyDepositIntentTransfer(t: { chain: string; to_address: string }): Promise<void> {
  const rows: Array<{ id: string }> = await db().query(
    `SELECT id FROM wallet_deposit_intents WHERE source_chain = $1 AND lower(deposit_address) = lower($2)`, [t.chain, t.to_address]);
  for (const r of rows) await notifyDepositIntentUpdate(r.id);
}

/** Signals (starting if needed) the conversion's workflow to re-read. */
export async function signalConversion(id: string, accountId: string): Promise<void> {
  await startOrSignal(conversionContract, { id, accountId }, conversionContract.signals.update);
}

/** Recovery sweep at worker start: a workflow for every deposit intent still moving (the table's open set: not settled, failed, expired or handed to an operator). */
export async function ensureDepositIntentWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM wallet_deposit_intents WHERE id > $1 AND status IN (${openList(depositIntentTransitions)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(depositIntentContract, { id: r.id, accountId: r.account_id }), batch);
}

/** Recovery sweep at worker start: a workflow for every open conversion (built or submitted). */
export async function ensureConversionWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM wallet_conversions WHERE id > $1 AND status IN (${openList(conversionTransitions)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(conversionContract, { id: r.id, accountId: r.account_id }), batch);
}

/** Intent `id` changed (created, hash recorded, bridge moved): its workflow re-reads it (started if absent). */
export async function wakeSendIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(sendIntentContract, { id, accountId }, sendIntentContract.signals.update);
}

/** The bridge reported a change of the transfer whose client reference is `id`; false when it is not a send intent. */
export async function notifySendIntentBridgeUpdate(id: string): Promise<boolean> {
  if (!id.startsWith('wsi_')) return false;
  const accountId = await accountOf('wallet_send_intents', id);
  if (!accountId) return false;
  await wakeSendIntent(id, accountId);
  return true;
}

/** Recovery sweep at worker start: a workflow for every open intent that has none. Returns how many it looked at. */
export async function ensureSendIntentWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM wallet_send_intents WHERE id > $1 AND status IN (${openList(sendIntentTransitions)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(sendIntentContract, { id: r.id, accountId: r.account_id }), batch);
}

/** Virtual account `id` changed or received a credit: its workflow settles what is pending (started if absent). */
export async function wakeVirtualAccount(id: string, accountId: string): Promise<void> {
  await startOrSignal(virtualAccountContract, { id, accountId }, virtualAccountContract.signals.update);
}

/** Recovery sweep at worker start: a workflow for every open (active) wallet-funding account or one with an open (received) credit. */
export async function ensureVirtualAccountWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(
    `SELECT v.id, v.account_id FROM wallet_virtual_accounts v
      WHERE v.id > $1 AND v.purpose = 'wallet_funding'
        AND (v.status IN (${openList(virtualAccountTransitions)})
          OR EXISTS (SELECT 1 FROM wallet_virtual_account_credits c WHERE c.virtual_account_id = v.id AND c.status IN (${openList(virtualAccountCreditTransitions)})))
      ORDER BY v.id LIMIT $2`,
    (r) => startIfAbsent(virtualAccountContract, { id: r.id, accountId: r.account_id }), batch);
}

/** Off-ramp intent `id` changed (created, canceled, the rail moved, the transit deposit arrived): its workflow re-reads it. */
export async function signalOfframpIntent(id: string, accountId: string): Promise<void> {
  await startOrSignal(offrampIntentContract, { id, accountId }, offrampIntentContract.signals.update);
}

/** The rail or the chain reported a change for `ref`: when it is an off-ramp intent (`ofr_`), its workflow re-reads. False otherwise. */
export async function notifyOfframpIntentUpdate(ref: string): Promise<boolean> {
  if (!ref.startsWith('ofr_')) return false;
  const accountId = await accountOf('wallet_offramp_intents', ref);
  if (!accountId) return false;
  await signalOfframpIntent(ref, accountId);
  return true;
}

/** A transfer reached `address` on the wallet's chain: wakes the off-ramp intent whose transit address it is. */
export async function notifyOfframpTransfer(t: { chain: string; to_address: string }): Promise<void> {
  const rows: Array<{ id: string; account_id: string }> = await db().query(
    `SELECT id, account_id FROM wallet_offramp_intents WHERE chain = $1 AND lower(transit_address) = lower($2) AND status = 'awaiting_funds'`, [t.chain, t.to_address]);
  for (const r of rows) await signalOfframpIntent(r.id, r.account_id);
}

/** Recovery sweep at worker start: a workflow for every off-ramp intent in the table's open set (not terminal). */
export async function ensureOfframpWorkflows(batch = 500): Promise<number> {
  return forEachByKeyset(`SELECT id, account_id FROM wallet_offramp_intents WHERE id > $1 AND status IN (${openList(offrampTransitions)}) ORDER BY id LIMIT $2`,
    (r) => startIfAbsent(offrampIntentContract, { id: r.id, accountId: r.account_id }), batch);
}
