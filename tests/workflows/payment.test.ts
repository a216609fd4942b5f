/**
 * Payment watching under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.4, part 3): expiry then a late deposit (unmatched deposit_after_close), a short
 * deposit then a top-up (paid, settled into the service wallet), an overpayment keeping its
 * surplus, a deposit after settlement recorded only, and an underpaid link cancelled (unmatched
 * partial_before_cancel).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import crypto from 'node:crypto';
import { createOrReuseNativePayment } from '../../activities/payments/commands';
import { closeLivePaymentsForLink } from '../../activities/payments/links';
import { signalLinkEndedToPayments } from '../../activities/payments/signals';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { Deposit, Payment, PaymentLink, Wallet } from '../../entities';
import { db, transaction } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { eventually } from '../helpers/api';
import { activeCryptoLink } from '../helpers/fixtures';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { runTimes } from '../helpers/time-skipping';
import { BEFORE_MS, deadline } from '../fixtures/deadlines';
import { systemScope } from '../../activities/scope';

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
const deposit = (p: Payment, amount: string) =>
  recordObservedTransfer({
    chain: p.deposit_chain!,
    asset: p.stablecoin!,
    to_address: p.deposit_address!,
    from_address: null,
    amount: BigInt(amount),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });

test('an awaiting payment expires after its window (24 h): awaiting a minute before it, expired at it; a late deposit is unmatched deposit_after_close', async () => {
  const { link } = await activeCryptoLink('10000');
  const { payment: p } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    payer_email: null,
    payer_type: null,
  });
  expect(p.amount_expected_minor).toBe('101000000');
  // workflows/payment.ts waits for the instant expires_at on its own clock: this first test of the
  // file runs before anything moves the test server's clock past the wall clock.
  const ttl = deadline('payment_ttl');
  const expiresMs = p.expires_at.getTime();
  expect(Math.abs(expiresMs - p.created_at.getTime() - ttl.ms)).toBeLessThan(5_000);
  const now = await env.currentTimeMs();
  expect(expiresMs - BEFORE_MS).toBeGreaterThan(now);
  await env.sleep(expiresMs - BEFORE_MS - now);
  expect((await payment(p.id)).status).toBe('awaiting');
  const result = await env.client.workflow.getHandle(p.id).result();
  expect(result).toBe('expired');
  const { closeMs } = await runTimes(env, p.id);
  expect(closeMs).toBeGreaterThanOrEqual(expiresMs);
  expect(closeMs).toBeLessThanOrEqual(expiresMs + ttl.slackMs);
  expect((await payment(p.id)).status).toBe('expired');
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.expired']);

  await deposit(p, '101000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  const after = await payment(p.id);
  expect(after.status).toBe('unmatched');
  expect(after.unmatched_reason).toBe('deposit_after_close');
  expect(after.amount_received_minor).toBe('101000000');
  expect(await eventTypes(p.id)).toContain('payment.unmatched');
});

test('a short deposit then a top-up pays and settles the sum into the service wallet; a later deposit is recorded only', async () => {
  const { creds, link } = await activeCryptoLink('10000');
  const wallet = await db().getRepository(Wallet).findOneByOrFail({ account_id: creds.account_id });
  const { payment: p } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    payer_email: null,
    payer_type: null,
  });
  await deposit(p, '60000000');
  await eventually(async () => (await payment(p.id)).status === 'underpaid', 'underpaid');
  const mid = await linkOf(link.id);
  expect(mid.status).toBe('processing');
  expect(mid.partial_payment?.received).toEqual({ amount: '60000000', currency: 'USDC', decimals: 6 });

  await deposit(p, '41000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  const done = await payment(p.id);
  expect(done.amount_received_minor).toBe('101000000');
  expect(done.surplus_minor).toBeNull();
  const l = await linkOf(link.id);
  expect(l.status).toBe('settled');
  expect(l.partial_payment).toBeNull();
  expect(await chainAdapter().balanceOf(wallet.address, 'USDC')).toBe(100000000n);
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.underpaid', 'payment.paid', 'payment.settled']);
  expect(await eventTypes(link.id)).toEqual(
    expect.arrayContaining(['payment_link.partially_paid', 'payment_link.paid', 'payment_link.settled']),
  );

  const depId = await deposit(p, '5000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  const dep = await db().getRepository(Deposit).findOneByOrFail({ id: depId });
  expect(dep.effect).toBe('recorded_only');
  expect((await payment(p.id)).amount_received_minor).toBe('101000000');
});

test('an overpayment is overpaid, keeps its surplus and settles the exact invoice', async () => {
  const { creds, link } = await activeCryptoLink('2500');
  const wallet = await db().getRepository(Wallet).findOneByOrFail({ account_id: creds.account_id });
  const { payment: p } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    payer_email: null,
    payer_type: null,
  });
  expect(p.amount_expected_minor).toBe('25250000');
  await deposit(p, '30000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  const done = await payment(p.id);
  expect(done.surplus_minor).toBe('4750000');
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.overpaid', 'payment.settled']);
  expect(await chainAdapter().balanceOf(wallet.address, 'USDC')).toBe(25000000n);
});

test('cancelling an underpaid link leaves the payment unmatched partial_before_cancel', async () => {
  const { creds, link } = await activeCryptoLink('10000');
  const { payment: p } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    payer_email: null,
    payer_type: null,
  });
  await deposit(p, '1000000');
  await eventually(async () => (await payment(p.id)).status === 'underpaid', 'underpaid');
  const { paymentIds } = await transaction(async (m) => {
    const l = await m.findOneByOrFail(PaymentLink, { id: link.id });
    l.status = 'cancelled';
    await m.save(l);
    return closeLivePaymentsForLink(m, l, 'cancelled', req);
  });
  expect(paymentIds).toEqual([p.id]);
  await signalLinkEndedToPayments(paymentIds, creds.account_id, 'cancelled');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  const after = await payment(p.id);
  expect(after.unmatched_reason).toBe('partial_before_cancel');
  expect(after.amount_received_minor).toBe('1000000');
});
