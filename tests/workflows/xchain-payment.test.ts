/**
 * Cross-network payment watching (workflows/xchain-payment.ts) under the Java time-skipping test
 * server with real activities on real PostgreSQL and the sandbox bridge (spec 2.4 watcher states
 * and verdicts, part 3), to each terminal state: delivered and settled; delivered less (matching
 * `bridge_delivered_less`, underpaid) then topped up to settled; bridge failed (funds returned,
 * payment expired); expired with nothing seen, then a late deposit returned to the refund address
 * (unmatched, recovery_required -> recovering); an underpaid link cancelled (money returned); the
 * bridge failing after delivering less (the top-up returned, later the delivered money too).
 * Also the transfer rail (workflows/payment.ts): paid and settled; expired, then a late transfer unmatched.
 * Both expiries are checked in workflow time: still awaiting a minute before the deadline, closed at it.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import crypto from 'node:crypto';
import { closeLivePaymentsForLink } from '../../activities/payments/links';
import { createOrReuseTransferPayment, createOrReuseXchainPayment } from '../../activities/payments/rails';
import { signalBridgeUpdate, signalLinkEndedToPayments } from '../../activities/payments/signals';
import { wireChainWatcher } from '../../activities/payments/watcher';
import { Payment, PaymentLink, Wallet } from '../../entities';
import { db, transaction } from '../../lib/db';
import { payInBridgeAdapter, SANDBOX_BRIDGE_FEES } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { deadline } from '../fixtures/deadlines';
import { eventually } from '../helpers/api';
import { activeCryptoLink } from '../helpers/fixtures';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { BEFORE_DEADLINE_MS, runElapsedMs, runTimes, skipToRunOffset, TURN_SLACK_MS } from '../helpers/time-skipping';
import { systemScope } from '../../activities/scope';
import { payerScopeOf } from '../helpers/payer-scope';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };
const REFUND = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
  // The chain watcher, as the API process wires it: sandbox transfers reach the payments.
  wireChainWatcher();
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const payment = (id: string) => db().getRepository(Payment).findOneByOrFail({ id });
const eventTypes = async (objectId: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [objectId])).map((r: { type: string }) => r.type);
/** The payer sends `amount` USDC on the payment's source network to the bridge's address. */
const sendOnSource = (p: Payment, amount: string) =>
  chainAdapter().inject({
    chain: p.deposit_chain!,
    asset: 'USDC',
    to_address: p.deposit_address!,
    amount: BigInt(amount),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });
const xchain = async (linkId: string, network = 'base', refund = REFUND) =>
  createOrReuseXchainPayment(await payerScopeOf(linkId, req), { linkId, network, stablecoin: 'USDC', refund_address: refund });
/** What `address` received on `chain` (the sandbox ledger of the source networks). */
const refunded = async (chain: string, address: string) => {
  const rows: Array<{ s: string }> = await db().query(
    `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM sandbox_chain_transfers WHERE chain = $1 AND lower(to_address) = lower($2)`,
    [chain, address],
  );
  return BigInt(rows[0].s);
};

// The transfer rail first, on purpose: workflows/payment.ts judges expires_at (a wall-clock instant)
// on the test server's clock, which the cross-network expiry below moves a day past the wall clock.
test('crypto_transfer: a direct USDC transfer on the service network is paid and settled', async () => {
  const { creds, link } = await activeCryptoLink('2000');
  const wallet = await db().getRepository(Wallet).findOneByOrFail({ account_id: creds.account_id });
  const chain = chainAdapter();
  const { payment: p } = await createOrReuseTransferPayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    source_chain: chain.chain,
    source_asset: 'USDC',
    source_address: REFUND,
  });
  expect(p).toMatchObject({
    payment_rail: 'crypto_transfer',
    source_chain: chain.chain,
    source_address: REFUND,
    watcher_state: null,
    amount_expected_minor: '20200000',
  });
  expect(
    (
      await createOrReuseTransferPayment(systemScope(link.account_id, link.livemode, req), {
        linkId: link.id,
        source_chain: chain.chain,
        source_asset: 'USDC',
      })
    ).payment.id,
  ).toBe(p.id);
  await chain.inject({
    chain: chain.chain,
    asset: chain.stablecoin,
    to_address: p.deposit_address!,
    from_address: REFUND,
    amount: 20200000n,
    decimals: 6,
  });
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  expect(await chain.balanceOf(wallet.address, chain.stablecoin)).toBe(20000000n);
});

