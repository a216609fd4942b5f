/**
 * The payment link workflow under the Java time-skipping test server, with the real activities
 * on real PostgreSQL (spec 2.3 ReminderSchedule, 3, 4.1): a link expiring after days (its
 * underpaid payment closed), three reminders over two weeks (days 3, 7, 14) recorded in
 * sandbox_emails and as payment_link.reminder_sent events with next_reminder_at advancing,
 * a PATCH of offsets mid-way and disable stopping further reminders, and the workflow ending when
 * the link is cancelled or paid.
 *
 * Each test gets its own test server so that its clock starts at the wall clock (links are
 * activated with the database's clock, as in production).
 */
import { paymentLinkContract } from '../../contracts/payment-link';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { activities } from '../../activities';
import { provisionAccount, type DevCredentials } from '../../activities/accounts/commands';
import {
  activateLink,
  cancelLink,
  createLink,
  disableReminderSchedule,
  updateLink,
  updateReminderSchedule,
} from '../../activities/payment-links/commands';
import { systemScope, type Scope } from '../../activities/scope';
import { ensureLinkWorkflows } from '../../activities/payment-links/signals';
import { notifyLinkWorkflow } from '../../activities/payments/activities';
import { linkNextReminderAt } from '../../domain/reminders';
import { PaymentLink } from '../../entities';
import { loadConfig } from '../../lib/config';
import { awaitAfterCommitHooks, closeDb, db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { registerSearchAttributes } from '../../temporal/dev/bootstrap';
import { runTimes, startTimeSkipping } from '../helpers/time-skipping';
import { BEFORE_MS, deadline } from '../fixtures/deadlines';
import { setTemporalClient } from '../../temporal/client';
import { connectDb, eventually } from '../helpers/api';
import { activityCalls } from '../helpers/history';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await connectDb();
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
}, 600_000);

afterAll(async () => {
  await closeDb();
});

interface Harness {
  env: TestWorkflowEnvironment;
  worker: Worker;
}

/** Runs `fn` with a fresh time-skipping server and a worker on the configured task queue. */
async function withTemporal(fn: (h: Harness) => Promise<void>): Promise<void> {
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
    await worker.runUntil(fn({ env, worker }));
  } finally {
    await env.teardown();
  }
}

function ctxOf(creds: DevCredentials): Scope {
  return systemScope(creds.account_id, true, { id: 'req_wftest', idempotency_key: null });
}

async function destination(accountId: string): Promise<string> {
  const id = newId('adr_');
  await db().query(
    `INSERT INTO address_book_entries(id, account_id, livemode, kind, chain, address) VALUES ($1,$2,true,'crypto','base',$3)`,
    [id, accountId, `0x${'cd'.repeat(20)}`],
  );
  return id;
}

const linkOf = (id: string) => db().getRepository(PaymentLink).findOneByOrFail({ id });
const emails = async (linkId: string) =>
  (await db().query(
    `SELECT to_address, template, body FROM sandbox_emails WHERE related_object_id = $1 AND template = 'payment_link_reminder' ORDER BY created_at`,
    [linkId],
  )) as Array<{ to_address: string; body: string }>;
const eventTypes = async (linkId: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [linkId])).map(
    (r: { type: string }) => r.type,
  ) as string[];
const count = (xs: string[], t: string) => xs.filter((x) => x === t).length;

/** Waits until `n` reminders were recorded for the link (emails, schedule.sent and events agree). */
async function reminders(linkId: string, n: number): Promise<PaymentLink> {
  return eventually(
    async () => {
      const l = await linkOf(linkId);
      if (l.reminder_schedule.sent.length !== n) return null;
      if ((await emails(linkId)).length !== n) return null;
      if (count(await eventTypes(linkId), 'payment_link.reminder_sent') !== n) return null;
      return l;
    },
    `${n} reminders for ${linkId}`,
    30_000,
  );
}

/** A fiat-provider link with a payer email (reminders on), activated through the real operation. */
async function activeRemindableLink(extra: Record<string, unknown> = {}): Promise<{ creds: DevCredentials; link: PaymentLink }> {
  const creds = await provisionAccount();
  const c = ctxOf(creds);
  const { link: draft } = await createLink(c, {
    amount: usd('25000'),
    title: 'Retainer',
    payer_email: 'payer@example.com',
    settlement_destination: { address_book_id: await destination(creds.account_id) },
    ...extra,
  });
  const link = await activateLink(c, { id: draft.id, attestation_accepted: true });
  return { creds, link };
}

