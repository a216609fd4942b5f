/**
 * The subscription workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 4.2, part 6 `subscription.*`; issue 16): twelve months of a monthly
 * subscription, each invoice issued exactly at its period start and paid on the chain; one invoice
 * left unpaid past its grace period (open a minute before its due date, overdue at it in workflow
 * time, the subscription past_due) and paid late (active again); a pause across a period boundary
 * (that period skipped, billing resumed at the next boundary); completion after the last cycle.
 * And a cancel that voids the open invoice. Each test has its own environment, so the test
 * server's clock starts at the wall clock with the objects.
 */
import { subscriptionContract } from '../../contracts/subscription';
import crypto from 'node:crypto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { activities } from '../../activities';
import { provisionAccount } from '../../activities/accounts/commands';
import { createEntry } from '../../activities/address-book/commands';
import { createClient } from '../../activities/catalog/commands';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { cancelSubscription, createSubscription, pauseSubscription, resumeSubscription } from '../../activities/subscriptions/commands';
import { periodOf, type BillingPlan } from '../../domain/subscriptions';
import { Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { loadConfig } from '../../lib/config';
import { awaitAfterCommitHooks, db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { setTemporalClient } from '../../temporal/client';
import { registerSearchAttributes } from '../../temporal/dev/bootstrap';
import { connectDb, eventually } from '../helpers/api';
import { BEFORE_DEADLINE_MS, startTimeSkipping } from '../helpers/time-skipping';
import { systemScope } from '../../activities/scope';
import { deadline } from '../fixtures/deadlines';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* installed by another file in this process */
  }
  await connectDb();
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
}, 600_000);

async function withTemporal(fn: (env: TestWorkflowEnvironment) => Promise<void>): Promise<void> {
  const env = await startTimeSkipping();
  try {
    await registerSearchAttributes(env.connection);
    setTemporalClient(env.client);
    awaitAfterCommitHooks(true); // starts recorded with a commit are made before the command returns (temporal/intents.ts)
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: loadConfig().temporalTaskQueue,
      workflowBundle: bundle,
      activities,
    });
    await worker.runUntil(fn(env));
  } finally {
    await env.teardown();
  }
}

/** A merchant with a client and its own wallet on the service chain. */
async function merchant() {
  const creds = await provisionAccount();
  const ctx = systemScope(creds.account_id, true, { id: 'req_subtest', idempotency_key: null });
  const cli = await createClient(ctx, { display_name: 'Subscriber', email: 'subscriber@example.com' });
  const wallet = `0x${crypto.randomBytes(20).toString('hex')}`;
  const entry = await createEntry(ctx, { kind: 'crypto', chain: chainAdapter().chain, address: wallet });
  return { ctx, clientId: cli.id, entryId: entry.id, wallet };
}

const sub = (id: string) => db().getRepository(Subscription).findOneByOrFail({ id });
const invoice = (id: string, n: number) => db().getRepository(SubscriptionInvoice).findOneBy({ subscription_id: id, number: n });
const payOf = (inv: SubscriptionInvoice) => db().getRepository(Payment).findOneByOrFail({ id: inv.payment_id });
const types = async (ids: string[]) =>
  (await db().query('SELECT type FROM events WHERE object_id = ANY($1) ORDER BY seq', [ids])).map(
    (r: { type: string }) => r.type,
  ) as string[];
const count = (list: string[], t: string) => list.filter((x) => x === t).length;

async function pay(inv: SubscriptionInvoice): Promise<void> {
  const p = await payOf(inv);
  await recordObservedTransfer({
    chain: p.deposit_chain!,
    asset: p.stablecoin!,
    to_address: p.deposit_address!,
    from_address: null,
    amount: BigInt(p.amount_expected_minor),
    decimals: 6,
    tx_hash: `0x${crypto.randomBytes(32).toString('hex')}`,
  });
  await eventually(async () => (await invoice(inv.subscription_id, inv.number))!.status === 'paid', `invoice ${inv.number} paid`, 30_000);
}