test('crypto_transfer: nothing arrives; awaiting a minute before expires_at, expired at it with payment.expired; a late transfer is unmatched', async () => {
  const { link } = await activeCryptoLink('3000');
  const chain = chainAdapter();
  const { payment: p } = await createOrReuseTransferPayment(systemScope(link.account_id, link.livemode, req), {
    linkId: link.id,
    source_chain: chain.chain,
    source_asset: 'USDC',
  });
  // workflows/payment.ts waits for the instant expires_at on its own clock (no object clock): the
  // test server's clock has not moved past the wall clock yet (first tests of the file).
  const expiresMs = p.expires_at.getTime();
  expect(Math.abs(expiresMs - p.created_at.getTime() - deadline('payment_ttl').ms)).toBeLessThan(5_000);
  const now = await env.currentTimeMs();
  expect(expiresMs - BEFORE_DEADLINE_MS).toBeGreaterThan(now);
  await env.sleep(expiresMs - BEFORE_DEADLINE_MS - now);
  expect((await payment(p.id)).status).toBe('awaiting');
  expect(await env.client.workflow.getHandle(p.id).query<string>('waiting_for')).toBe(`a deposit until ${p.expires_at.toISOString()}`);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('expired');
  const { startMs, closeMs } = await runTimes(env, p.id);
  expect(closeMs).toBeGreaterThanOrEqual(expiresMs);
  expect(closeMs).toBeLessThanOrEqual(expiresMs + TURN_SLACK_MS);
  expect(closeMs! - startMs).toBeGreaterThanOrEqual(deadline('payment_ttl').ms - 5_000);
  expect(closeMs! - startMs).toBeLessThanOrEqual(deadline('payment_ttl').ms + TURN_SLACK_MS + 5_000);
  await chain.inject({ chain: chain.chain, asset: chain.stablecoin, to_address: p.deposit_address!, amount: 30300000n, decimals: 6 });
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  expect(await payment(p.id)).toMatchObject({ status: 'unmatched', unmatched_reason: 'deposit_after_close', watcher_state: null });
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.expired', 'payment.unmatched']);
});

test('exact: the source deposit is seen, bridged and delivered; paid, delivered, settled into the service wallet', async () => {
  const { creds, link } = await activeCryptoLink('10000');
  const wallet = await db().getRepository(Wallet).findOneByOrFail({ account_id: creds.account_id });
  const { payment: p, created } = await xchain(link.id);
  expect(created).toBe(true);
  expect(p).toMatchObject({
    payment_rail: 'crypto_xchain',
    source_chain: 'base',
    watcher_state: 'address_issued',
    amount_expected_minor: '101000000',
  });
  expect(p.amount_in_minor).toBe((101000000n + SANDBOX_BRIDGE_FEES.base).toString());
  // Same network and refund address: the open payment is returned.
  expect((await xchain(link.id)).payment.id).toBe(p.id);
  await expect(xchain(link.id, 'polygon')).rejects.toMatchObject({ status: 409, code: 'payment_in_progress' });

  await sendOnSource(p, p.amount_in_minor!);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  const done = await payment(p.id);
  expect(done).toMatchObject({ status: 'settled', watcher_state: 'delivered', watcher_reason: null, amount_received_minor: '101000000' });
  expect(await chainAdapter().balanceOf(wallet.address, 'USDC')).toBe(100000000n);
  // payment.detected (catalogued, issue 24): the source deposit seen before the bridge delivers.
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.detected', 'payment.paid', 'payment.settled']);
});

test('delivered less: matching bridge_delivered_less (underpaid), then a top-up is delivered and the payment settles', async () => {
  const { link } = await activeCryptoLink('10000');
  const { payment: p } = await xchain(link.id, 'ethereum');
  await payInBridgeAdapter().simulate(p.id, 'delayed', null);
  await sendOnSource(p, p.amount_in_minor!);
  await eventually(async () => (await payment(p.id)).watcher_state === 'confirming', 'confirming (the bridge holds the funds)');
  expect((await payment(p.id)).status).toBe('awaiting');

  await payInBridgeAdapter().simulate(p.id, 'delivered', 100000000n);
  await signalBridgeUpdate(p.id);
  const short = await eventually(async () => {
    const x = await payment(p.id);
    return x.status === 'underpaid' && x;
  }, 'underpaid');
  expect(short).toMatchObject({ watcher_state: 'matching', watcher_reason: 'bridge_delivered_less', amount_received_minor: '100000000' });
  expect((await db().getRepository(PaymentLink).findOneByOrFail({ id: link.id })).status).toBe('processing');

  // The top-up crosses without a second fee.
  await sendOnSource(p, '1000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('settled');
  expect(await payment(p.id)).toMatchObject({ watcher_state: 'delivered', watcher_reason: null, amount_received_minor: '101000000' });
  // Each source deposit seen is detected: the first, then the top-up (matching -> source_seen).
  expect(await eventTypes(p.id)).toEqual([
    'payment.created',
    'payment.awaiting',
    'payment.detected',
    'payment.underpaid',
    'payment.detected',
    'payment.paid',
    'payment.settled',
  ]);
});

test('bridge failed: the funds go back to the refund address and the payment expires', async () => {
  const { link } = await activeCryptoLink('5000');
  const refund = `0x${crypto.randomBytes(20).toString('hex')}`;
  const { payment: p } = await xchain(link.id, 'arbitrum', refund);
  await payInBridgeAdapter().simulate(p.id, 'failed', null);
  await sendOnSource(p, p.amount_in_minor!);
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('expired');
  const after = await payment(p.id);
  expect(after).toMatchObject({ status: 'expired', watcher_state: 'bridge_failed', amount_received_minor: '0' });
  expect(after.recovery_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(await refunded('arbitrum', refund)).toBe(BigInt(p.amount_in_minor!));
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.detected', 'payment.expired']);
  // The link takes a new cross-network payment.
  expect((await xchain(link.id, 'base', refund)).created).toBe(true);
});

test('expired with nothing seen (awaiting a minute before the window closes, expired at it); a late deposit is unmatched and returned (recovery_required -> recovering)', async () => {
  const { link } = await activeCryptoLink('10000');
  const refund = `0x${crypto.randomBytes(20).toString('hex')}`;
  const { payment: p } = await xchain(link.id, 'optimism', refund);
  // The deadline as workflow time after the run's start: expires_at less created_at (the object clock), the payment TTL.
  const deadlineMs = p.expires_at.getTime() - p.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('payment_ttl').ms)).toBeLessThan(5_000);
  await skipToRunOffset(env, p.id, deadlineMs - BEFORE_DEADLINE_MS);
  expect(await payment(p.id)).toMatchObject({ status: 'awaiting', watcher_state: 'address_issued' });
  expect(await env.client.workflow.getHandle(p.id).query<string>('waiting_for')).toBe(
    `a deposit on the source network until ${p.expires_at.toISOString()}`,
  );
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('expired');
  const elapsed = await runElapsedMs(env, p.id);
  expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
  expect(elapsed).toBeLessThanOrEqual(deadlineMs + TURN_SLACK_MS);
  expect(await payment(p.id)).toMatchObject({ status: 'expired', watcher_state: 'expired' });

  await sendOnSource(p, '5000000');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  const after = await payment(p.id);
  expect(after).toMatchObject({
    status: 'unmatched',
    unmatched_reason: 'deposit_after_close',
    watcher_state: 'recovering',
    watcher_reason: null,
  });
  expect(await refunded('optimism', refund)).toBe(5000000n);
  expect(await eventTypes(p.id)).toEqual(['payment.created', 'payment.awaiting', 'payment.expired', 'payment.unmatched']);
});

