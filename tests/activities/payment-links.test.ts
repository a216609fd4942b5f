/**
 * Activity tier, payment links (activities/payment-links/activities.ts,
 * `paymentLinkWorkflowActivities`): the link workflow's timers as `loadPaymentLinkState` reports
 * them (expiry, next reminder and its index, ended), `expirePaymentLink` at the workflow's clock
 * (closing the link's live payments in the same transaction), `sendPaymentLinkReminder` (one email
 * per reminder, also when retried) and `signalPaymentsLinkEnded`. MockActivityEnvironment on real
 * PostgreSQL with the sandbox email provider.
 */
import { expirePaymentLink, loadPaymentLinkState, sendPaymentLinkReminder, signalPaymentsLinkEnded } from '../../activities/payment-links/activities';
import { createOrReuseBankPayment } from '../../activities/payments/bank-commands';
import { db } from '../../lib/db';
import { callsFor, count, describeWithDb, eventTypes, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';
import { activeBankLinkRow, activeCryptoLink } from '../helpers/fixtures';
import { systemScope } from '../../activities/scope';
import { linkSummaryByScan, linkSummaryFromCounts, listLinks, type LinkFilters } from '../../activities/payment-links/queries';
import type { LinkStatusGroup } from '../../domain/verdicts';

const DAY = 86_400_000;

/** An active bank link activated 10 days before `at0`, with a payer email and reminders at 3, 7 and 14 days. */
async function remindableLink(at0: number) {
  const { creds, link } = await activeBankLinkRow('ach', 'USD', '25000');
  await db().query(
    `UPDATE payment_links SET payer_email = 'payer@example.com', activated_at = $2, reminder_schedule = $3 WHERE id = $1`,
    [link.id, new Date(at0 - 10 * DAY), JSON.stringify({ status: 'on', offsets_days: [3, 7, 14], sent: [] })]);
  return { creds, linkId: link.id, activatedMs: at0 - 10 * DAY };
}

describeWithDb('payment link activities', () => {
  useActivityTier();

  test('loadPaymentLinkState: the timers the workflow sleeps on (expiry, next reminder = activation + first offset, index 0); a draft or missing link has ended', async () => {
    const at0 = Date.now();
    const { linkId, activatedMs } = await remindableLink(at0);
    const expires = new Date(at0 + 30 * DAY);
    await db().query('UPDATE payment_links SET expires_at = $2 WHERE id = $1', [linkId, expires]);
    expect(await runActivity(loadPaymentLinkState, { linkId })).toEqual({
      exists: true, status: 'active', ended: false, expiresAt: expires.getTime(), nextReminderAt: activatedMs + 3 * DAY, reminderIndex: 0,
    });
    await db().query(`UPDATE payment_links SET status = 'draft' WHERE id = $1`, [linkId]);
    expect(await runActivity(loadPaymentLinkState, { linkId })).toMatchObject({ ended: true, expiresAt: null, nextReminderAt: null });
    expect(await runActivity(loadPaymentLinkState, { linkId: 'pl_missing' })).toMatchObject({ exists: false, ended: true, status: null });
  });

  test('a crypto-only link has no reminders (nextReminderAt null) whatever its schedule', async () => {
    const { link } = await activeCryptoLink('10000');
    await db().query(`UPDATE payment_links SET payer_email = 'p@example.com', reminder_schedule = $2 WHERE id = $1`,
      [link.id, JSON.stringify({ status: 'on', offsets_days: [1], sent: [] })]);
    expect((await runActivity(loadPaymentLinkState, { linkId: link.id })).nextReminderAt).toBeNull();
  });

  test('expirePaymentLink before expires_at (workflow clock) changes nothing', async () => {
    const exp = Date.now() + DAY;
    const { link } = await activeCryptoLink('10000', { expiresAt: new Date(exp) });
    expect(await runActivity(expirePaymentLink, { linkId: link.id, at: exp - 1 })).toEqual({ expired: false, accountId: link.account_id, paymentIds: [] });
    expect((await row('payment_links', link.id)).status).toBe('active');
  });

  test('expirePaymentLink at expires_at: link expired (payment_link.expired once), its live bank payment expired in the same transaction and returned for the linkEnded signal; a retry changes nothing', async () => {
    const exp = Date.now() + DAY;
    const { link } = await activeBankLinkRow('ach', 'USD', '25000', { expiresAt: new Date(exp) });
    const { payment } = await createOrReuseBankPayment(systemScope(link.account_id, link.livemode, testRequest), { linkId: link.id, rail: 'ach', payerEmail: null, payerType: null, payerState: null });
    const r = await runActivity(expirePaymentLink, { linkId: link.id, at: exp });
    expect(r).toEqual({ expired: true, accountId: link.account_id, paymentIds: [payment.id] });
    expect(await row('payment_links', link.id)).toMatchObject({ status: 'expired', expired_at: new Date(exp) });
    expect((await row('payments', payment.id)).status).toBe('expired');
    expect(await runActivity(expirePaymentLink, { linkId: link.id, at: exp + 1000 })).toEqual({ expired: false, accountId: link.account_id, paymentIds: [] });
    expect((await eventTypes(link.id)).filter((t) => t === 'payment_link.expired')).toHaveLength(1);
    expect((await runActivity(loadPaymentLinkState, { linkId: link.id })).ended).toBe(true);

    await runActivity(signalPaymentsLinkEnded, { paymentIds: r.paymentIds, accountId: link.account_id, reason: 'expired' });
    expect(callsFor(payment.id)).toContain('signalWithStart:linkEnded');
  });

  test('sendPaymentLinkReminder: the due reminder is emailed once and recorded (index 1 next); a retried or early call sends nothing', async () => {
    const at0 = Date.now();
    const { linkId, activatedMs } = await remindableLink(at0);
    const first = activatedMs + 3 * DAY;
    expect(await runActivity(sendPaymentLinkReminder, { linkId, index: 0, at: first - 1 })).toEqual({ sent: false, emailId: null });

    const sent = await runActivity(sendPaymentLinkReminder, { linkId, index: 0, at: first });
    expect(sent).toEqual({ sent: true, emailId: expect.any(String) });
    expect(await runActivity(sendPaymentLinkReminder, { linkId, index: 0, at: first })).toEqual({ sent: false, emailId: null });
    expect(await count('sandbox_emails', 'related_object_id = $1', [linkId])).toBe(1);
    expect((await row('payment_links', linkId)).reminder_schedule.sent).toEqual([new Date(first).toISOString()]);
    expect(await eventTypes(linkId)).toEqual(['payment_link.reminder_sent']);
    expect(await runActivity(loadPaymentLinkState, { linkId })).toMatchObject({ reminderIndex: 1, nextReminderAt: activatedMs + 7 * DAY });
  });

  test('expand=summary from payment_link_counts (decision 0077) equals counting the links, for every filter, through inserts, status moves, partial payments, settlement kinds, deletes and both modes', async () => {
    const { creds, link } = await activeCryptoLink('10000');
    const a = creds.account_id;
    // 24 more links of the same account: every status, both modes, three settlement kinds.
    await db().query(`
      INSERT INTO payment_links SELECT (jsonb_populate_record(l, jsonb_build_object(
        'id', l.id || '_' || g, 'reference_id', l.reference_id || '_' || g, 'short_code', left(md5(l.id || g), 12), 'payer_token', NULL,
        'livemode', g % 5 <> 0,
        'status', (ARRAY['draft','active','viewed','processing','paid','settled','cancelled','expired','refunded'])[1 + g % 9],
        'settlement_kind', (ARRAY['crypto_only','fiat_provider',NULL])[1 + g % 3]))).*
      FROM payment_links l, generate_series(1, 24) g WHERE l.id = $1`, [link.id]);
    await db().query(`UPDATE payment_links SET partial_payment = '{"received":null,"payment_id":"pay_x"}' WHERE account_id = $1 AND status IN ('processing','viewed')`, [a]);
    await db().query(`UPDATE payment_links SET status = 'processing' WHERE account_id = $1 AND status = 'viewed'`, [a]);
    await db().query(`UPDATE payment_links SET settlement_kind = 'fiat_provider' WHERE account_id = $1 AND status = 'draft'`, [a]);
    await db().query(`DELETE FROM payment_links WHERE account_id = $1 AND status = 'refunded'`, [a]);
    const exp = Date.now() + DAY;
    await db().query('UPDATE payment_links SET expires_at = $2 WHERE id = $1', [link.id, new Date(exp)]);
    expect(await runActivity(expirePaymentLink, { linkId: link.id, at: exp })).toMatchObject({ expired: true });

    const groups: Array<LinkStatusGroup | undefined> = [undefined, 'open', 'needs_attention', 'paid', 'ended'];
    for (const livemode of [true, false]) {
      const scope = systemScope(a, livemode);
      for (const status_group of groups) {
        for (const settlement_kind of [undefined, 'crypto_only', 'fiat_provider']) {
          const f: LinkFilters = { status_group, settlement_kind };
          expect([livemode, f, await linkSummaryFromCounts(scope, f)]).toEqual([livemode, f, await linkSummaryByScan(scope, f)]);
        }
      }
    }
    const all = await listLinks(systemScope(a, true), {}).summary();
    expect(all.total).toBe(Number((await db().query('SELECT count(*) FROM payment_links WHERE account_id = $1 AND livemode', [a]))[0].count));
    expect(all.by_status_group.needs_attention).toBeGreaterThan(0);
    expect(all.by_status_group.ended).toBeGreaterThan(0);
  });
});
