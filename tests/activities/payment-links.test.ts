/**
 * Activity tier, payment links (activities/payment-links/activities.ts,
 * `paymentLinkWorkflowActivities`): the link workflow's timers as `loadPaymentLinkState` reports
 * them (expiry, next reminder and its index, ended), `expirePaymentLink` at the workflow's clock
 * (closing the link's live payments in the same transaction), `sendPaymentLinkReminder` (one email
 * per reminder, also when retried) and `signalPaymentsLinkEnded`. MockActivityEnvironment on real
 * PostgreSQL with the sandbox email provider.
 */
import {
  expirePaymentLink,
  loadPaymentLinkState,
  sendPaymentLinkReminder,
  signalPaymentsLinkEnded,
} from '../../activities/payment-links/activities';
import { createOrReuseBankPayment } from '../../activities/payments/bank-commands';
import { Client } from 'pg';
import { db } from '../../lib/db';
import { callsFor, count, describeWithDb, eventTypes, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';
import { activeBankLinkRow, activeCryptoLink } from '../helpers/fixtures';
import { systemScope } from '../../activities/scope';
import { linkSummaryByScan, linkSummaryFromCounts, listLinks, type LinkFilters } from '../../activities/payment-links/queries';
import type { LinkStatusGroup } from '../../domain/verdicts';

const DAY = 86_400_000;

/** The account's `payment_link_counts` summed over stripes (keys whose sum is 0 left out), and the same keys counted from its links. */
async function linkCountsAndRows(accountId: string): Promise<{ counts: unknown[]; rows: unknown[] }> {
  const counts = await db().query(
    `SELECT livemode, status, has_partial, settlement_kind, sum(n)::int AS n FROM payment_link_counts
    WHERE account_id = $1 GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4`,
    [accountId],
  );
  const rows = await db().query(
    `SELECT livemode, status, partial_payment IS NOT NULL AS has_partial, coalesce(settlement_kind, '') AS settlement_kind, count(*)::int AS n
    FROM payment_links WHERE account_id = $1 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [accountId],
  );
  return { counts, rows };
}

/**
 * `n` copies of link `id` in one INSERT ... SELECT (ids `<id>_<tag><g>`, in g order), status `status` (a SQL
 * expression of g); mode, settlement kind and partial payment varied by g, or `uniform`: live, crypto_only, none.
 */
async function copyLinks(id: string, tag: string, n: number, status: string, uniform = false): Promise<void> {
  const keys = uniform
    ? `'livemode', true, 'settlement_kind', 'crypto_only', 'partial_payment', NULL`
    : `'livemode', g % 7 <> 0, 'settlement_kind', (ARRAY['crypto_only','fiat_provider',NULL])[1 + (g / 9) % 3],
      'partial_payment', CASE WHEN g % 11 = 0 THEN '{"received":null,"payment_id":"pay_x"}'::jsonb END`;
  await db().query(
    `
    INSERT INTO payment_links SELECT (jsonb_populate_record(l, jsonb_build_object(
      'id', l.id || '_${tag}' || g, 'reference_id', l.reference_id || '_${tag}' || g, 'short_code', left(md5(l.id || '${tag}' || g), 12), 'payer_token', NULL,
      'status', ${status}, ${keys}))).*
    FROM payment_links l, generate_series(1, ${n}) g WHERE l.id = $1 ORDER BY g`,
    [id],
  );
}

/** An active bank link activated 10 days before `at0`, with a payer email and reminders at 3, 7 and 14 days. */
async function remindableLink(at0: number) {
  const { creds, link } = await activeBankLinkRow('ach', 'USD', '25000');
  await db().query(`UPDATE payment_links SET payer_email = 'payer@example.com', activated_at = $2, reminder_schedule = $3 WHERE id = $1`, [
    link.id,
    new Date(at0 - 10 * DAY),
    JSON.stringify({ status: 'on', offsets_days: [3, 7, 14], sent: [] }),
  ]);
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
      exists: true,
      status: 'active',
      ended: false,
      expiresAt: expires.getTime(),
      nextReminderAt: activatedMs + 3 * DAY,
      reminderIndex: 0,
    });
    await db().query(`UPDATE payment_links SET status = 'draft' WHERE id = $1`, [linkId]);
    expect(await runActivity(loadPaymentLinkState, { linkId })).toMatchObject({ ended: true, expiresAt: null, nextReminderAt: null });
    expect(await runActivity(loadPaymentLinkState, { linkId: 'pl_missing' })).toMatchObject({ exists: false, ended: true, status: null });
  });

  test('a crypto-only link has no reminders (nextReminderAt null) whatever its schedule', async () => {
    const { link } = await activeCryptoLink('10000');
    await db().query(`UPDATE payment_links SET payer_email = 'p@example.com', reminder_schedule = $2 WHERE id = $1`, [
      link.id,
      JSON.stringify({ status: 'on', offsets_days: [1], sent: [] }),
    ]);
    expect((await runActivity(loadPaymentLinkState, { linkId: link.id })).nextReminderAt).toBeNull();
  });

  test('expirePaymentLink before expires_at (workflow clock) changes nothing', async () => {
    const exp = Date.now() + DAY;
    const { link } = await activeCryptoLink('10000', { expiresAt: new Date(exp) });
    expect(await runActivity(expirePaymentLink, { linkId: link.id, at: exp - 1 })).toEqual({
      expired: false,
      accountId: link.account_id,
      paymentIds: [],
    });
    expect((await row('payment_links', link.id)).status).toBe('active');
  });

  test('expirePaymentLink at expires_at: link expired (payment_link.expired once), its live bank payment expired in the same transaction and returned for the linkEnded signal; a retry changes nothing', async () => {
    const exp = Date.now() + DAY;
    const { link } = await activeBankLinkRow('ach', 'USD', '25000', { expiresAt: new Date(exp) });
    const { payment } = await createOrReuseBankPayment(systemScope(link.account_id, link.livemode, testRequest), {
      linkId: link.id,
      rail: 'ach',
      payer_email: null,
      payer_type: null,
      payer_state: null,
    });
    const r = await runActivity(expirePaymentLink, { linkId: link.id, at: exp });
    expect(r).toEqual({ expired: true, accountId: link.account_id, paymentIds: [payment.id] });
    expect(await row('payment_links', link.id)).toMatchObject({ status: 'expired', expired_at: new Date(exp) });
    expect((await row('payments', payment.id)).status).toBe('expired');
    expect(await runActivity(expirePaymentLink, { linkId: link.id, at: exp + 1000 })).toEqual({
      expired: false,
      accountId: link.account_id,
      paymentIds: [],
    });
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
    await db().query(
      `
      INSERT INTO payment_links SELECT (jsonb_populate_record(l, jsonb_build_object(
        'id', l.id || '_' || g, 'reference_id', l.reference_id || '_' || g, 'short_code', left(md5(l.id || g), 12), 'payer_token', NULL,
        'livemode', g % 5 <> 0,
        'status', (ARRAY['draft','active','viewed','processing','paid','settled','cancelled','expired','refunded'])[1 + g % 9],
        'settlement_kind', (ARRAY['crypto_only','fiat_provider',NULL])[1 + g % 3]))).*
      FROM payment_links l, generate_series(1, 24) g WHERE l.id = $1`,
      [link.id],
    );
    await db().query(
      `UPDATE payment_links SET partial_payment = '{"received":null,"payment_id":"pay_x"}' WHERE account_id = $1 AND status IN ('processing','viewed')`,
      [a],
    );
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
    expect(all.total).toBe(
      Number((await db().query('SELECT count(*) FROM payment_links WHERE account_id = $1 AND livemode', [a]))[0].count),
    );
    expect(all.by_status_group.needs_attention).toBeGreaterThan(0);
    expect(all.by_status_group.ended).toBeGreaterThan(0);
  });

  test('bulk statements keep payment_link_counts exact (issue 36 item 5: one upsert per key per statement): a 3,000-row INSERT ... SELECT, multi-row UPDATEs of statuses, kinds and partial payments (and of no counted column), a multi-row DELETE', async () => {
    const { link } = await activeCryptoLink('10000');
    const a = link.account_id;
    await copyLinks(
      link.id,
      'b',
      3000,
      `(ARRAY['draft','active','viewed','processing','paid','settled','cancelled','expired','refunded'])[1 + g % 9]`,
    );
    let r = await linkCountsAndRows(a);
    expect(r.rows.length).toBeGreaterThan(50);
    expect(r.counts).toEqual(r.rows);

    // Moves in both directions between the same keys, in one statement each.
    await db().query(
      `UPDATE payment_links SET status = CASE status WHEN 'draft' THEN 'active' WHEN 'active' THEN 'draft' WHEN 'paid' THEN 'settled' WHEN 'settled' THEN 'paid' ELSE status END
      WHERE account_id = $1 AND id LIKE '%0'`,
      [a],
    );
    await db().query(
      `UPDATE payment_links SET status = 'processing', partial_payment = CASE WHEN partial_payment IS NULL THEN '{"received":null,"payment_id":"pay_y"}'::jsonb END,
      settlement_kind = CASE settlement_kind WHEN 'crypto_only' THEN 'fiat_provider' WHEN 'fiat_provider' THEN NULL ELSE 'crypto_only' END
      WHERE account_id = $1 AND status IN ('viewed', 'expired')`,
      [a],
    );
    await db().query(`UPDATE payment_links SET livemode = NOT livemode WHERE account_id = $1 AND id LIKE '%7'`, [a]);
    const before = await db().query('SELECT * FROM payment_link_counts WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5, 6', [a]);
    await db().query(`UPDATE payment_links SET memo = 'bulk' WHERE account_id = $1`, [a]);
    expect(await db().query('SELECT * FROM payment_link_counts WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5, 6', [a])).toEqual(before);
    r = await linkCountsAndRows(a);
    expect(r.counts).toEqual(r.rows);

    await db().query(`DELETE FROM payment_links WHERE account_id = $1 AND (status IN ('settled', 'cancelled') OR id LIKE '%3')`, [a]);
    r = await linkCountsAndRows(a);
    expect(r.counts).toEqual(r.rows);
    // One row (the triggers' one-row forms) and none.
    await db().query(
      `DELETE FROM payment_links WHERE id = (SELECT max(id) FROM payment_links WHERE account_id = $1 AND status = 'draft')`,
      [a],
    );
    await db().query(
      `UPDATE payment_links SET status = 'cancelled' WHERE id = (SELECT max(id) FROM payment_links WHERE account_id = $1 AND status = 'paid')`,
      [a],
    );
    await copyLinks(link.id, 'c', 1, `'viewed'`);
    await db().query(`UPDATE payment_links SET status = 'active' WHERE account_id = $1 AND false`, [a]);
    await db().query(`DELETE FROM payment_links WHERE account_id = $1 AND false`, [a]);
    r = await linkCountsAndRows(a);
    expect(r.counts).toEqual(r.rows);
    expect(await linkSummaryFromCounts(systemScope(a, true), {})).toEqual(await linkSummaryByScan(systemScope(a, true), {}));
    expect(await linkSummaryFromCounts(systemScope(a, false), {})).toEqual(await linkSummaryByScan(systemScope(a, false), {}));
  });

  test('two statements on one counter stripe moving links in opposite directions both commit (counter rows taken in key order, no deadlock); the counts stay exact', async () => {
    const { link } = await activeCryptoLink('10000');
    const a = link.account_id;
    const EVEN = ['0', '2', '4', '6', '8'];
    const ODD = ['1', '3', '5', '7', '9'];
    // Laid out draft, paid, settled, active: the first round's first statement visits draft then paid rows, the second
    // settled then active (per row, the row triggers took (active, draft) then (paid, settled), and the reverse).
    await copyLinks(link.id, 'o', 800, `(ARRAY['draft','paid','settled','active'])[1 + (g - 1) / 200]`, true);
    // Two connections whose backends share a stripe (pg_backend_pid() % 16): two of any 17 do.
    const clients: Array<{ c: Client; stripe: number }> = [];
    let pair: [Client, Client] | null = null;
    try {
      while (!pair) {
        const c = new Client({ connectionString: process.env.DATABASE_URL });
        await c.connect();
        const [{ stripe }] = (await c.query('SELECT pg_backend_pid() % 16 AS stripe')).rows;
        const twin = clients.find((x) => x.stripe === stripe);
        clients.push({ c, stripe });
        if (twin) pair = [twin.c, c];
      }
      const [one, other] = pair;
      for (let round = 0; round < 4; round++) {
        // Each round: one connection moves draft -> active and paid -> settled, the other settled -> paid and
        // active -> draft, on disjoint rows (last digit even or odd), swapping connections and digits every round.
        const [x, y] = round % 2 === 0 ? [one, other] : [other, one];
        const [forward, back] = round % 2 === 0 ? [EVEN, ODD] : [ODD, EVEN];
        const [moved, movedBack] = await Promise.all([
          x.query(
            `UPDATE payment_links SET status = CASE status WHEN 'draft' THEN 'active' ELSE 'settled' END
            WHERE account_id = $1 AND status IN ('draft', 'paid') AND right(id, 1) = ANY($2)`,
            [a, forward],
          ),
          y.query(
            `UPDATE payment_links SET status = CASE status WHEN 'settled' THEN 'paid' ELSE 'draft' END
            WHERE account_id = $1 AND status IN ('settled', 'active') AND right(id, 1) = ANY($2)`,
            [a, back],
          ),
        ]);
        expect(Math.min(moved.rowCount ?? 0, movedBack.rowCount ?? 0)).toBeGreaterThan(50);
        const r = await linkCountsAndRows(a);
        expect(r.counts).toEqual(r.rows);
      }
    } finally {
      await Promise.all(clients.map(({ c }) => c.end()));
    }
  });
});
