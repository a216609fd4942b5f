/**
 * A gap-safe tail of the events outbox in `seq` order (spec 6 "Stream";
 * docs/decisions/0053-outbox-notification-after-commit.md). The notification on channel `events` is only a hint now,
 * sent after commit (lib/outbox.ts); the tail is the source of truth for what the live stream
 * sends.
 *
 * Why gaps matter: `seq` is taken when a row is inserted, and transactions commit in any order.
 * So seq 41 can be visible while seq 40 still belongs to an open transaction. Handing out 41 and
 * moving past 40 would lose 40. The tail hands out rows strictly in `seq` order and stops at the
 * first missing number. It skips a missing number only once no transaction that could still hold it
 * is open. The check uses PostgreSQL's snapshot: every writer takes its transaction id before its
 * event's `seq` (lib/outbox.ts), so a transaction holding a number below one seen in snapshot S
 * had its id below `xmax(S)`. Once a later snapshot's `xmin` reaches that `xmax`, all such
 * transactions have ended. A number still missing then was rolled back, and the tail skips it.
 */
import { EventRow } from '../../entities';
import { db } from '../../lib/db';

/** What one read handed out, and whether a gap held the rest back (read again shortly). */
export interface TailRead { rows: EventRow[]; blocked: boolean }

/** A tail's position, as persisted by a durable consumer (outbox_cursors): numbers as decimal strings. */
export interface TailState { seq: string; wait_up_to: string | null; wait_xmax: string | null }

/** Anything that runs a query: the pool, or a transaction's EntityManager. */
export interface Queryable { query(sql: string, params?: unknown[]): Promise<any> }

/** A gap-safe reader of the events outbox (see module doc); one per consumer. */
export class OutboxTail {
  private cursor: bigint;
  /** The pending wait: gaps below `upTo` are dead once a snapshot's xmin reaches `xmax`. */
  private wait: { upTo: bigint; xmax: bigint } | null;

  private constructor(afterSeq: bigint, wait: { upTo: bigint; xmax: bigint } | null = null) {
    this.cursor = afterSeq;
    this.wait = wait;
  }

  /** A tail resuming from a persisted state. */
  static fromState(s: TailState): OutboxTail {
    return new OutboxTail(BigInt(s.seq), s.wait_up_to !== null && s.wait_xmax !== null ? { upTo: BigInt(s.wait_up_to), xmax: BigInt(s.wait_xmax) } : null);
  }

  /** The state to persist after a read. */
  get state(): TailState {
    return { seq: String(this.cursor), wait_up_to: this.wait ? String(this.wait.upTo) : null, wait_xmax: this.wait ? String(this.wait.xmax) : null };
  }

  /** A tail that starts after the newest event visible now. */
  static async atHead(): Promise<OutboxTail> {
    const [r]: Array<{ seq: string }> = await db().query('SELECT COALESCE(max(seq), 0)::text AS seq FROM events');
    return new OutboxTail(BigInt(r.seq));
  }

  /** The last outbox sequence handed out. */
  get position(): bigint {
    return this.cursor;
  }

  /**
   * Reads up to `limit` events after the cursor through `q` (default the pool) and hands out those
   * that are safe, in `seq` order. `columns` limits what is read (`seq` is always included).
   */
  async read(limit = 1000, q: Queryable = db(), columns = 'e.*'): Promise<TailRead> {
    const raw: Array<Record<string, any>> = await q.query(
      `SELECT pg_snapshot_xmin(s.snap)::text AS snap_xmin, pg_snapshot_xmax(s.snap)::text AS snap_xmax, ${columns}, e.seq
         FROM (SELECT pg_current_snapshot() AS snap) s
         LEFT JOIN LATERAL (SELECT * FROM events WHERE seq > $1 ORDER BY seq LIMIT $2) e ON true`, [String(this.cursor), limit]);
    const xmin = BigInt(raw[0].snap_xmin);
    const xmax = BigInt(raw[0].snap_xmax);
    const rows: EventRow[] = [];
    let blocked = false;
    for (const r of raw) {
      if (r.seq === null || r.seq === undefined) break;
      const seq = BigInt(r.seq);
      if (seq !== this.cursor + 1n) {
        // The missing numbers lie below `seq`: dead once the wait that covers them has passed.
        const dead = this.wait !== null && xmin >= this.wait.xmax && seq <= this.wait.upTo;
        if (!dead) {
          // A first sighting (or a gap above a passed wait) starts a wait; an open wait is kept.
          if (!this.wait || xmin >= this.wait.xmax) this.wait = { upTo: seq, xmax };
          blocked = true;
          break;
        }
      }
      const { snap_xmin: _a, snap_xmax: _b, ...cols } = r;
      rows.push(Object.assign(new EventRow(), cols));
      this.cursor = seq;
    }
    if (!blocked && this.wait && this.cursor >= this.wait.upTo) this.wait = null;
    return { rows, blocked };
  }
}
