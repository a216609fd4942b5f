/**
 * The payout workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.6, 3, 4.3, 8): every terminal state (settled within the MXN tolerance,
 * paid_with_shortfall, failed with the USDC returned, returned with missing_return_policy until a
 * refund address arrives, expired after the funding window, cancelled after the wallet funding
 * hold), the funding surplus returned (or held with missing_return_policy until a refund address
 * arrives), deposits routed from the chain watcher, the `waiting_for` query, a step parked for an
 * operator on a non-retryable failure (search attribute Parked true, then false) and resumed by the `retry` signal, and a replay of every
 * completed history against the current workflow code (determinism).
 */
import { payoutContract } from '../../contracts/payout';
import { PARKED_KEY } from '../../contracts/search-attributes';
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { provisionAccount } from '../../activities/accounts/commands';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { cancelPayout, createPayout, requestFunding, setBeneficiary } from '../../activities/payouts/commands';
import { systemScope } from '../../activities/scope';
import { notifyPayoutProviderUpdate, signalPayout, signalPayoutCancelled } from '../../activities/payouts/signals';
import { DomainError } from '../../domain/errors';
import { Payout, PayoutAttempt } from '../../entities';
import { db } from '../../lib/db';
import { fiatRails } from '../../providers/fiat-rails';
import { eventually } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { runTimes, skipToTime } from '../helpers/time-skipping';
import { BEFORE_MS, deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };
const REFUND = '0x52908400098527886E0F7030069857D2E4169EE7';

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const payoutRow = (id: string) => db().getRepository(Payout).findOneByOrFail({ id });
const attemptOf = async (id: string) =>
  db()
    .getRepository(PayoutAttempt)
    .findOneByOrFail({ id: (await payoutRow(id)).current_attempt_id! });
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);
/** Workflow ids that completed in this file: their histories are replayed at the end (determinism). */
const completed = new Set<string>();
const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};

/** A funded-ready payout on `corridor` with its beneficiary; funding requested and the transfer created. */
async function funded(
  opts: { corridor?: string; amount?: string; currency?: string; refund?: string; source?: 'external_wallet' | 'service_wallet' } = {},
) {
  const creds = await provisionAccount();
  const corridor = opts.corridor ?? 'usd_ach';
  const p = await createPayout(systemScope(creds.account_id, true, req), {
    invoice_amount: { amount: opts.amount ?? '100000', currency: opts.currency ?? 'USD', decimals: 2 },
    corridor_id: corridor,
    source_chain: 'base',
    recipient_email: 'ap@supplier.example',
    notify_recipient: true,
  });
  const ben =
    corridor === 'mxn_spei'
      ? { account_owner_type: 'business' as const, account_holder_name: 'Proveedor SA', clabe: '002010077777777771' }
      : {
          account_owner_type: 'business' as const,
          account_holder_name: 'Supplier LLC',
          account_number: '123456789',
          routing_number: '021000021',
        };
  await setBeneficiary(systemScope(creds.account_id, true, req), { ...ben, id: p.id });
  const r = await requestFunding(systemScope(creds.account_id, true, req), {
    id: p.id,
    funding_source: opts.source ?? 'external_wallet',
    ...(opts.refund ? { refund_address: opts.refund } : {}),
  });
  await signalPayout(p.id, creds.account_id, payoutContract.signals.update);
  await eventually(async () => (await attemptOf(p.id)).provider_transfer_id, 'provider transfer');
  return { creds, payoutId: p.id, attemptId: r.attemptId };
}

/** The workflow time (ms) `ensureProviderTransfer` was given when it opened the funding window of `payoutId` (its second argument, from the history). */
async function transferOpenedAtMs(payoutId: string): Promise<number> {
  const events = (await env.client.workflow.getHandle(payoutId).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'ensureProviderTransfer');
  const arg = scheduled?.activityTaskScheduledEventAttributes?.input?.payloads?.[1]?.data;
  if (!arg) throw new Error(`payout ${payoutId}: no ensureProviderTransfer with a time in its history`);
  return Number(JSON.parse(Buffer.from(arg).toString('utf8')));
}

