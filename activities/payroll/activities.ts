/**
 * The activities of the payroll workflows, and nothing else (spec 2.7, 3, 4.4, 8): the
 * run's (contracts/payroll-run.ts) and the item's (contracts/payroll-item.ts); the worker registers
 * `payrollRunWorkflowActivities` and `payrollItemWorkflowActivities`. The run's state, its items to pay and the end of an
 * execution are here, with the item payment: an item is paid at most once, its payment is an
 * attempt row (`pria_`, attempt_no 1, 2, ...) created in one transaction before any provider call,
 * and every provider call carries the attempt's idempotency key `<item id>:<attempt no>`; a retried
 * activity, a crashed worker or an operator's reset re-submits under the same key and the provider
 * answers with the same payment. Bank destinations are paid through the fiat rail adapter in the
 * run currency (minor units); wallet destinations in USDC (6 decimals) on the sandbox chain at the
 * reference rate, rounded up. Status writes go through the item and run transition tables
 * (domain/payroll.ts) with their `payroll_item.payout_*` / `payroll_run.*` outbox events in the same
 * transaction. The funding poll is funding.ts, the return of funds owed back returns.ts.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { PayrollItemActivities } from '../../contracts/payroll-item';
import type { PayrollRunActivities, PayrollRunState } from '../../contracts/payroll-run';
import { currencyDecimals } from '../../domain/money';
import { executionOutcome, type PayrollItemStatus } from '../../domain/payroll';
import { itemPaymentAmount, normalizeItemFailure, parsePayrollDestination, type PayrollDestination } from '../../domain/payroll-execution';
import { hasUnreturnedFunds } from '../../domain/payroll-returns';
import { PayrollItemAttempt, PayrollRun, PayrollRunItem } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { decrypt } from '../../lib/secrets';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { beneficiaryAccountOf, fiatRails, type RailPayment } from '../../providers/fiat-rails';
import { refreshPayrollFunding } from './funding';
import { loadFundsState } from './records';
import { finishPayrollRun } from '../records/payroll-runs';
import {
  alignPayrollItemAttempt,
  failPayrollItem,
  markPayrollItemPaid,
  processPayrollItem,
  queuePayrollItem,
  returnPayrollItem,
} from '../records/payroll-items';
import { returnPayrollFunds, syncPayrollFundsReturns } from './returns';

/** Service address payroll USDC payments are sent from (sandbox treasury of the payroll provider). */
export const PAYROLL_TREASURY_ADDRESS = deriveAddress('payroll:treasury');

/** The run's status and returns in flight (workflow activity; NotFound non-retryable when the row is gone). */
export async function loadPayrollRunState(runId: string): Promise<PayrollRunState> {
  const r = await db().getRepository(PayrollRun).findOneBy({ id: runId });
  if (!r) throw ApplicationFailure.nonRetryable(`payroll run ${runId} not found`, 'NotFound');
  const rows: Array<{ n: number }> = await db().query(
    `SELECT count(*)::int AS n FROM payroll_fund_returns WHERE run_id = $1 AND status IN ('pending', 'submitted')`,
    [runId],
  );
  return { status: r.status, returns_in_flight: rows[0]?.n ?? 0 };
}

/** Ids of the run's items an execution has still to pay or follow (`pending`, `queued`, `processing`), in row order. */
export async function payrollItemsToPay(runId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await db().query(
    `SELECT id FROM payroll_run_items WHERE run_id = $1 AND status IN ('pending', 'queued', 'processing') ORDER BY position`,
    [runId],
  );
  return rows.map((r) => r.id);
}

/**
 * Ends an execution: once no item is `pending`, `queued` or `processing`, the run moves to
 * `completed` (every item paid), `partial` or `failed` (domain `executionOutcome`) with
 * `completed_at` and its `payroll_run.<outcome>` event; `needs_attention` when money is owed back
 * (unpaid items, overfunding). Idempotent (a finished run is left alone).
 */
