/**
 * Activity tier, payroll (activities/payroll, `payrollWorkflowActivities`): the item workflow's
 * `payPayrollItem` / `syncPayrollItem` and the run workflow's `refreshPayrollFunding`,
 * `payrollItemsToPay`, `finishPayrollExecution`, run alone in MockActivityEnvironment on real
 * PostgreSQL with the sandbox fiat rails (test account endings decide the outcome) and chain.
 * Proves item execution (each status move with its `payroll_item.payout_*` event, one attempt and
 * one provider payment under `<item>:<attempt>` also when retried), the failure and return
 * verdicts, the run outcome and its `needs_attention`, and the funding poll's verdict.
 */
import crypto from 'node:crypto';
import {
  finishPayrollExecution,
  loadPayrollRunState,
  PAYROLL_TREASURY_ADDRESS,
  payPayrollItem,
  payrollItemsToPay,
  syncPayrollItem,
} from '../../activities/payroll/activities';
import { executeRun } from '../../activities/payroll/commands';
import { refreshPayrollFunding } from '../../activities/payroll/funding';
import { requestFundingInstructions } from '../../activities/payroll/funding-instructions';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import { count, describeWithDb, eventTypes, rejection, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';
import { approvedRun, markFunded, usBank, wallet } from '../helpers/payroll';
import { systemScope } from '../../activities/scope';

/** An executing run of `amounts` (minor units, USD) whose item i gets `destinationOf(i)`. */
async function executingRun(amounts: bigint[], destinationOf: Parameters<typeof approvedRun>[1]) {
  const r = await approvedRun(amounts, destinationOf);
  await markFunded(r.runId);
  await executeRun(systemScope(r.accountId, true, testRequest), { id: r.runId });
  return r;
}

const itemEvents = async (itemId: string) => (await eventTypes(itemId)).filter((t) => t.startsWith('payroll_item.payout_'));

describeWithDb('payroll activities', () => {
  useActivityTier();

  test('payPayrollItem, bank destination paid at once: queued -> processing -> paid with their events, one attempt <item>:1; a retry pays nothing more', async () => {
    const {
      itemIds: [itemId],
    } = await executingRun([12_345n], () => usBank('000123456789'));
    expect(await runActivity(payPayrollItem, itemId)).toBe('paid');
    expect(await itemEvents(itemId)).toEqual(['payroll_item.payout_queued', 'payroll_item.payout_processing', 'payroll_item.payout_paid']);
    const attempts = await db().query('SELECT attempt_no, idempotency_key, status, rail FROM payroll_item_attempts WHERE item_id = $1', [
      itemId,
    ]);
    expect(attempts).toEqual([{ attempt_no: 1, idempotency_key: `${itemId}:1`, status: 'paid', rail: 'ach' }]);

    expect(await runActivity(payPayrollItem, itemId)).toBe('paid');
    expect(await count('payroll_item_attempts', 'item_id = $1', [itemId])).toBe(1);
    expect(await count('sandbox_rail_payments', 'client_reference = $1', [itemId])).toBe(1);
    expect(await itemEvents(itemId)).toHaveLength(3);
  });

  test('payPayrollItem retried while queued (a crash after the attempt was written) submits under the same key: one provider payment', async () => {
    const {
      itemIds: [itemId],
    } = await executingRun([5_000n], () => usBank('000123456789'));
    // The first try queued the item and made the provider call under <item>:1, then died before recording it.
    await runActivity(payPayrollItem, itemId);
    await db().query(`UPDATE payroll_run_items SET status = 'queued' WHERE id = $1`, [itemId]);
    await db().query(`UPDATE payroll_item_attempts SET status = 'queued', provider_payment_id = NULL WHERE item_id = $1`, [itemId]);
    expect(await runActivity(payPayrollItem, itemId)).toBe('paid');
    expect(await count('payroll_item_attempts', 'item_id = $1', [itemId])).toBe(1);
    expect(await count('sandbox_rail_payments', 'client_reference = $1', [itemId])).toBe(1);
  });

  test('the rail fails the payment (account ending 1116): item failed with the rail reason; a returned one (1113) is paid then returned', async () => {
    const {
      itemIds: [failing, returned],
    } = await executingRun([1_000n, 2_000n], (i) => usBank(i === 0 ? '000111111116' : '000111111113'));
    expect(await runActivity(payPayrollItem, failing)).toBe('failed');
    expect((await row('payroll_run_items', failing)).failure_reason).toBe('no_account');
    expect(await itemEvents(failing)).toEqual([
      'payroll_item.payout_queued',
      'payroll_item.payout_processing',
      'payroll_item.payout_failed',
    ]);
    expect(await runActivity(payPayrollItem, returned)).toBe('returned');
    expect((await row('payroll_run_items', returned)).return_reason).toBe('R02 Account closed');
    expect((await itemEvents(returned)).slice(-2)).toEqual(['payroll_item.payout_paid', 'payroll_item.payout_returned']);
  });

  test('wallet destination: paid on chain from the payroll treasury in USDC (6 decimals), once also when retried', async () => {
    const address = `0x${crypto.randomBytes(20).toString('hex')}`;
    const {
      itemIds: [itemId],
    } = await executingRun([2_500n], () => wallet(address));
    expect(await runActivity(payPayrollItem, itemId)).toBe('paid');
    expect(await runActivity(payPayrollItem, itemId)).toBe('paid');
    const sent = await db().query('SELECT from_address, amount_minor FROM sandbox_chain_transfers WHERE lower(to_address) = lower($1)', [
      address,
    ]);
    expect(sent).toEqual([{ from_address: PAYROLL_TREASURY_ADDRESS, amount_minor: expect.any(String) }]);
    expect(BigInt(sent[0].amount_minor)).toBeGreaterThanOrEqual(25_000_000n);
  });

  test('an item without a destination fails (destination_missing) without any attempt or provider call', async () => {
    const {
      itemIds: [itemId],
    } = await executingRun([1_000n], () => null);
    expect(await runActivity(payPayrollItem, itemId)).toBe('failed');
    expect((await row('payroll_run_items', itemId)).failure_reason).toBe('destination_missing');
    expect(await count('payroll_item_attempts', 'item_id = $1', [itemId])).toBe(0);
  });

  test('syncPayrollItem records a later rail answer (processing -> paid) and is a no-op when nothing changed', async () => {
    const {
      itemIds: [itemId],
    } = await executingRun([3_000n], () => usBank('000123456789'));
    await runActivity(payPayrollItem, itemId);
    // Rewind to "submitted, not yet answered" as a slower rail would leave it.
    const [at] = await db().query('SELECT provider_payment_id FROM payroll_item_attempts WHERE item_id = $1', [itemId]);
    await db().query(`UPDATE sandbox_rail_payments SET state = 'submitted', paid_minor = NULL WHERE id = $1`, [at.provider_payment_id]);
    await db().query(`UPDATE payroll_run_items SET status = 'processing', paid_at = NULL WHERE id = $1`, [itemId]);
    await db().query(`UPDATE payroll_item_attempts SET status = 'processing' WHERE item_id = $1`, [itemId]);
    const paidEvents = async () => (await itemEvents(itemId)).filter((t) => t === 'payroll_item.payout_paid').length;
    const before = await paidEvents();
    expect(await runActivity(syncPayrollItem, itemId)).toBe('processing');
    await fiatRails().simulate(at.provider_payment_id, { state: 'paid' });
    expect(await runActivity(syncPayrollItem, itemId)).toBe('paid');
    expect(await runActivity(syncPayrollItem, itemId)).toBe('paid');
    expect(await paidEvents()).toBe(before + 1);
  });

  test('finishPayrollExecution: stays executing while an item is unpaid; partial with needs_attention once one failed and the rest paid; idempotent', async () => {
    const { runId, itemIds } = await executingRun([1_000n, 2_000n], (i) => usBank(i === 0 ? '000123456789' : '000111111116'));
    expect(await runActivity(payrollItemsToPay, runId)).toEqual(itemIds);
    await runActivity(payPayrollItem, itemIds[0]);
    expect(await runActivity(finishPayrollExecution, runId)).toBe('executing');
    expect(await runActivity(payrollItemsToPay, runId)).toEqual([itemIds[1]]);
    await runActivity(payPayrollItem, itemIds[1]);
    expect(await runActivity(finishPayrollExecution, runId)).toBe('partial');
    expect(await runActivity(finishPayrollExecution, runId)).toBe('partial');
    expect(await row('payroll_runs', runId)).toMatchObject({ status: 'partial', needs_attention: true });
    expect((await eventTypes(runId)).filter((t) => t === 'payroll_run.partial')).toHaveLength(1);
    expect(await runActivity(loadPayrollRunState, runId)).toEqual({ status: 'partial', returns_in_flight: 0 });
  });

  test('finishPayrollExecution: every item paid -> completed without needs_attention', async () => {
    const { runId, itemIds } = await executingRun([1_000n], () => usBank('000123456789'));
    await runActivity(payPayrollItem, itemIds[0]);
    expect(await runActivity(finishPayrollExecution, runId)).toBe('completed');
    expect(await row('payroll_runs', runId)).toMatchObject({ status: 'completed', needs_attention: false });
  });

  test('refreshPayrollFunding (the five-minute poll): nothing observed, nothing written; the priced USDC at the funding address -> funded (funding_verified once)', async () => {
    const r = await approvedRun([10_000n], () => usBank('000123456789'));
    const at = await requestFundingInstructions(systemScope(r.accountId, true, testRequest), { id: r.runId, funding_method: 'crypto' });
    expect(await runActivity(refreshPayrollFunding, r.runId)).toEqual({ status: 'funding_pending', funding_state: 'unfunded' });
    const before = await eventTypes(r.runId);
    expect(await runActivity(refreshPayrollFunding, r.runId)).toEqual({ status: 'funding_pending', funding_state: 'unfunded' });
    expect(await eventTypes(r.runId)).toEqual(before);

    const c = chainAdapter();
    const crypto0 = at.crypto as { address: string; amount: { amount: string } };
    await c.inject({
      chain: c.chain,
      asset: c.stablecoin,
      to_address: crypto0.address,
      amount: BigInt(crypto0.amount.amount),
      decimals: 6,
    });
    expect(await runActivity(refreshPayrollFunding, r.runId)).toEqual({ status: 'funded', funding_state: 'funded' });
    expect(await runActivity(refreshPayrollFunding, r.runId)).toEqual({ status: 'funded', funding_state: 'funded' });
    expect((await eventTypes(r.runId)).filter((t) => t === 'payroll_run.funding_verified')).toHaveLength(1);
    expect(await rejection(runActivity(refreshPayrollFunding, 'pr_missing'))).toMatchObject({ type: 'NotFound', nonRetryable: true });
  });
});
