/**
 * Activity tier, events (activities/events: the gap-safe outbox tail and the per-object event
 * list; no workflow activities: they run directly on real PostgreSQL, the outbox every reader
 * follows). Proves the tail never hands out an event past a number an open transaction still
 * holds (and hands both out in `seq` order once it commits), skips a rolled-back number, and that
 * an object's event list pages newest first with its related events.
 */
import { Client } from 'pg';
import { listEvents, objectEvents } from '../../activities/events/queries';
import { newId } from '../../lib/ids';
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
    accountId: creds.account_id,
    livemode: true,
    type: 'payment_link.activated',
    objectType: 'payment_link',
    objectId,
    object,
    relatedIds: related,
  });
  return { acct: creds.account_id, ev };
}

/** Reads `tail` until it has handed out rows; returns the seq of every row of `accountId` handed out so far, and whether the last read was blocked. */
async function mine(tail: OutboxTail, accountId: string, seen: string[]): Promise<{ seen: string[]; blocked: boolean }> {
  const r = await tail.read(1000);
  seen.push(...r.rows.filter((e) => e.account_id === accountId).map((e) => e.object_id));
  return { seen, blocked: r.blocked };
}

/** Reads `tail` five times, 20 ms apart: every read is blocked and hands out nothing of `accountId`. */
async function staysBlocked(tail: OutboxTail, accountId: string, seen: string[]): Promise<void> {
  for (let i = 0; i < 5; i++) {
    expect((await mine(tail, accountId, seen)).blocked).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(seen).toEqual([]);
}

/** Emits `event` in a transaction that rolls back: its `seq` is taken and never committed (a gap). */
async function rolledBack(event: Parameters<typeof emitEvent>[1]): Promise<void> {
  await db()
    .transaction(async (m) => {
      await emitEvent(m, event);
      throw new Error('roll back');
    })
    .catch((e: Error) => {
      if (e.message !== 'roll back') throw e;
    });
}

/**
 * Runs `fn` while a session of another database on the same server (a migration, another
 * deployment) holds a transaction id, so the server-wide snapshot `xmin` stays behind; drops that
 * database after.
 */
async function whileAnotherDatabaseHoldsAnId(name: string, fn: () => Promise<void>): Promise<void> {
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const other = `${name}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${other}`).catch(() => undefined);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${other}`;
  const outside = new Client({ connectionString: url.toString() });
  await outside.connect();
  try {
    await outside.query('BEGIN');
    await outside.query('SELECT pg_current_xact_id()');
    await fn();
  } finally {
    await outside.query('ROLLBACK').catch(() => undefined);
    await outside.end();
    await admin.query(`DROP DATABASE IF EXISTS ${other} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

describeWithDb('outbox tail and event lists', () => {
  useActivityTier();

  test('an event committed after one still open is not handed out before it; once the first commits both come, in seq order', async () => {
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let taken!: (e?: unknown) => void;
    const seqTaken = new Promise<void>((r, j) => {
      taken = (e) => (e ? j(e) : r());
    });
    const open = db().transaction(async (m) => {
      try {
        await emitEvent(m, ev('first'));
      } catch (e) {
        taken(e);
        throw e;
      }
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
    await rolledBack(ev('rolled_back'));
    await db().transaction((m) => emitEvent(m, ev('after')));
    const seen: string[] = [];
    await eventually(async () => (await mine(tail, acct, seen)).seen.includes('after'), 'the event after the gap', 15_000);
    expect(seen).toEqual(['after']);
  });

  test('a long transaction in another database on the same server does not hold a rolled-back gap; one in this database does', async () => {
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    const here = db().createQueryRunner();
    await here.connect();
    try {
      await whileAnotherDatabaseHoldsAnId('tail_other', async () => {
        await rolledBack(ev('rolled_back'));
        await db().transaction((m) => emitEvent(m, ev('after')));
        const seen: string[] = [];
        await eventually(
          async () => (await mine(tail, acct, seen)).seen.includes('after'),
          "the event after the gap, another database's transaction open",
          15_000,
        );
        expect(seen).toEqual(['after']);

        // The same in this database: the gap is held while this database's transaction is open.
        const tail2 = await OutboxTail.atHead();
        await here.startTransaction();
        await here.query('SELECT pg_current_xact_id()');
        await rolledBack(ev('rolled_back_2'));
        await db().transaction((m) => emitEvent(m, ev('after_2')));
        const seen2: string[] = [];
        await staysBlocked(tail2, acct, seen2);
        await here.rollbackTransaction();
        await eventually(
          async () => (await mine(tail2, acct, seen2)).seen.includes('after_2'),
          "the event after the gap, once this database's transaction ended",
          15_000,
        );
        expect(seen2).toEqual(['after_2']);
      });
    } finally {
      if (here.isTransactionActive) await here.rollbackTransaction();
      await here.release();
    }
  });

  test("rows handed out before a gap that only this database's check lets pass are not lost", async () => {
    // A read hands out rows, then stops at a gap under a wait the server-wide xmin has not passed
    // (another database holds it); the database-local check passes it and the tail reads on. The
    // rows of the first read are handed out with the rest, never dropped.
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    const a = db().createQueryRunner();
    await a.connect();
    try {
      await whileAnotherDatabaseHoldsAnId('tail_rows', async () => {
        await a.startTransaction();
        await emitEvent(a.manager, ev('held'));
        await db().transaction((m) => emitEvent(m, ev('next')));
        const seen: string[] = [];
        expect((await mine(tail, acct, seen)).blocked).toBe(true); // the wait starts at 'held'
        await a.commitTransaction();
        await rolledBack(ev('rolled_back'));
        await db().transaction((m) => emitEvent(m, ev('after')));
        await eventually(async () => (await mine(tail, acct, seen)).seen.includes('after'), 'the event after the second gap', 15_000);
        expect(seen).toEqual(['held', 'next', 'after']);
      });
    } finally {
      if (a.isTransactionActive) await a.rollbackTransaction();
      await a.release();
    }
  });

  test("objectEvents: the object's own and related events, newest first, paged by cursor", async () => {
    const { acct, ev } = await account();
    for (const [id, rel] of [
      ['obj_a', []],
      ['obj_b', ['obj_a']],
      ['obj_a', []],
    ] as Array<[string, string[]]>) {
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

  test('a writer that took its transaction id after the last completed one is waited for: its event is not skipped while it is open', async () => {
    // The order of the 2026-11-26 loss: C takes its id, then A takes a newer id and the lower seq,
    // then C takes the next seq and commits. A snapshot then has xmax = C + 1 <= A, so a later
    // snapshot's xmin could pass that xmax while A was still open.
    const { acct, ev } = await account();
    const tail = await OutboxTail.atHead();
    const c = db().createQueryRunner();
    const a = db().createQueryRunner();
    await c.connect();
    await a.connect();
    try {
      await c.startTransaction();
      await c.query('SELECT pg_current_xact_id()');
      await a.startTransaction();
      await emitEvent(a.manager, ev('held'));
      await emitEvent(c.manager, ev('committed'));
      await c.commitTransaction();
      const seen: string[] = [];
      await staysBlocked(tail, acct, seen);
      await a.commitTransaction();
      await eventually(async () => (await mine(tail, acct, seen)).seen.length === 2, 'both events handed out');
      expect(seen).toEqual(['held', 'committed']);
    } finally {
      if (c.isTransactionActive) await c.rollbackTransaction();
      if (a.isTransactionActive) await a.rollbackTransaction();
      await c.release();
      await a.release();
    }
  });

  test('GET /events pages: the newest shipped events of each type after the cursor, however many unshipped ones came last; since an evt_ id too', async () => {
    const { acct } = await account();
    // The fixture's own events (its link's), older than every row written here.
    const before = (await listEvents(keyCaller(acct, true), { limit: 100 })).page.map((e) => e.id);
    const insert = async (type: string) => {
      const id = newId('evt_');
      await db().query(
        `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
         VALUES ($1, $2, true, $3, 'payment_link', 'pl_list', '{"object":{"id":"pl_list","object":"payment_link"}}', '2026-09-04', now())`,
        [id, acct, type],
      );
      return { id, type };
    };
    const written: Array<{ id: string; type: string }> = [];
    const shipped = ['payment_link.activated', 'payment_link.paid', 'payment.settled'];
    for (let i = 0; i < 30; i++) {
      written.push(await insert(shipped[i % 3]));
      written.push(await insert('payroll_item.payout_paid'));
    }
    for (let i = 0; i < 40; i++) written.push(await insert(i % 2 ? 'payroll_item.payout_queued' : 'payout.processing'));
    const expected = [
      ...written
        .filter((e) => shipped.includes(e.type))
        .map((e) => e.id)
        .reverse(),
      ...before,
    ];
    const scope = keyCaller(acct, true);
    const walk = async (extra: { since?: string } = {}) => {
      const got: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const p = await listEvents(scope, { limit: 7, cursor, ...extra });
        got.push(...p.page.map((e) => e.id));
        if (!p.has_more) break;
        cursor = p.next_cursor!;
      }
      return got;
    };
    expect(await walk()).toEqual(expected);
    const since = written[20].id;
    expect(await walk({ since })).toEqual(
      written
        .slice(21)
        .filter((e) => shipped.includes(e.type))
        .map((e) => e.id)
        .reverse(),
    );
    expect((await listEvents(keyCaller(acct, false), { limit: 7 })).page).toEqual([]);
    expect((await listEvents(scope, { type: 'payment.settled', limit: 100 })).page.map((e) => e.id)).toEqual(
      written
        .filter((e) => e.type === 'payment.settled')
        .map((e) => e.id)
        .reverse(),
    );
  });
});
