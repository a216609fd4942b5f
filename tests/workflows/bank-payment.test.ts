/**
 * Bank-rail payment watching under the Java time-skipping test server with real activities on
 * real PostgreSQL (issue 12; spec 2.4 provider-settled verdicts, part 3, part 6), to each terminal
 * state: expired (the 7-day bank window), unmatched (`deposit_after_close`, `partial_before_cancel`),
 * settled (short credit, top-up within 1%, fiat rail payout to the merchant's bank), refunded (money
 * back through the rail it came in on), and a bank return that overrides settled with underpaid.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createOrReuseBankPayment, recordBankCredit, recordBankReturn } from '../../activities/payments/bank-commands';
import { closeLivePaymentsForLink } from '../../activities/payments/links';
import { notifyPaymentRailUpdate, signalLinkEndedToPayments } from '../../activities/payments/signals';
import { refundLink } from '../../activities/payment-links/refund';
import { Payment, PaymentLink } from '../../entities';
import { db, transaction } from '../../lib/db';
import { bankCollection } from '../../providers/bank-collection';
import { fiatRails } from '../../providers/fiat-rails';
import { eventually } from '../helpers/api';
import { activeBankLinkRow } from '../helpers/fixtures';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { systemScope } from '../../activities/scope';
import { payerScopeOf } from '../helpers/payer-scope';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const payment = (id: string) => db().getRepository(Payment).findOneByOrFail({ id });
const linkOf = (id: string) => db().getRepository(PaymentLink).findOneByOrFail({ id });
const eventTypes = async (objectId: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [objectId])).map((r: { type: string }) => r.type);
const newBankPayment = async (linkId: string, rail: string) =>
  createOrReuseBankPayment(await payerScopeOf(linkId, req), { linkId, rail, payer_email: null, payer_type: 'business', payer_state: null });

/** The provider receives a credit to the payment's instructions and the product records it (as /sim/bank/credits does). */
async function credit(p: Payment, amount: string, currency = p.currency) {
  const i = p.bank_instructions!;
  const toAccount =
    i.rail === 'sepa'
      ? i.iban!
      : i.rail === 'spei'
        ? i.clabe!
        : i.rail === 'pix'
          ? i.pix_key!
          : i.rail === 'faster_payments'
            ? `${i.sort_code}${i.account_number}`
            : i.account_number!;
  const c = await bankCollection().receive({
    rail: p.payment_rail,
    currency,
    amount: BigInt(amount),
    reference: p.bank_reference,
    toAccount,
    senderName: 'Payer',
  });
  await recordBankCredit(c, 2);
  return c;
}

/** The fiat rail reports the payment's settlement (or refund) payout paid, and the product is told. */
async function railPaid(ref: string) {
  await eventually(
    async () => (await db().query('SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1', [ref])).length > 0,
    `rail payment ${ref}`,
  );
  await fiatRails().simulate(ref, { state: 'paid' });
  await notifyPaymentRailUpdate(ref);
}

test.each([
  ['ach', 'ach', 'USD'],
  ['wire', 'ach', 'USD'],
  ['sepa', 'sepa', 'EUR'],
  ['faster_payments', 'faster_payments', 'GBP'],
  ['pix', 'pix', 'BRL'],
  ['spei', 'spei', 'MXN'],
])(
  '%s: an exact credit is paid, then settled on the destination rail %s once the fiat rail reports the payout',
  async (rail, destRail, currency) => {
    const { link } = await activeBankLinkRow(destRail, currency, '45000');
    const { payment: p } = await newBankPayment(link.id, rail);
    await credit(p, '45000');
    await eventually(async () => (await payment(p.id)).settlement_rail_payment_id !== null, 'settlement payout in flight');
    expect((await payment(p.id)).status).toBe('paid');
    await eventually(
      async () => /fiat rail to report/.test(await env.client.workflow.getHandle(p.id).query<string>('waiting_for')),
      'waiting for the rail report',
    );
    await railPaid(p.id);
    expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
    expect(await fiatRails().simulate(p.id, {})).toMatchObject({ rail: destRail, currency, amount: 45000n, state: 'paid' });
    expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.paid', 'payment.settled']);
  },
);

test('short then topped up within 1%: underpaid, paid, settled to the merchant bank through the fiat rail', async () => {
  const { link } = await activeBankLinkRow('spei', 'MXN', '100000');
  const { payment: p } = await newBankPayment(link.id, 'spei');
  await credit(p, '50000');
  await eventually(async () => (await payment(p.id)).status === 'underpaid', 'underpaid');
  expect((await linkOf(link.id)).partial_payment?.received).toEqual({ amount: '50000', currency: 'MXN', decimals: 2 });
  await credit(p, '49200');
  await railPaid(p.id);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  const done = await payment(p.id);
  expect(done).toMatchObject({ amount_received_minor: '99200', settled_minor: '99200', settlement_rail_payment_id: null });
  const rail = await fiatRails().simulate(p.id, {});
  expect(rail).toMatchObject({ rail: 'spei', currency: 'MXN', amount: 99200n, state: 'paid' });
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.underpaid', 'payment.paid', 'payment.settled']);
  expect((await linkOf(link.id)).status).toBe('settled');
});

