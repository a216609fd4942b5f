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
 * is open. Every writer takes its transaction id before its event's `seq` (lib/outbox.ts), so a
 * transaction holding a number below one seen in snapshot S had its id before S was taken. When
 * the tail first sees a gap it takes a fresh transaction id N in a transaction of its own
 * (`pg_current_xact_id()` on the pool, after the read): ids are handed out in order, so every such
 * writer's id is below N. Once a later snapshot's `xmin` reaches N, all of them have ended; a
 * number still missing then was rolled back, and the tail skips it.
 *
 * `xmin` is cluster-wide: a long transaction in another database on the same server (another
 * deployment, a migration of a fresh database) holds it back although it can hold no number here.
 * So a wait the snapshot's `xmin` has not passed is checked once more against this database's
 * sessions alone (`pg_stat_activity`, in a statement before a fresh read): passed when none of them
 * holds a transaction id below N (decision 0087).
 *
 * Not S's own `xmax`: that is the newest *completed* id plus one, and a writer that took its id
 * after that one but is still open has an id at or above it. A later snapshot's `xmin` can then
 * pass `xmax(S)` while that writer is open, and its events were skipped for good (seen under a
 * paced webhook load on 2026-11-26: two events never delivered; tests/activities/events.test.ts
 * replays that order of commits).
 */
import { EventRow } from '../../entities';
import { db } from '../../lib/db';

/**
 * A transaction id taken now, in a one-statement transaction on the pool (never the caller's: its id
 * may be older than the gap): greater than every id handed out before this call.
 */
async function freshXid(): Promise<bigint> {
  const [r]: Array<{ x: string }> = await db().query('SELECT pg_current_xact_id()::text AS x');
  return BigInt(r.x);
}

/** What one read handed out, and whether a gap held the rest back (read again shortly). */
export interface TailRead {
  rows: EventRow[];
  blocked: boolean;
}

/** A tail's position, as persisted by a durable consumer (outbox_cursors): numbers as decimal strings. */
export interface TailState {
  seq: string;
  wait_up_to: string | null;
  wait_xmax: string | null;
}

/** Anything that runs a query: the pool, or a transaction's EntityManager. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<any>;
}

/** A gap-safe reader of the events outbox (see module doc); one per consumer. */
export class OutboxTail {
  private cursor: bigint;
  /** The pending wait: gaps below `upTo` are dead once a snapshot's xmin reaches `xmax` (a transaction id taken after the gap was seen). */
  private wait: { upTo: bigint; xmax: bigint } | null;

  private constructor(afterSeq: bigint, wait: { upTo: bigint; xmax: bigint } | null = null) {
    this.cursor = afterSeq;
    this.wait = wait;
  }

  /** A tail resuming from a persisted state. */
  static fromState(tailState: TailState): OutboxTail {
    return new OutboxTail(
      BigInt(tailState.seq),
      tailState.wait_up_to !== null && tailState.wait_xmax !== null
        ? { upTo: BigInt(tailState.wait_up_to), xmax: BigInt(tailState.wait_xmax) }
        : null,
    );
  }

  /** The state to persist after a read. */
  get state(): TailState {
    return {
      seq: String(this.cursor),
      wait_up_to: this.wait ? String(this.wait.upTo) : null,
      wait_xmax: this.wait ? String(this.wait.xmax) : null,
    };
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
  async read(limit = 1000, queryable: Queryable = db(), columns = 'e.*'): Promise<TailRead> {
    const first = await this.readOnce(limit, queryable, columns, false);
    // Held by a wait the cluster-wide xmin has not passed: check this database's writers alone,
    // then read on from where the first read stopped (a fresh snapshot, taken after the check).
    // The first read's rows are handed out too: the cursor has already moved past them.
    if (!first.waitOpen || !(await waitPassedHere(this.wait!.xmax, queryable))) return { rows: first.rows, blocked: first.blocked };
    const rest = await this.readOnce(limit - first.rows.length, queryable, columns, true);
    return { rows: [...first.rows, ...rest.rows], blocked: rest.blocked };
  }

  /**
   * One read (see `read`). `passedHere`: the pending wait is known passed for this database's
   * writers (checked before this read's snapshot). `waitOpen` in the result: a gap under a pending
   * wait stopped it, the wait not passed.
   */
  private async readOnce(limit: number, q: Queryable, columns: string, passedHere: boolean): Promise<TailRead & { waitOpen: boolean }> {
    const raw: Array<Record<string, any>> = await q.query(
      `SELECT pg_snapshot_xmin(s.snap)::text AS snap_xmin, ${columns}, e.seq
         FROM (SELECT pg_current_snapshot() AS snap) s
         LEFT JOIN LATERAL (SELECT * FROM events WHERE seq > $1 ORDER BY seq LIMIT $2) e ON true`,
      [String(this.cursor), limit],
    );
    const xmin = BigInt(raw[0].snap_xmin);
    const rows: EventRow[] = [];
    let blocked = false;
    let waitOpen = false;
    for (const r of raw) {
      if (r.seq === null || r.seq === undefined) break;
      const seq = BigInt(r.seq);
      if (seq !== this.cursor + 1n) {
        // The missing numbers lie below `seq`: dead once the wait that covers them has passed.
        const passed = this.wait !== null && (passedHere || xmin >= this.wait.xmax);
        const dead = passed && seq <= this.wait!.upTo;
        if (!dead) {
          // A first sighting (or a gap above a passed wait) starts a wait; an open wait is kept.
          if (!this.wait || passed) this.wait = { upTo: seq, xmax: await freshXid() };
          else waitOpen = true;
          blocked = true;
          break;
        }
      }
      const { snap_xmin: _a, ...cols } = r;
      rows.push(Object.assign(new EventRow(), cols));
      this.cursor = seq;
    }
    if (!blocked && this.wait && this.cursor >= this.wait.upTo) this.wait = null;
    return { rows, blocked, waitOpen };
  }
}

/**
 * Whether no transaction of this database that took its id below `xmax` (a `pg_current_xact_id()`
 * value) is still open, the caller's own excepted: one statement, run before the read it licenses.
 * The writers of this database's outbox are its sessions, so a long transaction in another
 * database on the same server (another deployment, a migration) does not hold the tail back.
 * At most once per transaction of `q`: PostgreSQL keeps a transaction's first read of
 * `pg_stat_activity` for the rest of it.
 */
async function waitPassedHere(xmax: bigint, q: Queryable): Promise<boolean> {
  const [r]: Array<{ passed: boolean }> = await q.query(
    `SELECT NOT EXISTS (
       SELECT 1 FROM pg_snapshot_xip(pg_current_snapshot()) x
         JOIN pg_stat_activity a ON a.backend_xid = x::xid
        WHERE a.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND a.pid <> pg_backend_pid() AND x < $1::xid8) AS passed`,
    [String(xmax)],
  );
  return r.passed;
}