async function deposit(payoutId: string, amount: string) {
  const a = await attemptOf(payoutId);
  await recordObservedTransfer({
    chain: a.source_chain,
    asset: 'USDC',
    to_address: a.deposit_address!,
    from_address: null,
    amount: BigInt(amount),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });
}

async function rail(payoutId: string, change: Parameters<ReturnType<typeof fiatRails>['simulate']>[1]) {
  await eventually(async () => (await attemptOf(payoutId)).rail_payment_id, 'rail payment');
  await fiatRails().simulate(payoutId, change);
  await notifyPayoutProviderUpdate(payoutId);
}

test('MXN: funded, paid, recipient got the invoice plus 75 minor units (within 0.05% + 25) -> settled', async () => {
  const { payoutId } = await funded({ corridor: 'mxn_spei', amount: '100000', currency: 'MXN' });
  await eventually(
    async () => /deposit of .* on base/.test(await env.client.workflow.getHandle(payoutId).query<string>('waiting_for')),
    'waiting_for a deposit',
  );
  const a = await attemptOf(payoutId);
  await deposit(payoutId, a.gross_minor);
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { recipientReceived: 100075n });
  await notifyPayoutProviderUpdate(payoutId);
  expect(await result(payoutId)).toBe('settled');
  const p = await payoutRow(payoutId);
  expect(p.settled_minor).toBe('100075');
  expect(await types(payoutId)).toEqual([
    'payout.created',
    'payout.beneficiary_added',
    'payout.configuration_committed',
    'payout.funded',
    'payout.awaiting_funds',
    'payout.funds_received',
    'payout.processing',
    'payout.paid',
    'payout.settled',
  ]);
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_emails WHERE related_object_id = $1', [payoutId]))[0].n).toBe(1);
});

test('recipient short of the invoice -> paid_with_shortfall (terminal, no success email)', async () => {
  const { payoutId } = await funded();
  await deposit(payoutId, (await attemptOf(payoutId)).gross_minor);
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { recipientReceived: 99000n });
  await notifyPayoutProviderUpdate(payoutId);
  expect(await result(payoutId)).toBe('paid_with_shortfall');
  expect((await payoutRow(payoutId)).shortfall_minor).toBe('1000');
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_emails WHERE related_object_id = $1', [payoutId]))[0].n).toBe(0);
});

test('the rail fails -> failed; the USDC goes back to the refund address', async () => {
  const { payoutId } = await funded({ refund: REFUND });
  const gross = (await attemptOf(payoutId)).gross_minor;
  await deposit(payoutId, gross);
  await rail(payoutId, { state: 'failed', reason: 'account_closed' });
  expect(await result(payoutId)).toBe('failed');
  const p = await payoutRow(payoutId);
  expect(p.failure_reason).toBe('account_closed');
  expect(p.held_minor).toBeNull();
  const back = await db().query(
    `SELECT COALESCE(SUM(amount_minor),0)::text AS s FROM sandbox_chain_transfers WHERE chain = 'base' AND to_address = $1`,
    [REFUND],
  );
  expect(BigInt(back[0].s) >= BigInt(gross)).toBe(true);
  expect(await types(payoutId)).toContain('payout.failed');
});