test('an underpaid cross-network link cancelled: unmatched partial_before_cancel, the delivered money returned', async () => {
  const { creds, link } = await activeCryptoLink('10000');
  const refund = `0x${crypto.randomBytes(20).toString('hex')}`;
  const { payment: p } = await xchain(link.id, 'polygon', refund);
  await sendOnSource(p, '50000000');
  await eventually(async () => (await payment(p.id)).watcher_state === 'matching', 'matching');
  const { paymentIds } = await transaction(async (m) => {
    const l = await m.findOneByOrFail(PaymentLink, { id: link.id });
    l.status = 'cancelled';
    await m.save(l);
    return closeLivePaymentsForLink(m, l, 'cancelled', req);
  });
  await signalLinkEndedToPayments(paymentIds, creds.account_id, 'cancelled');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  const after = await payment(p.id);
  expect(after).toMatchObject({ unmatched_reason: 'partial_before_cancel', watcher_state: 'recovering' });
  const delivered = 50000000n - SANDBOX_BRIDGE_FEES.polygon;
  expect(after.amount_received_minor).toBe(delivered.toString());
  expect(await refunded('polygon', refund)).toBe(delivered);
});

test('the bridge fails after delivering less: the top-up is returned, then the link is cancelled and the delivered money returned', async () => {
  const { creds, link } = await activeCryptoLink('10000');
  const refund = `0x${crypto.randomBytes(20).toString('hex')}`;
  const { payment: p } = await xchain(link.id, 'base', refund);
  await payInBridgeAdapter().simulate(p.id, 'delayed', null);
  await sendOnSource(p, p.amount_in_minor!);
  await eventually(async () => (await payment(p.id)).watcher_state === 'confirming', 'confirming');
  await payInBridgeAdapter().simulate(p.id, 'delivered', 100000000n);
  await signalBridgeUpdate(p.id);
  await eventually(async () => (await payment(p.id)).watcher_state === 'matching', 'matching');

  await payInBridgeAdapter().simulate(p.id, 'failed', null);
  await sendOnSource(p, '1000000');
  const failed = await eventually(async () => {
    const x = await payment(p.id);
    return x.watcher_state === 'bridge_failed' && x;
  }, 'bridge_failed');
  expect(failed).toMatchObject({ status: 'underpaid', amount_received_minor: '100000000' });
  expect(await refunded('base', refund)).toBe(1000000n);

  const { paymentIds } = await transaction(async (m) => {
    const l = await m.findOneByOrFail(PaymentLink, { id: link.id });
    l.status = 'cancelled';
    await m.save(l);
    return closeLivePaymentsForLink(m, l, 'cancelled', req);
  });
  await signalLinkEndedToPayments(paymentIds, creds.account_id, 'cancelled');
  expect(await env.client.workflow.getHandle(p.id).result()).toBe('unmatched');
  expect(await payment(p.id)).toMatchObject({
    unmatched_reason: 'partial_before_cancel',
    watcher_state: 'recovering',
    watcher_reason: null,
  });
  expect(await refunded('base', refund)).toBe(101000000n);
});
