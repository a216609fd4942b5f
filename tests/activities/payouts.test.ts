/**
 * Activity tier, payouts (activities/payouts/activities.ts, `payoutWorkflowActivities`): each step
 * of the payout workflow run alone in MockActivityEnvironment on real PostgreSQL with the sandbox
 * bridge and fiat rails. Proves the state the workflow plans with after each step, the exact status
 * moves and outbox events, that a retried step changes nothing (same answer, one event, one
 * provider object), and that the attempt's transition table refuses a move it forbids.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import {
  applyPayoutDeposit,
  ensureProviderTransfer,
  expirePayout,
  loadPayoutState,
  refundHeldFunds,
  submitFiatPayment,
  syncRailPayment,
} from '../../activities/payouts/activities';
import { createPayout, requestFunding, setBeneficiary } from '../../activities/payouts/commands';
import { systemScope } from '../../activities/scope';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { getAddress } from 'viem';
import { FUNDING_WINDOW_SECONDS } from '../../domain/payouts/deadlines';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { bridgeAdapter } from '../../providers/bridge';
import { fiatRails } from '../../providers/fiat-rails';
import {
  callsFor,
  count,
  describeWithDb,
  eventTypes,
  rejection,
  row,
  runActivity,
  testRequest,
  useActivityTier,
} from '../helpers/activity-env';

/** A fresh refund address per payout (the sandbox chain is shared with every other test file). */
const newAddress = () => getAddress(`0x${crypto.randomBytes(20).toString('hex')}`);
const SETUP_EVENTS = ['payout.created', 'payout.beneficiary_added', 'payout.configuration_committed'];

/** A USD/ACH payout of $1,000 with its beneficiary and a recorded funding attempt (`creating`), as the fund request leaves it. */
async function payoutWithAttempt(): Promise<{ payoutId: string; attemptId: string; refund: string }> {
  const refund = newAddress();
  const creds = await provisionAccount();
  const p = await createPayout(systemScope(creds.account_id, true, testRequest), {
    invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 },
    corridor_id: 'usd_ach',
    source_chain: 'base',
    recipient_email: 'ap@supplier.example',
    notify_recipient: true,
  });
  await setBeneficiary(systemScope(creds.account_id, true, testRequest), {
    id: p.id,
    account_owner_type: 'business',
    account_holder_name: 'Supplier LLC',
    account_number: '123456789',
    routing_number: '021000021',
  });
  const r = await requestFunding(systemScope(creds.account_id, true, testRequest), {
    id: p.id,
    funding_source: 'external_wallet',
    refund_address: refund,
  });
  return { payoutId: p.id, attemptId: r.attemptId, refund };
}

/** USDC `amount` landing at the attempt's funding address on the sandbox chain, and the chain watcher's record of it (a `pod_` deposit). */
async function arrive(attemptId: string, amount: string): Promise<string> {
  const at = await row('payout_attempts', attemptId);
  const t = await chainAdapter().inject({
    chain: at.source_chain,
    asset: 'USDC',
    to_address: at.deposit_address,
    amount: BigInt(amount),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });
  return recordObservedTransfer(t);
}

/** A payout whose transfer exists and whose full gross amount arrived and was applied (`funds_received`). */
async function fundedPayout(): Promise<{ payoutId: string; attemptId: string; refund: string }> {
  const x = await payoutWithAttempt();
  await runActivity(ensureProviderTransfer, x.payoutId, Date.now());
  const at = await row('payout_attempts', x.attemptId);
  await runActivity(applyPayoutDeposit, x.payoutId, await arrive(x.attemptId, at.gross_minor));
  return x;
}