test('returned after paid with no refund address: held (missing_return_policy) until one is given, then returned', async () => {
  const { creds, payoutId } = await funded();
  await deposit(payoutId, (await attemptOf(payoutId)).gross_minor);
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { state: 'returned', reason: 'beneficiary_name_mismatch' });
  await notifyPayoutProviderUpdate(payoutId);
  await eventually(async () => (await payoutRow(payoutId)).status === 'returned', 'returned');
  expect((await payoutRow(payoutId)).held_minor).not.toBeNull();
  await eventually(
    async () => /refund address/.test(await env.client.workflow.getHandle(payoutId).query<string>('waiting_for')),
    'waiting for a refund address',
  );
  const { payoutView } = await import('../../views/payout');
  expect(payoutView(await payoutRow(payoutId))).toMatchObject({
    status: 'returned',
    failure_reason: 'missing_return_policy',
    return_reason: 'beneficiary_name_mismatch',
  });
  const r = await requestFunding(systemScope(creds.account_id, true, req), { id: payoutId, refund_address: REFUND.toLowerCase() });
  expect(r.signal).toBe(true);
  await signalPayout(payoutId, creds.account_id, payoutContract.signals.update);
  expect(await result(payoutId)).toBe('returned');
  const p = await payoutRow(payoutId);
  expect(p.held_minor).toBeNull();
  expect(payoutView(p).failure_reason).toBeNull();
});

test('nothing arrives within the funding window (24 h): awaiting_funds a minute before it closes, expired at it (provider transfer cancelled)', async () => {
  const { payoutId } = await funded();
  const window = deadline('payout_funding_window');
  // The window is opened on workflow time (the workflow compares raw workflow time): expires_at is exactly 24 h after it.
  const expiresMs = (await attemptOf(payoutId)).expires_at.getTime();
  expect(expiresMs - (await transferOpenedAtMs(payoutId))).toBe(window.ms);
  await skipToTime(env, expiresMs - BEFORE_MS);
  expect((await payoutRow(payoutId)).status).toBe('awaiting_funds');
  expect(await result(payoutId)).toBe('expired');
  const { closeMs } = await runTimes(env, payoutId);
  expect(closeMs).toBeGreaterThanOrEqual(expiresMs);
  expect(closeMs).toBeLessThanOrEqual(expiresMs + window.slackMs);
  const a = await attemptOf(payoutId);
  expect(a.status).toBe('expired');
  const t = await db().query('SELECT state FROM sandbox_bridge_transfers WHERE id = $1', [a.provider_transfer_id]);
  expect(t[0].state).toBe('cancelled');
});

test('a deposit after expiry is held and returned to the refund address', async () => {
  const { payoutId } = await funded({ refund: REFUND });
  expect(await result(payoutId)).toBe('expired');
  await deposit(payoutId, '1000000');
  expect(await result(payoutId)).toBe('expired');
  const held = await db().query(`SELECT effect FROM payout_deposits WHERE payout_id = $1`, [payoutId]);
  expect(held.map((r: { effect: string }) => r.effect)).toEqual(['refunded']);
});

test('service wallet: cancel is held while the send is signable and 30 minutes after; then cancelled', async () => {
  const creds = await provisionAccount();
  const w = (await db().query('SELECT address, chain FROM wallets WHERE account_id = $1', [creds.account_id]))[0];
  await db().query(
    `INSERT INTO sandbox_chain_transfers(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash) VALUES ($1,'USDC',NULL,$2,5000000000,6,$3)`,
    [w.chain, w.address, `0x${crypto.randomBytes(32).toString('hex')}`],
  );
  const p = await createPayout(systemScope(creds.account_id, true, req), {
    invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 },
    corridor_id: 'usd_ach',
  });
  await setBeneficiary(systemScope(creds.account_id, true, req), {
    id: p.id,
    account_owner_type: 'business',
    account_holder_name: 'S',
    account_number: '123456789',
    routing_number: '021000021',
  });
  await requestFunding(systemScope(creds.account_id, true, req), { id: p.id, funding_source: 'service_wallet' });
  await signalPayout(p.id, creds.account_id, payoutContract.signals.update);
  const send = await eventually(
    async () => (await db().query('SELECT * FROM wallet_sends WHERE payout_id = $1', [p.id]))[0],
    'wallet send',
  );
  const until = new Date(send.signable_until).getTime();
  expect(until - (await transferOpenedAtMs(p.id))).toBe(deadline('payout_wallet_send_signable').ms);
  const hold = deadline('wallet_funding_cancel_hold').ms;
  let err: unknown = null;
  try {
    await cancelPayout(systemScope(creds.account_id, true, req), { id: p.id, nowMs: until + hold - BEFORE_MS });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({ code: 'wallet_funding_pending', details: { retry_after: 60 } });
  const out = await cancelPayout(systemScope(creds.account_id, true, req), { id: p.id, nowMs: until + hold });
  expect(out).toMatchObject({ changed: true, payout: { status: 'cancelled' } });
  await signalPayoutCancelled(p.id);
  expect(await result(p.id)).toBe('cancelled');
  expect((await db().query('SELECT status FROM wallet_sends WHERE id = $1', [send.id]))[0].status).toBe('closed');
  const again = await cancelPayout(systemScope(creds.account_id, true, req), { id: p.id });
  expect(again.changed).toBe(false);
});

