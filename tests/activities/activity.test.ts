/**
 * Activity tier, the activity feed (activities/activity/queries.ts; no workflow activities: the
 * feed's reads run directly on real PostgreSQL over events written by the product's commands).
 * Proves what the feed shows: newest first, filtered by category and by object (related events
 * included), the per-category summary, non-activity types left out, and an unknown type refused.
 */
import { createOrReuseNativePayment } from '../../activities/payments/commands';
import { activitySummary, listActivity } from '../../activities/activity/queries';
import { describeWithDb, keyCaller, rejection, testRequest, useActivityTier } from '../helpers/activity-env';
import { activeCryptoLink } from '../helpers/fixtures';
import { emitEvent } from '../../lib/outbox';
import { transaction } from '../../lib/db';
import { paymentLinkView } from '../../views/payment-link';
import { linkViewContext } from '../../lib/rails-availability';
import { systemScope } from '../../activities/scope';

describeWithDb('activity feed reads', () => {
  useActivityTier();

  test('a link and its payment: the feed lists them newest first, by category and by object (the link\'s page includes its payment\'s events), with the summary', async () => {
    const { creds, link } = await activeCryptoLink('10000');
    const vctx = await linkViewContext(creds.account_id);
    await transaction((m) => emitEvent(m, { accountId: creds.account_id, livemode: true, type: 'payment_link.activated', objectType: 'payment_link', objectId: link.id, object: paymentLinkView(link, vctx) }));
    const { payment } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, testRequest), { linkId: link.id, payerEmail: null, payerType: null });
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
    expect(await rejection(listActivity(keyCaller(creds.account_id), { type: 'payment.nonsense' }))).toMatchObject({ code: 'event_type_unknown' });
    expect((await listActivity(keyCaller(creds.account_id, false), {})).page).toEqual([]);
  });
});