describeWithDb('payout activities', () => {
  useActivityTier();

  test('loadPayoutState of a fund request: the attempt still needs its provider transfer (the workflow next calls ensureProviderTransfer)', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    const s = await runActivity(loadPayoutState, payoutId);
    expect(s).toMatchObject({
      status: 'draft',
      attemptId,
      needsTransfer: true,
      terminal: false,
      pendingDepositIds: [],
      held: false,
      fundingTarget: null,
    });
  });

  test('loadPayoutState of an unknown payout is the non-retryable NotFound', async () => {
    const e = await rejection(runActivity(loadPayoutState, 'po_doesnotexist'));
    expect(e).toMatchObject({ type: 'NotFound', nonRetryable: true });
  });

  test('ensureProviderTransfer: draft -> awaiting_funds, funding window from the workflow clock, funded + awaiting_funds once; a retry returns the same transfer and writes nothing', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    const nowMs = Date.parse('2030-01-01T00:00:00Z');
    const first = await runActivity(ensureProviderTransfer, payoutId, nowMs);
    expect(first).toMatchObject({
      status: 'awaiting_funds',
      needsTransfer: false,
      expiresAtMs: nowMs + FUNDING_WINDOW_SECONDS * 1000,
      terminal: false,
    });
    const at = await row('payout_attempts', attemptId);
    expect(at.status).toBe('awaiting_funds');
    expect(at.provider_transfer_id).toEqual(expect.any(String));
    expect(first.fundingTarget).toBe(`${at.gross_minor} USDC minor units on base to ${at.deposit_address}`);
    expect(await eventTypes(payoutId)).toEqual([...SETUP_EVENTS, 'payout.funded', 'payout.awaiting_funds']);

    const again = await runActivity(ensureProviderTransfer, payoutId, nowMs + 60_000);
    expect(again).toEqual(first);
    expect((await row('payout_attempts', attemptId)).provider_transfer_id).toBe(at.provider_transfer_id);
    expect(await eventTypes(payoutId)).toEqual([...SETUP_EVENTS, 'payout.funded', 'payout.awaiting_funds']);
  });

  test('a deposit seen at the funding address is pending until applied; applyPayoutDeposit -> funds_received once, a retry changes nothing', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    await runActivity(ensureProviderTransfer, payoutId, Date.now());
    const gross = (await row('payout_attempts', attemptId)).gross_minor;
    const depositId = await arrive(attemptId, gross);
    expect(callsFor(payoutId)).toContain('signalWithStart:providerUpdate');
    expect((await runActivity(loadPayoutState, payoutId)).pendingDepositIds).toEqual([depositId]);

    const s = await runActivity(applyPayoutDeposit, payoutId, depositId);
    expect(s).toMatchObject({ status: 'funds_received', pendingDepositIds: [], held: false });
    expect(await row('payout_attempts', attemptId)).toMatchObject({ status: 'funds_received', received_minor: gross });
    const again = await runActivity(applyPayoutDeposit, payoutId, depositId);
    expect(again).toEqual(s);
    expect((await row('payout_attempts', attemptId)).received_minor).toBe(gross);
    expect((await eventTypes(payoutId)).filter((t) => t === 'payout.funds_received')).toHaveLength(1);
  });

  test('a deposit the payout can no longer use (expired) is held for return, not applied', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    await runActivity(ensureProviderTransfer, payoutId, Date.now());
    expect(await runActivity(expirePayout, payoutId)).toMatchObject({ status: 'expired', terminal: true });
    const depositId = await arrive(attemptId, '5000000');
    const s = await runActivity(applyPayoutDeposit, payoutId, depositId);
    expect(s).toMatchObject({ status: 'expired', held: true, canRefund: true });
    expect((await row('payouts', payoutId)).held_minor).toBe('5000000');
    expect((await row('payout_deposits', depositId)).effect).toBe('held');
  });

  test('submitFiatPayment: funds_received -> processing with exactly payout.processing; a retry returns the same answer and one event', async () => {
    const { payoutId, attemptId } = await fundedPayout();
    const before = await eventTypes(payoutId);
    const s = await runActivity(submitFiatPayment, payoutId);
    expect(s).toMatchObject({ status: 'processing', railPaymentId: expect.stringMatching(/^rpm_/), held: false });
    expect(await eventTypes(payoutId)).toEqual([...before, 'payout.processing']);
    expect(await row('payout_attempts', attemptId)).toMatchObject({
      status: 'processing',
      rail_payment_id: s.railPaymentId,
      surplus_minor: '0',
    });

    const again = await runActivity(submitFiatPayment, payoutId);
    expect(again).toEqual(s);
    expect(await eventTypes(payoutId)).toEqual([...before, 'payout.processing']);
    expect(await count('sandbox_rail_payments', 'client_reference = $1', [payoutId])).toBe(1);
  });

  test('submitFiatPayment retried after a crash between the rail call and the commit records the rail payment already made (key <attempt>:rail), never a second one', async () => {
    const { payoutId, attemptId } = await fundedPayout();
    const p = await row('payouts', payoutId);
    const lost = await fiatRails().submit({
      idempotencyKey: `${attemptId}:rail`,
      clientReference: payoutId,
      rail: p.fiat_rail,
      currency: p.currency,
      amount: 1n,
    });
    const s = await runActivity(submitFiatPayment, payoutId);
    expect(s.railPaymentId).toBe(lost.id);
    expect(await count('sandbox_rail_payments', 'client_reference = $1', [payoutId])).toBe(1);
  });

  test('submitFiatPayment refuses a move the attempt table forbids (expired -> processing): IllegalTransition, nothing written', async () => {
    const { payoutId, attemptId } = await fundedPayout();
    await db().query(`UPDATE payout_attempts SET status = 'expired' WHERE id = $1`, [attemptId]);
    const before = await eventTypes(payoutId);
    const e = await rejection(runActivity(submitFiatPayment, payoutId));
    expect(e.name).toBe('IllegalTransition');
    expect(e.code).toBe('payout_attempt_state_changed');
    expect((await row('payouts', payoutId)).status).toBe('funds_received');
    expect(await row('payout_attempts', attemptId)).toMatchObject({ status: 'expired', rail_payment_id: null });
    expect(await eventTypes(payoutId)).toEqual(before);
  });

  test('syncRailPayment: paid, then the recipient got the invoice -> settled and notify once; a re-sync notifies no more', async () => {
    const { payoutId } = await fundedPayout();
    await runActivity(submitFiatPayment, payoutId);
    expect(await runActivity(syncRailPayment, payoutId)).toMatchObject({ status: 'processing', notify: false });
    await fiatRails().simulate(payoutId, { state: 'paid' });
    expect(await runActivity(syncRailPayment, payoutId)).toMatchObject({ status: 'paid', terminal: false, notify: false });
    await fiatRails().simulate(payoutId, { recipientReceived: 100000n });
    expect(await runActivity(syncRailPayment, payoutId)).toMatchObject({ status: 'settled', terminal: true, notify: true });
    expect(await runActivity(syncRailPayment, payoutId)).toMatchObject({ status: 'settled', notify: false });
    const types = await eventTypes(payoutId);
    expect(types.slice(-3)).toEqual(['payout.processing', 'payout.paid', 'payout.settled']);
  });

  test('the rail fails: failed with every USDC held; refundHeldFunds returns it once, also when retried after a crash between the provider call and the commit', async () => {
    const { payoutId, attemptId, refund } = await fundedPayout();
    await runActivity(submitFiatPayment, payoutId);
    await fiatRails().simulate(payoutId, { state: 'failed', reason: 'account_closed' });
    const at = await row('payout_attempts', attemptId);
    expect(await runActivity(syncRailPayment, payoutId)).toMatchObject({ status: 'failed', held: true, canRefund: true, terminal: true });
    expect(await row('payouts', payoutId)).toMatchObject({ failure_reason: 'account_closed', held_minor: at.gross_minor });

    // The first attempt's provider call went through (key <attempt>:return:<returned before>), its commit was lost.
    await bridgeAdapter().refund(
      at.provider_transfer_id,
      { chain: 'base', address: refund },
      BigInt(at.gross_minor),
      `${attemptId}:return:0`,
    );
    expect(await runActivity(refundHeldFunds, payoutId)).toMatchObject({ held: false, canRefund: false });
    expect(await runActivity(refundHeldFunds, payoutId)).toMatchObject({ held: false });
    expect((await row('payout_attempts', attemptId)).returned_minor).toBe(at.gross_minor);
    const back = await db().query(`SELECT amount_minor FROM sandbox_chain_transfers WHERE chain = 'base' AND to_address = $1`, [refund]);
    expect(back).toEqual([{ amount_minor: at.gross_minor }]);
    expect(await count('payout_deposits', `payout_id = $1 AND effect <> 'refunded'`, [payoutId])).toBe(0);
  });

  test('expirePayout: nothing arrived -> expired (funding_window_expired, attempt expired); a second call is a no-op', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    await runActivity(ensureProviderTransfer, payoutId, Date.now());
    const before = await eventTypes(payoutId);
    const s = await runActivity(expirePayout, payoutId);
    expect(s).toMatchObject({ status: 'expired', terminal: true });
    expect((await row('payouts', payoutId)).failure_reason).toBe('funding_window_expired');
    expect((await row('payout_attempts', attemptId)).status).toBe('expired');
    expect(await runActivity(expirePayout, payoutId)).toEqual(s);
    expect(await eventTypes(payoutId)).toEqual(before);
  });

  test('expirePayout when funds reached the provider transfer: the payout stays awaiting_funds (the deposit is on its way)', async () => {
    const { payoutId, attemptId } = await payoutWithAttempt();
    await runActivity(ensureProviderTransfer, payoutId, Date.now());
    await arrive(attemptId, '1000000');
    expect(await runActivity(expirePayout, payoutId)).toMatchObject({ status: 'awaiting_funds', terminal: false });
  });
});