const returnedTo = async (address: string) =>
  (
    await db().query(
      `SELECT amount_minor::text AS a FROM sandbox_chain_transfers WHERE chain = 'base' AND lower(to_address) = lower($1) ORDER BY seq`,
      [address],
    )
  ).map((r: { a: string }) => r.a);

test('overpaid funding with a refund address: the invoice is paid once, the surplus goes back, then settled', async () => {
  const refund = '0x1111111111111111111111111111111111111111';
  const { payoutId } = await funded({ refund });
  const gross = BigInt((await attemptOf(payoutId)).gross_minor);
  await deposit(payoutId, (gross + 12_345_678n).toString());
  await eventually(async () => (await attemptOf(payoutId)).returned_minor === '12345678', 'surplus returned');
  expect(await returnedTo(refund)).toEqual(['12345678']);
  const a = await attemptOf(payoutId);
  expect(a).toMatchObject({ surplus_minor: '12345678', received_minor: (gross + 12_345_678n).toString() });
  const rp = await fiatRails().get(a.rail_payment_id!);
  expect(rp.amount).toBe(100000n);
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { recipientReceived: 100000n });
  await notifyPayoutProviderUpdate(payoutId);
  expect(await result(payoutId)).toBe('settled');
  expect((await payoutRow(payoutId)).held_minor).toBeNull();
  expect(await returnedTo(refund)).toEqual(['12345678']);
});

test('overpaid funding without a refund address: surplus held (missing_return_policy) through settlement until one is given', async () => {
  const { creds, payoutId } = await funded();
  const gross = BigInt((await attemptOf(payoutId)).gross_minor);
  await deposit(payoutId, (gross + 3_000_000n).toString());
  await eventually(async () => (await payoutRow(payoutId)).status === 'processing', 'processing');
  const { payoutView } = await import('../../views/payout');
  expect(payoutView(await payoutRow(payoutId))).toMatchObject({
    status: 'processing',
    failure_reason: 'missing_return_policy',
    held_amount: { amount: '3000000', currency: 'USDC', decimals: 6 },
  });
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { recipientReceived: 100000n });
  await notifyPayoutProviderUpdate(payoutId);
  await eventually(async () => (await payoutRow(payoutId)).status === 'settled', 'settled');
  await eventually(
    async () => /refund address/.test(await env.client.workflow.getHandle(payoutId).query<string>('waiting_for')),
    'waiting for a refund address',
  );
  expect(payoutView(await payoutRow(payoutId)).failure_reason).toBe('missing_return_policy');
  const r = await requestFunding(systemScope(creds.account_id, true, req), { id: payoutId, refund_address: REFUND });
  expect(r.signal).toBe(true);
  await signalPayout(payoutId, creds.account_id, payoutContract.signals.update);
  expect(await result(payoutId)).toBe('settled');
  const p = await payoutRow(payoutId);
  expect(p.held_minor).toBeNull();
  expect(payoutView(p).failure_reason).toBeNull();
  expect((await attemptOf(payoutId)).returned_minor).toBe('3000000');
});