/** Moves the test server's clock to `atMs`. */
async function sleepUntil(env: TestWorkflowEnvironment, atMs: number): Promise<void> {
  const now = await env.currentTimeMs();
  if (atMs > now) await env.sleep(atMs - now);
}

const issued = (id: string, n: number) => eventually(async () => invoice(id, n), `invoice ${n} issued`, 30_000);

test('twelve months: invoices at each period start, one overdue and paid late, a pause across a boundary, completed', async () => {
  await withTemporal(async (env) => {
    const m = await merchant();
    const anchor = new Date(Date.now() + HOUR);
    const s = await createSubscription(m.ctx, {
      client_id: m.clientId,
      amount: { amount: '49000000', currency: 'USDC', decimals: 6 },
      interval: 'month',
      cycles: 12,
      grace_period_days: 7,
      billing_cycle_anchor: anchor.toISOString(),
      settlement_destination_id: m.entryId,
    });
    const plan: BillingPlan = { anchorMs: s.billing_cycle_anchor.getTime(), interval: 'month', intervalCount: 1, cycles: 12 };
    const handle = env.client.workflow.getHandle(s.id);
    const invoices: SubscriptionInvoice[] = [];
    for (let n = 0; n < 12; n++) {
      const start = periodOf(plan, n).startMs;
      if (n === 6) {
        // Paused mid-period 5 across the boundary of period 6: that period is skipped, billing resumes at period 7.
        await sleepUntil(env, start - 10 * DAY);
        await pauseSubscription(m.ctx, { id: s.id });
        await sleepUntil(env, start + DAY);
        expect(await handle.query(subscriptionContract.queries.waitingFor)).toMatch(/^resume/);
        expect(await invoice(s.id, 7)).toBeNull();
        expect(await sub(s.id)).toMatchObject({ status: 'paused', next_period: 7, skipped_periods: 1 });
        await resumeSubscription(m.ctx, { id: s.id });
        continue;
      }
      await sleepUntil(env, start + HOUR);
      const inv = await issued(s.id, n + 1);
      expect(inv.period_start.getTime()).toBe(start);
      expect(inv.period_end.getTime()).toBe(periodOf(plan, n + 1).startMs);
      // Issued at the period start (the timer fires there), not whenever the test looked.
      expect(Math.abs(inv.issued_at.getTime() - start)).toBeLessThan(5 * 60_000);
      expect(inv.due_at.getTime()).toBe(start + deadline('subscription_grace').ms);
      if (n === 3) {
        // Overdue at due_at (7 days of grace), not before: still open a minute before, overdue at it (workflow time).
        await sleepUntil(env, inv.due_at.getTime() - BEFORE_DEADLINE_MS);
        expect((await invoice(s.id, 4))!.status).toBe('open');
        expect((await sub(s.id)).status).toBe('active');
        await sleepUntil(env, inv.due_at.getTime() + HOUR);
        await eventually(async () => (await invoice(s.id, 4))!.status === 'overdue', 'invoice 4 overdue', 30_000);
        const overdueAt = (await invoice(s.id, 4))!.overdue_at!.getTime();
        expect(overdueAt).toBeGreaterThanOrEqual(inv.due_at.getTime());
        expect(overdueAt).toBeLessThanOrEqual(inv.due_at.getTime() + deadline('subscription_grace').slackMs);
        expect((await sub(s.id)).status).toBe('past_due');
        await sleepUntil(env, inv.due_at.getTime() + 5 * DAY);
        await pay(inv);
        expect((await sub(s.id)).status).toBe('active');
      } else {
        await pay(inv);
      }
      invoices.push((await invoice(s.id, n + 1))!);
    }
    expect(await handle.result()).toBe('completed');
    const done = await sub(s.id);
    expect(done).toMatchObject({ status: 'completed', next_period: 12, skipped_periods: 1 });
    expect(invoices.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]);
    // Anchored on a day of month every month has (clamping is unit-tested): the calendar keeps it.
    expect(new Set(invoices.map((i) => i.period_start.getUTCDate())).size).toBeLessThanOrEqual(4);
    const ev = await types([s.id, ...invoices.map((i) => i.id)]);
    expect(count(ev, 'subscription.created')).toBe(1);
    expect(count(ev, 'subscription.invoice_issued')).toBe(11);
    expect(count(ev, 'subscription.invoice_paid')).toBe(11);
    expect(count(ev, 'subscription.invoice_overdue')).toBe(1);
    expect(count(ev, 'subscription.paused')).toBe(1);
    expect(count(ev, 'subscription.resumed')).toBe(1);
    // Every invoice was settled to the merchant's wallet.
    await eventually(async () => (await Promise.all(invoices.map(payOf))).every((p) => p.status === 'settled'), 'settled', 60_000);
    expect(await chainAdapter().balanceOf(m.wallet, chainAdapter().stablecoin)).toBe(11n * 49_000_000n);
  });
}, 600_000);

