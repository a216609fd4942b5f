/**
 * Activity tier, the activity feed (activities/activity/queries.ts; no workflow activities: the
 * feed's reads run directly on real PostgreSQL over events written by the product's commands).
 * Proves what the feed shows: newest first, filtered by category and by object (related events
 * included), the per-category summary, non-activity types left out, and an unknown type refused.
 */
import { createOrReuseNativePayment } from '../../activities/payments/commands';
import { activitySummary, eventCountsByType, listActivity, periodSegments } from '../../activities/activity/queries';
import { db } from '../../lib/db';
import { LIVE_EVENT_TYPES } from '../../domain/event-types';
import { describeWithDb, keyCaller, rejection, testRequest, useActivityTier } from '../helpers/activity-env';
import { activeCryptoLink } from '../helpers/fixtures';
import { emitEvent } from '../../lib/outbox';
import { transaction } from '../../lib/db';
import { paymentLinkView } from '../../views/payment-link';
import { linkViewContext } from '../../lib/rails-availability';
import { systemScope } from '../../activities/scope';

describeWithDb('activity feed reads', () => {
  useActivityTier();

  test("a link and its payment: the feed lists them newest first, by category and by object (the link's page includes its payment's events), with the summary", async () => {
    const { creds, link } = await activeCryptoLink('10000');
    const vctx = await linkViewContext(creds.account_id);
    await transaction((m) =>
      emitEvent(m, {
        accountId: creds.account_id,
        livemode: true,
        type: 'payment_link.activated',
        objectType: 'payment_link',
        objectId: link.id,
        object: paymentLinkView(link, vctx),
      }),
    );
    const { payment } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, testRequest), {
      linkId: link.id,
      payer_email: null,
      payer_type: null,
    });
    const caller = keyCaller(creds.account_id);

    const all = await listActivity(caller, { summary: true });
    expect(all.page.map((e) => e.type)).toEqual(['payment.awaiting', 'payment.created', 'payment_link.activated']);
    expect(all.summary).toMatchObject({ total: 3, by_category: { payment_links: 1, payments: 2 } });
    expect((await listActivity(caller, { category: 'payments' })).page.every((e) => e.object_id === payment.id)).toBe(true);
    expect((await listActivity(caller, { object: link.id })).page).toHaveLength(3);
    const page1 = await listActivity(caller, { limit: 2 });
    expect(page1).toMatchObject({ has_more: true });
    const page2 = await listActivity(caller, { limit: 2, cursor: page1.next_cursor! });
    expect(page2.page.map((e) => e.type)).toEqual(['payment_link.activated']);

    const s = await activitySummary(caller, { start: new Date(Date.now() - 60_000), end: new Date(Date.now() + 60_000) });
    expect(s).toMatchObject({ total: 3, byType: { 'payment.created': 1, 'payment.awaiting': 1, 'payment_link.activated': 1 } });
  });

  test('an unknown event type is refused (400 event_type_unknown); test mode sees nothing of live activity', async () => {
    const { creds } = await activeCryptoLink('10000');
    expect(await rejection(listActivity(keyCaller(creds.account_id), { type: 'payment.nonsense' }))).toMatchObject({
      code: 'event_type_unknown',
    });
    expect((await listActivity(keyCaller(creds.account_id, false), {})).page).toEqual([]);
  });

  test('periodSegments: whole UTC days and hours from the counts, at most the partial hours at the edges counted row by row', () => {
    const H = 3_600_000;
    const D = 24 * H;
    const t0 = Date.UTC(2026, 10, 1);
    expect(periodSegments(t0 + 10, t0 + H - 10)).toEqual([{ from: t0 + 10, to: t0 + H - 10, kind: 'raw' }]);
    expect(periodSegments(t0 + 10, t0 + 3 * H + 5)).toEqual([
      { from: t0 + 10, to: t0 + H, kind: 'raw' },
      { from: t0 + 3 * H, to: t0 + 3 * H + 5, kind: 'raw' },
      { from: t0 + H, to: t0 + 3 * H, kind: 'hourly' },
    ]);
    expect(periodSegments(t0 - 90 * 60_000, t0 + 2 * D + 30 * 60_000)).toEqual([
      { from: t0 - 90 * 60_000, to: t0 - H, kind: 'raw' },
      { from: t0 + 2 * D, to: t0 + 2 * D + 30 * 60_000, kind: 'raw' },
      { from: t0 - H, to: t0, kind: 'hourly' },
      { from: t0, to: t0 + 2 * D, kind: 'daily' },
    ]);
    expect(periodSegments(null, null)).toEqual([{ from: null, to: null, kind: 'daily' }]);
    expect(periodSegments(t0 + 5, null)).toEqual([
      { from: t0 + 5, to: t0 + H, kind: 'raw' },
      { from: t0 + H, to: t0 + D, kind: 'hourly' },
      { from: t0 + D, to: null, kind: 'daily' },
    ]);
  });

  test('event counts (decision 0077) equal counting the events over any period, also after events are moved in time or deleted', async () => {
    const { creds, link } = await activeCryptoLink('10000');
    const a = creds.account_id;
    const caller = keyCaller(a);
    const H = 3_600_000;
    // Events spread over 3 days back, some at exact hour and day boundaries.
    const now = Date.now();
    const day0 = Math.floor(now / (24 * H)) * 24 * H;
    const at = [now - 1000, now - 3 * H - 17, day0, day0 - 1, day0 - 24 * H, day0 - 24 * H + H, now - 50 * H - 123, now - 70 * H];
    const object = paymentLinkView(link, await linkViewContext(a));
    for (const [i, t] of at.entries()) {
      await transaction((m) =>
        emitEvent(m, {
          accountId: a,
          livemode: true,
          type: i % 2 ? 'payment_link.activated' : 'payment_link.viewed',
          objectType: 'payment_link',
          objectId: link.id,
          object,
        }),
      );
      await db().query(`UPDATE events SET created_at = $2 WHERE seq = (SELECT max(seq) FROM events WHERE account_id = $1)`, [
        a,
        new Date(t),
      ]);
    }
    await db().query(`DELETE FROM events WHERE account_id = $1 AND created_at = $2`, [a, new Date(now - 70 * H)]);
    const periods: Array<[number | null, number | null]> = [
      [null, null],
      [now - 30 * 24 * H, now + 1],
      [day0 - 1, day0 + 1],
      [day0, now],
      [now - 50 * H - 124, now - 3 * H - 17],
      [now - 2 * H, null],
      [null, day0],
      [now + H, now + 2 * H],
    ];
    for (const [since, until] of periods) {
      const counted = await eventCountsByType(caller, LIVE_EVENT_TYPES, since, until);
      expect([since, until, [...counted].sort()]).toEqual([
        since,
        until,
        [...(await eventCountsByType(caller, LIVE_EVENT_TYPES, since, until, true))].sort(),
      ]);
    }
    const start = new Date(now - 30 * 24 * H);
    const end = new Date(now + 1);
    expect(await activitySummary(caller, { start, end })).toEqual(await activitySummary(caller, { start, end, scan: true }));
    expect((await activitySummary(caller, { start, end })).total).toBe(7);
    expect(await listActivity(caller, { summary: true, since: new Date(now - 60 * H).toISOString() })).toEqual(
      await listActivity(caller, { summary: true, since: new Date(now - 60 * H).toISOString(), scan: true }),
    );
  });

  test('bulk statements keep the event counts exact (issue 36 item 5: one upsert per bucket, one recomputation per touched bucket): a 3,000-row INSERT ... SELECT, multi-row UPDATEs moving events in time, type and mode, a multi-row DELETE', async () => {
    const { creds, link } = await activeCryptoLink('10000');
    const a = creds.account_id;
    const H = 3_600_000;
    const object = paymentLinkView(link, await linkViewContext(a));
    const template = await transaction((m) =>
      emitEvent(m, { accountId: a, livemode: true, type: 'payment_link.activated', objectType: 'payment_link', objectId: link.id, object }),
    );
    const bucketsAndRows = async () => {
      const out: Record<string, unknown[]> = {};
      for (const [t, unit] of [
        ['hourly', 'hour'],
        ['daily', 'day'],
      ]) {
        out[t] = await db().query(
          `SELECT livemode, type, bucket, sum(n)::int AS n, min(first_at) AS first, max(last_at) AS last FROM event_counts_${t}
          WHERE account_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [a],
        );
        out[`${t} (events)`] = await db().query(
          `SELECT livemode, type, date_trunc('${unit}', created_at AT TIME ZONE 'UTC') AS bucket, count(*)::int AS n,
          min(created_at) AS first, max(created_at) AS last FROM events WHERE account_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [a],
        );
      }
      return out;
    };
    const expectExact = async () => {
      const r = await bucketsAndRows();
      expect(r.hourly).toEqual(r['hourly (events)']);
      expect(r.daily).toEqual(r['daily (events)']);
      return r;
    };
    // 3,000 copies of the event over the last ~80 hours (97 s apart), three types, both modes.
    await db().query(
      `
      INSERT INTO events (id, account_id, livemode, type, object_type, object_id, data, api_version, created_at)
      SELECT e.id || '_b' || g, e.account_id, g % 5 <> 0, (ARRAY['payment_link.activated','payment_link.viewed','payment.created'])[1 + g % 3],
             e.object_type, e.object_id, e.data, e.api_version, date_trunc('milliseconds', now()) - make_interval(secs => g * 97)
        FROM events e, generate_series(1, 3000) g WHERE e.id = $1 ORDER BY g`,
      [template],
    );
    expect((await expectExact()).hourly.length).toBeGreaterThan(150);

    // Moved in time (across hours and days), in type, in mode; and an update that moves nothing.
    await db().query(`UPDATE events SET created_at = created_at - interval '90 minutes' WHERE account_id = $1 AND id LIKE '%0'`, [a]);
    await db().query(`UPDATE events SET type = 'payment_link.viewed' WHERE account_id = $1 AND type = 'payment.created' AND id LIKE '%1'`, [
      a,
    ]);
    await db().query(
      `UPDATE events SET livemode = NOT livemode, created_at = created_at + interval '1 millisecond' WHERE account_id = $1 AND id LIKE '%2'`,
      [a],
    );
    const before = await db().query('SELECT * FROM event_counts_hourly WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5', [a]);
    await db().query(`UPDATE events SET dispatched_at = dispatched_at WHERE account_id = $1`, [a]);
    expect(await db().query('SELECT * FROM event_counts_hourly WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5', [a])).toEqual(before);
    await expectExact();

    // Deleted: whole hours and single events.
    await db().query(`DELETE FROM events WHERE account_id = $1 AND (created_at < now() - interval '60 hours' OR id LIKE '%3')`, [a]);
    await expectExact();
    const caller = keyCaller(a);
    const start = new Date(Date.now() - 100 * H);
    const end = new Date(Date.now() + 1);
    expect(await activitySummary(caller, { start, end })).toEqual(await activitySummary(caller, { start, end, scan: true }));
  });
});