test('a link expires at expires_at after days; its underpaid payment is closed; the workflow ends', async () => {
  const expiry = deadline('link_expiry');
  const expiresAt = Date.now() + expiry.ms;
  await withTemporal(async ({ env }) => {
    const creds = await provisionAccount();
    const c = ctxOf(creds);
    const { link: draft } = await createLink(c, {
      amount: usd('10000'),
      title: 'Expiring',
      accepted_rail_kinds: ['crypto'],
      expires_at: new Date(expiresAt),
    });
    const link = await activateLink(c, { id: draft.id, attestation_accepted: true });
    const payId = newId('pay_');
    await db().query(
      `INSERT INTO payments(id, account_id, livemode, payment_link_id, status, payment_rail, currency, decimals, invoice_minor, fee_minor,
         amount_expected_minor, amount_received_minor, underpaid_emitted, expires_at)
       VALUES ($1,$2,true,$3,'underpaid','crypto_native','USDC',6,'100000000','1000000','101000000','40000000',true, now() + interval '30 days')`,
      [payId, creds.account_id, link.id],
    );
    // A fresh test server starts at the wall clock: the link is open a minute before its expires_at, expired at it.
    const now = await env.currentTimeMs();
    expect(expiresAt - BEFORE_MS).toBeGreaterThan(now);
    await env.sleep(expiresAt - BEFORE_MS - now);
    expect((await linkOf(link.id)).status).toBe('active');
    const result = await env.client.workflow.getHandle(link.id).result();
    expect(result).toBe('expired');
    const { closeMs } = await runTimes(env, link.id);
    expect(closeMs).toBeGreaterThanOrEqual(expiresAt);
    expect(closeMs).toBeLessThanOrEqual(expiresAt + expiry.slackMs);
    const after = await linkOf(link.id);
    expect(after.status).toBe('expired');
    expect(after.expired_at).not.toBeNull();
    expect(await eventTypes(link.id)).toEqual(['payment_link.created', 'payment_link.activated', 'payment_link.expired']);
    const pay = (await db().query('SELECT status, unmatched_reason, amount_received_minor FROM payments WHERE id = $1', [payId]))[0];
    expect(pay).toEqual({ status: 'unmatched', unmatched_reason: 'partial_before_cancel', amount_received_minor: '40000000' });
  });
}, 180_000);

test('three reminders at days 3, 7 and 14: emails, reminder_sent events, next_reminder_at advancing', async () => {
  await withTemporal(async ({ env }) => {
    const { creds, link } = await activeRemindableLink();
    const activated = link.activated_at!.getTime();
    expect(linkNextReminderAt(link)!.getTime()).toBe(activated + 3 * DAY);

    await env.sleep(3 * DAY + HOUR);
    const one = await reminders(link.id, 1);
    expect(Date.parse(one.reminder_schedule.sent[0])).toBeGreaterThanOrEqual(activated + 3 * DAY);
    expect(linkNextReminderAt(one)!.getTime()).toBe(activated + 7 * DAY);
    const mails = await emails(link.id);
    expect(mails[0].to_address).toBe('payer@example.com');
    expect(mails[0].body).toContain(`/pay/${link.payer_token}`);

    await env.sleep(4 * DAY);
    const two = await reminders(link.id, 2);
    expect(linkNextReminderAt(two)!.getTime()).toBe(activated + 14 * DAY);

    await env.sleep(7 * DAY);
    const three = await reminders(link.id, 3);
    expect(linkNextReminderAt(three)).toBeNull();
    // Each sent at its offset after activation (workflow time from a fresh server at the wall clock), within the slack.
    const sent = three.reminder_schedule.sent.map((s) => Date.parse(s) - activated);
    const { schedule, slackMs } = deadline('reminders');
    sent.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual(schedule![i]);
      expect(at).toBeLessThanOrEqual(schedule![i] + slackMs);
    });

    // Nothing more is due: a further month brings no reminder; cancelling ends the workflow.
    await env.sleep(30 * DAY);
    await reminders(link.id, 3);
    await cancelLink(ctxOf(creds), { id: link.id });
    expect(await env.client.workflow.getHandle(link.id).result()).toBe('cancelled');
  });
}, 180_000);

