/**
 * The gap-safe outbox tail (activities/events/tail.ts) against the test stack's PostgreSQL: an event
 * committed with a higher `seq` while a lower one is still in an open transaction is held back
 * until that transaction commits (then both come, in `seq` order) or rolls back (then the gap is
 * skipped once no transaction that could hold it is open). Each row is handed out once.
 */
import { OutboxTail } from '../../activities/events/tail';
import { closeDb, db, transaction } from '../../lib/db';
import { emitEvent } from '../../lib/outbox';
import { connectDb, newAccount } from '../helpers/api';

let accountId: string;
beforeAll(async () => {
  await connectDb();
  accountId = (await newAccount()).account_id;
});
afterAll(async () => {
  await closeDb();
});

const event = (objectId: string) => ({
  accountId,
  livemode: true,
  type: 'order.created',
  objectType: 'order',
  objectId,
  object: { id: objectId, object: 'order' },
});

/** Opens a transaction that emits one event and waits for `release` to decide commit or rollback. */
function heldWriter(objectId: string) {
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((r) => {
    decide = r;
  });
  let written!: () => void;
  const wrote = new Promise<void>((r) => {
    written = r;
  });
  const done = transaction(async (m) => {
    await emitEvent(m, event(objectId));
    written();
    if (!(await decision)) throw new Error('rolled back on purpose');
  }).catch((e: Error) => {
    if (e.message !== 'rolled back on purpose') throw e;
  });
  return { wrote, commit: () => decide(true), rollback: () => decide(false), done };
}

/** Reads until nothing more comes and no gap blocks (or 5 s), returning the object ids handed out. */
async function drainTail(tail: OutboxTail, mine: Set<string>): Promise<string[]> {
  const out: string[] = [];
  const end = Date.now() + 5000;
  for (;;) {
    const r = await tail.read();
    out.push(...r.rows.map((e) => e.object_id).filter((id) => mine.has(id)));
    if (!r.blocked && r.rows.length === 0) return out;
    if (Date.now() > end) throw new Error(`tail still blocked after 5 s (got ${out.join(',')})`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

test('a later commit waits behind an open lower sequence, then both come in seq order, once', async () => {
  const tail = await OutboxTail.atHead();
  const mine = new Set(['ord_tailA', 'ord_tailB']);
  const a = heldWriter('ord_tailA');
  await a.wrote;
  await transaction((m) => emitEvent(m, event('ord_tailB')));
  const first = await tail.read();
  expect(first.rows.filter((e) => mine.has(e.object_id))).toEqual([]);
  expect(first.blocked).toBe(true);
  a.commit();
  await a.done;
  expect(await drainTail(tail, mine)).toEqual(['ord_tailA', 'ord_tailB']);
  expect(await drainTail(tail, mine)).toEqual([]);
});

test('a rolled-back sequence number is skipped once its transaction has ended', async () => {
  const tail = await OutboxTail.atHead();
  const mine = new Set(['ord_tailC', 'ord_tailD']);
  const c = heldWriter('ord_tailC');
  await c.wrote;
  await transaction((m) => emitEvent(m, event('ord_tailD')));
  expect((await tail.read()).blocked).toBe(true);
  c.rollback();
  await c.done;
  expect(await drainTail(tail, mine)).toEqual(['ord_tailD']);
  const rows = await db().query(`SELECT object_id FROM events WHERE object_id = ANY($1)`, [[...mine]]);
  expect(rows).toEqual([{ object_id: 'ord_tailD' }]);
});