test('cancel voids the open invoice, closes its pay-in and ends the workflow', async () => {
  await withTemporal(async (env) => {
    const m = await merchant();
    const s = await createSubscription(m.ctx, {
      client_id: m.clientId,
      amount: { amount: '10000000', currency: 'USDC', decimals: 6 },
      interval: 'week',
      grace_period_days: 2,
      settlement_destination_id: m.entryId,
    });
    const inv = await issued(s.id, 1);
    // Two days of grace: open a minute before due_at, overdue after it.
    await sleepUntil(env, inv.due_at.getTime() - BEFORE_DEADLINE_MS);
    expect((await invoice(s.id, 1))!.status).toBe('open');
    await sleepUntil(env, inv.due_at.getTime() + HOUR);
    await eventually(async () => (await invoice(s.id, 1))!.status === 'overdue', 'overdue', 30_000);
    await cancelSubscription(m.ctx, { id: s.id });
    expect(await env.client.workflow.getHandle(s.id).result()).toBe('cancelled');
    expect(await invoice(s.id, 1)).toMatchObject({ status: 'void' });
    await eventually(async () => (await payOf(inv)).status === 'abandoned', 'abandoned', 30_000);
    expect(await invoice(s.id, 2)).toBeNull();
  });
}, 300_000);

test("waiting_for names why the workflow waits: the unpaid invoice's daily check, its due date, the next period (issue 24)", async () => {
  await withTemporal(async (env) => {
    const m = await merchant();
    const anchor = new Date(Date.now() + HOUR);
    const s = await createSubscription(m.ctx, {
      client_id: m.clientId,
      amount: { amount: '10000000', currency: 'USDC', decimals: 6 },
      interval: 'month',
      cycles: 3,
      grace_period_days: 7,
      billing_cycle_anchor: anchor.toISOString(),
      settlement_destination_id: m.entryId,
    });
    const plan: BillingPlan = { anchorMs: s.billing_cycle_anchor.getTime(), interval: 'month', intervalCount: 1, cycles: 3 };
    const handle = env.client.workflow.getHandle(s.id);
    const label = (re: RegExp) =>
      eventually(
        async () => {
          const w = await handle.query(subscriptionContract.queries.waitingFor);
          return re.test(w) ? w : null;
        },
        `waiting_for ${re}`,
        30_000,
      );
    await sleepUntil(env, periodOf(plan, 0).startMs + HOUR);
    const inv = await issued(s.id, 1);
    // The first invoice is unpaid: the next wake-up is its daily check, not "the next period".
    expect(await label(/^payment of the unpaid invoice \(checked daily; next check /)).not.toMatch(/next period/);
    // A day before it falls due, the due date is what comes first.
    await sleepUntil(env, inv.due_at.getTime() - 12 * HOUR);
    expect(await label(/^payment of the open invoice, due /)).toContain(inv.due_at.toISOString());
    await pay(inv);
    // Paid: from its next look on (the daily check or the due date, whichever comes first), the next period.
    await sleepUntil(env, inv.due_at.getTime() + HOUR);
    expect(await label(/^the next period at /)).toContain(new Date(periodOf(plan, 1).startMs).toISOString());
    await cancelSubscription(m.ctx, { id: s.id });
  });
}, 300_000);