test('PATCH of offsets mid-way re-plans the next reminder; disable stops further reminders', async () => {
  await withTemporal(async ({ env }) => {
    const { creds, link } = await activeRemindableLink();
    const c = ctxOf(creds);
    const activated = link.activated_at!.getTime();
    await env.sleep(3 * DAY + HOUR);
    await reminders(link.id, 1);

    // New offsets: the second reminder moves from day 7 to day 5, the third to day 20.
    const patched = await updateReminderSchedule(c, { id: link.id, offsets_days: [3, 5, 20] });
    expect(linkNextReminderAt(patched)!.getTime()).toBe(activated + 5 * DAY);
    await env.sleep(2 * DAY);
    const two = await reminders(link.id, 2);
    expect(Date.parse(two.reminder_schedule.sent[1]) - activated).toBeLessThan(6 * DAY);
    expect(linkNextReminderAt(two)!.getTime()).toBe(activated + 20 * DAY);

    const off = await disableReminderSchedule(c, { id: link.id });
    expect(off.reminder_schedule).toMatchObject({ status: 'off', offsets_days: [3, 5, 20] });
    expect(linkNextReminderAt(off)).toBeNull();
    await env.sleep(20 * DAY);
    // Deterministic, not a real-time pause: a query is answered only after the workflow has
    // processed the timers that fired (a buffered query), so its history then holds any reminder
    // it would wrongly send; there is none after the disable.
    const handle = env.client.workflow.getHandle(link.id);
    await handle.query(paymentLinkContract.queries.waitingFor);
    expect(activityCalls((await handle.fetchHistory()).events, 'sendPaymentLinkReminder')).toBe(2);
    const still = await reminders(link.id, 2);
    expect(still.reminder_schedule.status).toBe('off');
    expect(count(await eventTypes(link.id), 'payment_link.reminder_schedule_updated')).toBe(2);

    // Turning reminders back on with a past offset sends it at once (the schedule's next entry).
    await updateReminderSchedule(c, { id: link.id, offsets_days: [3, 5, 20] });
    await reminders(link.id, 3);
    await cancelLink(c, { id: link.id });
    expect(await env.client.workflow.getHandle(link.id).result()).toBe('cancelled');
  });
}, 180_000);

test('the workflow ends when the link is cancelled or paid; a lost workflow is restarted by the recovery sweep', async () => {
  await withTemporal(async ({ env }) => {
    const { creds, link } = await activeRemindableLink({ expires_at: new Date(Date.now() + 30 * DAY) });
    const handle = env.client.workflow.getHandle(link.id);
    const desc = await handle.describe();
    expect(desc.status.name).toBe('RUNNING');
    await cancelLink(ctxOf(creds), { id: link.id });
    expect(await handle.result()).toBe('cancelled');
    expect((await linkOf(link.id)).status).toBe('cancelled');
    expect(await emails(link.id)).toHaveLength(0);

    // A lost workflow (terminated here) is restarted by the recovery sweep.
    const { creds: lostCreds, link: lost } = await activeRemindableLink();
    await env.client.workflow.getHandle(lost.id).terminate('simulated loss');
    expect(await ensureLinkWorkflows({ accountId: lostCreds.account_id })).toBe(1);
    expect((await env.client.workflow.getHandle(lost.id).describe()).status.name).toBe('RUNNING');
    await cancelLink(ctxOf(lostCreds), { id: lost.id });
    expect(await env.client.workflow.getHandle(lost.id).result()).toBe('cancelled');

    const { link: other } = await activeRemindableLink();
    await db().query(`UPDATE payment_links SET status = 'paid', paid_at = now() WHERE id = $1`, [other.id]);
    await notifyLinkWorkflow(other.id);
    expect(await env.client.workflow.getHandle(other.id).result()).toBe('paid');
    expect(await emails(other.id)).toHaveLength(0);
  });
}, 180_000);

test('a link with nothing to wait for (no expiry, no reminder) runs no workflow; an expiry given later starts one (issue 36)', async () => {
  await withTemporal(async ({ env }) => {
    const { creds, link } = await activeRemindableLink({ payer_email: null });
    expect(linkNextReminderAt(link)).toBeNull();
    const handle = env.client.workflow.getHandle(link.id);
    await expect(handle.describe()).rejects.toThrow(/not found/i);
    // The recovery sweep agrees: nothing to start.
    expect(await ensureLinkWorkflows({ accountId: creds.account_id })).toBe(0);
    await updateLink(ctxOf(creds), { id: link.id, expires_at: new Date(Date.now() + 30 * DAY) });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await cancelLink(ctxOf(creds), { id: link.id });
    expect(await handle.result()).toBe('cancelled');
  });
}, 180_000);