export async function finishPayrollExecution(runId: string): Promise<string> {
  return transaction(async (m) => {
    const run = await m.findOneOrFail(PayrollRun, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
    if (run.status !== 'executing') return run.status;
    const rows: Array<{ status: PayrollItemStatus }> = await m.query('SELECT status FROM payroll_run_items WHERE run_id = $1', [runId]);
    if (rows.some((r) => r.status === 'pending' || r.status === 'queued' || r.status === 'processing')) return run.status;
    const outcome = executionOutcome(rows.map((r) => r.status));
    // Unpaid items' funds and any overfunding are owed back (domain/payroll-returns.ts) until an operator returns them.
    await finishPayrollRun(m, run, { outcome, owesFundsBack: async (r) => hasUnreturnedFunds((await loadFundsState(m, r)).position) });
    return run.status;
  });
}

/** Locks item `itemId` (NotFound non-retryable when gone). */
async function lockItem(m: EntityManager, itemId: string): Promise<PayrollRunItem> {
  const item = await m.findOne(PayrollRunItem, { where: { id: itemId }, lock: { mode: 'pessimistic_write' } });
  if (!item) throw ApplicationFailure.nonRetryable(`payroll item ${itemId} not found`, 'NotFound');
  return item;
}

/** Step 1 of paying an item: a `pending` item gets its attempt (`queued`) or, without a destination, fails. */
async function queueItem(itemId: string): Promise<{ item: PayrollRunItem; attempt: PayrollItemAttempt | null }> {
  return transaction(async (m) => {
    const item = await lockItem(m, itemId);
    if (item.status === 'pending') {
      const destination =
        item.destination_status === 'ready' && item.destination_ciphertext
          ? parsePayrollDestination(decrypt(item.destination_ciphertext))
          : null;
      if (!destination) {
        await failPayrollItem(m, item, { reason: 'destination_missing' });
        return { item, attempt: null };
      }
      const n = Number((await m.query('SELECT count(*)::int AS n FROM payroll_item_attempts WHERE item_id = $1', [item.id]))[0].n) + 1;
      const attempt = m.create(PayrollItemAttempt, {
        id: newId('pria_'),
        item_id: item.id,
        run_id: item.run_id,
        attempt_no: n,
        idempotency_key: `${item.id}:${n}`,
        rail: destination.type === 'wallet' ? 'usdc_onchain' : destination.bank.rail,
        provider_payment_id: null,
        status: 'queued',
        failure_reason: null,
      });
      await m.save(attempt);
      await queuePayrollItem(m, item, { attemptId: attempt.id });
      return { item, attempt };
    }
    const attempt = item.current_attempt_id ? await m.findOneBy(PayrollItemAttempt, { id: item.current_attempt_id }) : null;
    return { item, attempt };
  });
}

/** A provider answer for an attempt, normalized: `processing`, `paid`, `failed` (reason), `returned` (reason). */
interface ProviderOutcome {
  providerPaymentId: string;
  state: 'processing' | 'paid' | 'failed' | 'returned';
  reason: string | null;
}

const fromRail = (p: RailPayment): ProviderOutcome => ({
  providerPaymentId: p.id,
  state: p.state === 'submitted' ? 'processing' : p.state,
  reason: p.reason,
});

/** Submits the attempt's payment to its provider under the attempt's idempotency key. */
async function submitToProvider(
  item: PayrollRunItem,
  attempt: PayrollItemAttempt,
  destination: PayrollDestination,
): Promise<ProviderOutcome> {
  const amount = BigInt(item.amount_minor);
  if (destination.type === 'wallet') {
    const chain = chainAdapter();
    const usdc = itemPaymentAmount(amount, item.currency, currencyDecimals(item.currency));
    const hash = await chain.send(PAYROLL_TREASURY_ADDRESS, destination.address, chain.stablecoin, usdc, attempt.idempotency_key);
    return { providerPaymentId: `${chain.chain}:${hash}`, state: 'paid', reason: null };
  }
  return fromRail(
    await fiatRails().submit({
      idempotencyKey: attempt.idempotency_key,
      clientReference: item.id,
      rail: destination.bank.rail,
      currency: item.currency,
      amount,
      beneficiaryAccount: beneficiaryAccountOf(destination.bank),
    }),
  );
}

/** Records a provider outcome on the attempt and the item (idempotent: re-applying the same outcome changes nothing). */
async function recordOutcome(itemId: string, attemptId: string, o: ProviderOutcome): Promise<PayrollItemStatus> {
  return transaction(async (m) => {
    const item = await lockItem(m, itemId);
    const attempt = await m.findOneOrFail(PayrollItemAttempt, { where: { id: attemptId }, lock: { mode: 'pessimistic_write' } });
    if (item.current_attempt_id !== attempt.id) return item.status;
    attempt.provider_payment_id = o.providerPaymentId;
    if (item.status === 'queued') await processPayrollItem(m, item);
    if (o.state === 'paid' || o.state === 'returned') {
      if (item.status === 'processing') await markPayrollItemPaid(m, item);
      if (o.state === 'returned' && item.status === 'paid') {
        await returnPayrollItem(m, item, { reason: o.reason });
        await m.query(
          `UPDATE payroll_runs SET needs_attention = true, updated_at = now() WHERE id = $1 AND status IN ('completed', 'partial', 'failed')`,
          [item.run_id],
        );
      }
    } else if (o.state === 'failed' && item.status === 'processing') {
      await failPayrollItem(m, item, { reason: normalizeItemFailure(o.reason) });
    }
    await alignPayrollItemAttempt(m, attempt, item);
    return item.status;
  });
}

/**
 * Item workflow activity: pays item `itemId` at most once. A `pending` item gets its attempt (or
 * fails with `destination_missing`); a `queued` item's payment is submitted under the attempt's
 * key and the answer recorded (`processing`, then `paid` / `failed`). Any other status is returned
 * as is. Returns the item status after the step.
 */
export async function payPayrollItem(itemId: string): Promise<PayrollItemStatus> {
  const { item, attempt } = await queueItem(itemId);
  if (item.status !== 'queued' || !attempt) return item.status;
  const destination = item.destination_ciphertext ? parsePayrollDestination(decrypt(item.destination_ciphertext)) : null;
  if (!destination) throw ApplicationFailure.nonRetryable(`payroll item ${itemId} lost its destination while queued`, 'BeneficiaryMissing');
  return recordOutcome(itemId, attempt.id, await submitToProvider(item, attempt, destination));
}

/**
 * Item workflow activity: re-reads the provider of the item's current attempt (bank rails; chain
 * payments are final once sent) and records what changed (`paid`, `failed`, `returned`). Returns
 * the item status.
 */
export async function syncPayrollItem(itemId: string): Promise<PayrollItemStatus> {
  const item = await db().getRepository(PayrollRunItem).findOneBy({ id: itemId });
  if (!item) throw ApplicationFailure.nonRetryable(`payroll item ${itemId} not found`, 'NotFound');
  const attempt = item.current_attempt_id ? await db().getRepository(PayrollItemAttempt).findOneBy({ id: item.current_attempt_id }) : null;
  if (!attempt || !attempt.provider_payment_id || attempt.rail === 'usdc_onchain') return item.status;
  return recordOutcome(itemId, attempt.id, fromRail(await fiatRails().get(attempt.provider_payment_id)));
}

/** The activities of contracts/payroll-run.ts: what the worker registers for payrollRunWorkflow. */
export const payrollRunWorkflowActivities = {
  loadPayrollRunState,
  refreshPayrollFunding,
  payrollItemsToPay,
  finishPayrollExecution,
  returnPayrollFunds,
  syncPayrollFundsReturns,
} satisfies PayrollRunActivities;

/** The activities of contracts/payroll-item.ts: what the worker registers for payrollItemWorkflow. */
export const payrollItemWorkflowActivities = { payPayrollItem, syncPayrollItem } satisfies PayrollItemActivities;