test('a bank return after settlement overrides settled with underpaid; a top-up settles only what is still owed', async () => {
  const { link } = await activeBankLinkRow('ach', 'USD', '20000');
  const { payment: p } = await newBankPayment(link.id, 'ach');
  const c = await credit(p, '20000');
  await railPaid(p.id);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  await bankCollection().returnCredit(c.id, 'R10 Customer advises not authorized');
  await recordBankReturn(c.id, 'R10 Customer advises not authorized');
  await eventually(async () => (await payment(p.id)).status === 'underpaid', 'underpaid after the return');
  expect(await payment(p.id)).toMatchObject({
    return_reason: 'R10 Customer advises not authorized',
    amount_received_minor: '0',
    settled_minor: '20000',
  });
  expect((await linkOf(link.id)).status).toBe('processing');
  await credit(p, '20000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  expect((await payment(p.id)).settled_minor).toBe('20000');
  expect(await eventTypes(p.id)).toEqual([
    'payment.created',
    'payment.awaiting',
    'payment.paid',
    'payment.settled',
    'payment.underpaid',
    'payment.paid',
    'payment.settled',
  ]);
});

test('a failed settlement payout parks the payment for an operator; the retry signal sends a new payout', async () => {
  const { link } = await activeBankLinkRow('sepa', 'EUR', '30000');
  const { payment: p } = await newBankPayment(link.id, 'sepa');
  await credit(p, '30000');
  await eventually(
    async () => (await db().query('SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1', [p.id])).length > 0,
    'first payout',
  );
  await fiatRails().simulate(p.id, { state: 'failed', reason: 'AC04 Closed account' });
  await notifyPaymentRailUpdate(p.id);
  const h = env.client.workflow.getHandle(p.id);
  await eventually(
    async () => /an operator: SettlementFailed: .*AC04 Closed account/.test(await h.query<string>('waiting_for')),
    'parked for an operator',
  );
  expect(await payment(p.id)).toMatchObject({ status: 'paid', settlement_attempt: 1, settlement_rail_payment_id: null });
  await h.signal('retry');
  await eventually(
    async () =>
      (await db().query(`SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1 AND state = 'submitted'`, [p.id])).length > 0,
    'second payout',
  );
  await railPaid(p.id);
  expect(await h.result()).toBe('settled');
  const rows = await db().query('SELECT state, amount_minor FROM sandbox_rail_payments WHERE client_reference = $1 ORDER BY created_at', [
    p.id,
  ]);
  expect(rows).toEqual([
    { state: 'failed', amount_minor: '30000' },
    { state: 'paid', amount_minor: '30000' },
  ]);
  expect((await payment(p.id)).settled_minor).toBe('30000');
});

test('a refunded payment sends the received total back on the rail it came in on; a failed refund payout waits for an operator', async () => {
  const { creds, link } = await activeBankLinkRow('faster_payments', 'GBP', '7500');
  const { payment: p } = await newBankPayment(link.id, 'faster_payments');
  await credit(p, '7600');
  await railPaid(p.id);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  await refundLink(systemScope(creds.account_id, true, req), { id: link.id, reason: 'duplicate' });
  const h = env.client.workflow.getHandle(p.id);
  // The rail fails the first refund payout: parked for an operator, whose retry sends a new one.
  await eventually(
    async () => (await db().query('SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1', [`refund:${p.id}`])).length > 0,
    'refund payout',
  );
  await fiatRails().simulate(`refund:${p.id}`, { state: 'failed', reason: 'AC01 Incorrect account number' });
  await notifyPaymentRailUpdate(`refund:${p.id}`);
  await eventually(async () => /an operator: RefundFailed: .*AC01/.test(await h.query<string>('waiting_for')), 'parked for an operator');
  await h.signal('retry');
  await eventually(
    async () =>
      (await db().query(`SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1 AND state = 'submitted'`, [`refund:${p.id}`]))
        .length > 0,
    'second refund payout',
  );
  await railPaid(`refund:${p.id}`);
  expect(await h.result()).toBe('refunded');
  const r = await payment(p.id);
  expect(r).toMatchObject({ status: 'refunded', refund_reason: 'duplicate', refund_attempt: 1 });
  expect(r.refund_completed_at).not.toBeNull();
  const back = await fiatRails().get(r.refund_rail_payment_id!);
  expect(back).toMatchObject({ rail: 'faster_payments', currency: 'GBP', amount: 7600n, client_reference: `refund:${p.id}` });
  expect((await linkOf(link.id)).status).toBe('refunded');
  expect(await eventTypes(link.id)).toContain('payment_link.refunded');
});

test('cancelling an underpaid bank link leaves the payment unmatched partial_before_cancel', async () => {
  const { creds, link } = await activeBankLinkRow('pix', 'BRL', '10000');
  const { payment: p } = await newBankPayment(link.id, 'pix');
  await credit(p, '1000');
  await eventually(async () => (await payment(p.id)).status === 'underpaid', 'underpaid');
  const { paymentIds } = await transaction(async (m) => {
    const l = await m.findOneByOrFail(PaymentLink, { id: link.id });
    l.status = 'cancelled';
    await m.save(l);
    return closeLivePaymentsForLink(m, l, 'cancelled', req);
  });
  await signalLinkEndedToPayments(paymentIds, creds.account_id, 'cancelled');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  expect(await payment(p.id)).toMatchObject({ unmatched_reason: 'partial_before_cancel', amount_received_minor: '1000' });
});

// Last: skipping the 7-day window moves the test server's clock a week past the wall clock the
// payments' `expires_at` is computed from, so a payment created after it would expire at once.
test('an awaiting bank payment expires after its 7-day window; a late credit is unmatched deposit_after_close', async () => {
  // The clock is read before the payment exists: its window starts after this instant, however slow the machine.
  const before = await env.currentTimeMs();
  const { link } = await activeBankLinkRow('sepa', 'EUR', '10000');
  const { payment: p } = await newBankPayment(link.id, 'sepa');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('expired');
  expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(7 * 86_400_000 - 5000);
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.expired']);
  await credit(p, '10000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  expect(await payment(p.id)).toMatchObject({
    status: 'unmatched',
    unmatched_reason: 'deposit_after_close',
    amount_received_minor: '10000',
  });
});
