/**
 * Activity tier, events (activities/events: the gap-safe outbox tail and the per-object event
 * list; no workflow activities: they run directly on real PostgreSQL, the outbox every reader
 * follows). Proves the tail never hands out an event past a number an open transaction still
 * holds (and hands both out in `seq` order once it commits), skips a rolled-back number, and that
 * an object's event list pages newest first with its related events.
 */
import { objectEvents } from '../../activities/events/queries';
import { OutboxTail } from '../../activities/events/tail';
import { db } from '../../lib/db';
import { emitEvent } from '../../lib/outbox';
import { linkViewContext } from '../../lib/rails-availability';
import { paymentLinkView } from '../../views/payment-link';
import { describeWithDb, keyCaller, useActivityTier } from '../helpers/activity-env';
import { eventually } from '../helpers/api';
import { activeCryptoLink } from '../helpers/fixtures';

/** A fresh account and a maker of its events: `payment_link.activated` carrying its link's view, filed under `objectId`. */
async function account() {
  const { creds, link } = await activeCryptoLink('10000');
  const object = paymentLinkView(link, await linkViewContext(creds.account_id));
  const ev = (objectId: string, related: string[] = []) => ({
    accountId: creds.account_id, livemode: true, type: 'payment_link.activated', objectType: 'payment_link', objectId, object, relatedIds: related,
  });
  return { acct: creds.account_id, ev };
}

/** Reads `tail` until it has handed out rows; returns the seq of every row of `accountId` handed out so far, and whether the last read was blocked. */
async function mine(tail: OutboxTail, accountId: string, seen: string[]): Promise<{ seen: string[]; blocked: boolean }> {
  const r = await tail.read(1000);
  seen.push(...r.rows.filter((e) => e.account_id === accountId).map((e) => e.object_id));
  return { seen, blocked: r.blocked };
}

describeWithDb('outbox tail and event lists', () => {
  useActivityTier();

  test('an event committed after one still open is not handed out before it; once the first commits both come, in seq order', async () => {
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let taken!: (e?: unknown) => void;
    const seqTaken = new Promise<void>((r, j) => { taken = (e) => (e ? j(e) : r()); });
    const open = db().transaction(async (m) => {
      try { await emitEvent(m, ev('first')); } catch (e) { taken(e); throw e; }
      taken();
      await held;
    });
    await seqTaken;
    await db().transaction((m) => emitEvent(m, ev('second')));
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) await mine(tail, acct, seen);
    expect(seen).toEqual([]);
    release();
    await open;
    await eventually(async () => (await mine(tail, acct, seen)).seen.length === 2, 'both events handed out');
    expect(seen).toEqual(['first', 'second']);
  });

  test('a number taken by a transaction that rolled back is skipped once no transaction can still hold it', async () => {
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    await db().transaction(async (m) => {
      await emitEvent(m, ev('rolled_back'));
      throw new Error('roll back');
    }).catch((e: Error) => { if (e.message !== 'roll back') throw e; });
    await db().transaction((m) => emitEvent(m, ev('after')));
    const seen: string[] = [];
    await eventually(async () => (await mine(tail, acct, seen)).seen.includes('after'), 'the event after the gap', 15_000);
    expect(seen).toEqual(['after']);
  });

  test('objectEvents: the object\'s own and related events, newest first, paged by cursor', async () => {
    const { acct, ev } = await account();
    for (const [id, rel] of [['obj_a', []], ['obj_b', ['obj_a']], ['obj_a', []]] as Array<[string, string[]]>) {
      await db().transaction((m) => emitEvent(m, ev(id, rel)));
    }
    const caller = keyCaller(acct);
    const p1 = await objectEvents(caller, { object_id: 'obj_a', limit: 2 });
    expect(p1.page.map((e) => e.object_id)).toEqual(['obj_a', 'obj_b']);
    expect(p1.has_more).toBe(true);
    const p2 = await objectEvents(caller, { object_id: 'obj_a', limit: 2, cursor: p1.next_cursor! });
    expect(p2).toMatchObject({ has_more: false, next_cursor: null });
    expect(p2.page.map((e) => e.object_id)).toEqual(['obj_a']);
    expect((await objectEvents(keyCaller(acct, false), { object_id: 'obj_a' })).page).toEqual([]);
  });
});