test('surplus returned, then the rail fails: only the rest goes back (never the surplus twice)', async () => {
  const refund = '0x2222222222222222222222222222222222222222';
  const { payoutId } = await funded({ refund });
  const gross = BigInt((await attemptOf(payoutId)).gross_minor);
  await deposit(payoutId, (gross + 1_000_000n).toString());
  await eventually(async () => (await attemptOf(payoutId)).returned_minor === '1000000', 'surplus returned');
  await rail(payoutId, { state: 'failed', reason: 'account_closed' });
  expect(await result(payoutId)).toBe('failed');
  expect(await returnedTo(refund)).toEqual(['1000000', gross.toString()]);
  expect((await attemptOf(payoutId)).returned_minor).toBe((gross + 1_000_000n).toString());
});

test('a non-retryable failure parks the payout for an operator (waiting_for says why); the retry signal resumes it', async () => {
  const { creds, payoutId } = await funded();
  const cipher = (await payoutRow(payoutId)).beneficiary_ciphertext;
  await db().query('UPDATE payouts SET beneficiary_ciphertext = NULL WHERE id = $1', [payoutId]);
  await deposit(payoutId, (await attemptOf(payoutId)).gross_minor);
  const handle = env.client.workflow.getHandle(payoutId);
  await eventually(
    async () => /^an operator: BeneficiaryMissing: /.test(await handle.query<string>('waiting_for')),
    'parked for an operator',
  );
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect((await handle.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(true);
  expect((await payoutRow(payoutId)).status).toBe('funds_received');
  await db().query('UPDATE payouts SET beneficiary_ciphertext = $2 WHERE id = $1', [payoutId, cipher]);
  await signalPayout(payoutId, creds.account_id, payoutContract.signals.retry);
  await eventually(async () => (await payoutRow(payoutId)).status === 'processing', 'processing after retry');
  expect((await handle.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(false);
  await rail(payoutId, { state: 'paid' });
  await eventually(async () => (await payoutRow(payoutId)).status === 'paid', 'paid');
  await fiatRails().simulate(payoutId, { recipientReceived: 100000n });
  await notifyPayoutProviderUpdate(payoutId);
  expect(await result(payoutId)).toBe('settled');
  expect((await db().query('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [payoutId]))[0].n).toBe(1);
});

test('replay: every completed payout history replays against the current workflow code without nondeterminism', async () => {
  expect(completed.size).toBeGreaterThanOrEqual(8);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  const results = Worker.runReplayHistories({ workflowsPath: require.resolve('../../workflows'), replayName: 'payout-replay' }, histories);
  let n = 0;
  for await (const r of results) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(completed.size);
}, 120_000);

test('source_chain is locked from the funding confirmation on, even while the provider transfer is still being created', async () => {
  const creds = await provisionAccount();
  const p = await createPayout(systemScope(creds.account_id, true, req), {
    invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 },
    corridor_id: 'usd_ach',
  });
  await setBeneficiary(systemScope(creds.account_id, true, req), {
    id: p.id,
    account_owner_type: 'business',
    account_holder_name: 'S',
    account_number: '123456789',
    routing_number: '021000021',
  });
  const first = await requestFunding(systemScope(creds.account_id, true, req), { id: p.id, source_chain: 'polygon' });
  expect((await attemptOf(p.id)).provider_transfer_id).toBeNull();
  let err: unknown = null;
  try {
    await requestFunding(systemScope(creds.account_id, true, req), { id: p.id, source_chain: 'base' });
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({
    type: 'conflict',
    code: 'payout_source_chain_locked',
    param: 'source_chain',
    details: { source_chain: 'polygon' },
  });
  const same = await requestFunding(systemScope(creds.account_id, true, req), { id: p.id, source_chain: 'polygon' });
  expect(same).toMatchObject({ attemptId: first.attemptId, signal: true });
  await cancelPayout(systemScope(creds.account_id, true, req), { id: p.id });
});
