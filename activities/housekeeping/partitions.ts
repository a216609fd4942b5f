/**
 * The partition manager (docs/decisions/0078-retention-by-partition-drop.md): the
 * retention of request logs (spec 4.10) and webhook attempts (spec 6) is a partition drop, never a
 * DELETE. Each table is partitioned by RANGE on a timestamp, one partition per UTC day named
 * `<table>_pYYYYMMDD` holding [day, day + 1), plus `<table>_default` for rows of a day without its
 * partition (migration 1764620000000), so an insert never fails.
 *
 * One pass per table (run by the worker's housekeeping at start and every 10 minutes,
 * ./purge.ts), serialized across workers by an advisory lock:
 * 1. creates the partitions of today and the PARTITION_DAYS_AHEAD following days, and of every
 *    earlier day that has rows in the default partition (those rows move into it);
 * 2. drops every partition whose whole day is older than the table's retention: DETACH in a short
 *    transaction, then DROP TABLE of the detached table;
 * 3. reports what it did and how many rows wait in the default partition.
 *
 * Locks: a partition is made as a standalone table and ATTACHed (SHARE UPDATE EXCLUSIVE on the
 * parent: inserts and reads go on; ACCESS EXCLUSIVE on the default partition only). DETACH needs
 * ACCESS EXCLUSIVE on the parent for a catalog change (PostgreSQL refuses DETACH CONCURRENTLY
 * while a default partition exists); each such transaction runs with `lock_timeout`
 * PARTITION_LOCK_TIMEOUT_MS, so a writer queued behind it waits at most that long; a step that
 * cannot get its lock is retried twice, then left to the next pass (`deferred`).
 */
import type { QueryRunner } from 'typeorm';
import { REQUEST_LOG_RETENTION_DAYS } from '../../domain/request-logs';
import { db } from '../../lib/db';

/** Days a webhook attempt is kept after its delivery was created (spec 6 is silent; decision 0078). */
export const WEBHOOK_ATTEMPT_RETENTION_DAYS = 30;
/** Daily partitions kept ready after today. */
export const PARTITION_DAYS_AHEAD = 7;
/** The longest a partition step waits for its lock (and so the longest a writer queued behind it waits), ms. */
export const PARTITION_LOCK_TIMEOUT_MS = 100;

/** A table the manager keeps: its partition key column and its retention in days. */
export interface PartitionedTable {
  table: string;
  column: string;
  retentionDays: number;
  /** A table of counts over this one's rows by UTC `hour` (`request_log_counts`): a dropped day's counts are deleted with it. */
  hourlyCounts?: string;
}

/** The partitioned tables (the events outbox is not one: decision 0078). */
export const PARTITIONED_TABLES: readonly PartitionedTable[] = Object.freeze([
  { table: 'request_logs', column: 'created_at', retentionDays: REQUEST_LOG_RETENTION_DAYS, hourlyCounts: 'request_log_counts' },
  { table: 'webhook_attempts', column: 'delivery_created_at', retentionDays: WEBHOOK_ATTEMPT_RETENTION_DAYS },
]);

/** What one pass did to one table: partition names created and dropped, rows dropped with them, steps left for the next pass, rows in the default partition (counted up to 10,001). */
export interface PartitionPass {
  created: string[];
  dropped: string[];
  rowsDropped: number;
  deferred: string[];
  defaultRows: number;
}

const DAY_MS = 86_400_000;
const RETRIES = 3;
const LOCK_NOT_AVAILABLE = '55P03';
/** A row arrived in the default partition for the day being attached (ATTACH re-checks the default). */
const CHECK_VIOLATION = '23514';

/** The partition of the UTC day starting at `dayMs` (epoch ms at 00:00 UTC). */
export function partitionName(table: string, dayMs: number): string {
  return `${table}_p${new Date(dayMs).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** The UTC day (epoch ms at 00:00) of partition `name` of `table`, or null for another name. */
export function partitionDay(table: string, name: string): number | null {
  const m = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`).exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sqlState = (e: unknown): string | undefined => {
  const x = e as { code?: string; driverError?: { code?: string } };
  return x.code ?? x.driverError?.code;
};

/**
 * Runs `fn` in a transaction on `qr` with `lock_timeout` PARTITION_LOCK_TIMEOUT_MS; retries on a
 * lock timeout (or a row that slipped into the default partition meanwhile) up to RETRIES times.
 * Returns false when every try gave up; other errors are thrown.
 */
async function shortLocked(qr: QueryRunner, fn: () => Promise<unknown>): Promise<boolean> {
  for (let i = 0; i < RETRIES; i++) {
    await qr.startTransaction();
    try {
      await qr.query(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT_MS}ms'`);
      await fn();
      await qr.commitTransaction();
      return true;
    } catch (e) {
      await qr.rollbackTransaction();
      const code = sqlState(e);
      if (code !== LOCK_NOT_AVAILABLE && code !== CHECK_VIOLATION) throw e;
      await sleep(100 * (i + 1));
    }
  }
  return false;
}

/** Creates the partition of day `dayMs`, moving its rows out of the default partition. False when deferred. */
async function createPartition(qr: QueryRunner, t: PartitionedTable, dayMs: number): Promise<boolean> {
  const name = partitionName(t.table, dayMs);
  return shortLocked(qr, async () => {
    await qr.query(`CREATE TABLE ${name} (LIKE ${t.table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    await qr.query(
      `WITH moved AS (DELETE FROM ${t.table}_default WHERE ${t.column} >= $1 AND ${t.column} < $2 RETURNING *)
       INSERT INTO ${name} SELECT * FROM moved`,
      [iso(dayMs), iso(dayMs + DAY_MS)],
    );
    await qr.query(`ALTER TABLE ${t.table} ATTACH PARTITION ${name} FOR VALUES FROM ('${iso(dayMs)}') TO ('${iso(dayMs + DAY_MS)}')`);
  });
}

/** One pass over `t` holding the manager's advisory lock on `qr`. */
async function pass(qr: QueryRunner, t: PartitionedTable, now: Date): Promise<PartitionPass> {
  const out: PartitionPass = { created: [], dropped: [], rowsDropped: 0, deferred: [], defaultRows: 0 };
  // A table detached by a pass that stopped before its DROP.
  const leftovers: Array<{ relname: string }> = await qr.query(
    `SELECT relname FROM pg_class WHERE relkind = 'r' AND NOT relispartition AND relname ~ $1`,
    [`^${t.table}_p[0-9]{8}$`],
  );
  for (const l of leftovers) await qr.query(`DROP TABLE IF EXISTS ${l.relname}`);

  const attached: Array<{ relname: string }> = await qr.query(
    'SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass',
    [t.table],
  );
  const days = new Set(attached.map((a) => partitionDay(t.table, a.relname)).filter((d): d is number => d !== null));

  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const horizon = today + (PARTITION_DAYS_AHEAD + 1) * DAY_MS;
  const wanted = new Set<number>();
  for (let d = today; d < horizon; d += DAY_MS) wanted.add(d);
  const stray: Array<{ day: string }> = await qr.query(
    `SELECT DISTINCT (floor(extract(epoch FROM ${t.column}) / 86400) * 86400000)::bigint AS day
       FROM ${t.table}_default WHERE ${t.column} < $1`,
    [iso(horizon)],
  );
  for (const s of stray) wanted.add(Number(s.day));
  for (const d of [...wanted].sort((a, b) => a - b)) {
    if (days.has(d)) continue;
    if (await createPartition(qr, t, d)) {
      out.created.push(partitionName(t.table, d));
      days.add(d);
    } else out.deferred.push(`create ${partitionName(t.table, d)}`);
  }

  const cutoff = now.getTime() - t.retentionDays * DAY_MS;
  for (const d of [...days].sort((a, b) => a - b)) {
    if (d + DAY_MS > cutoff) continue;
    const name = partitionName(t.table, d);
    const [{ n }]: Array<{ n: number }> = await qr.query(`SELECT count(*)::int AS n FROM ${name}`);
    if (!(await shortLocked(qr, () => qr.query(`ALTER TABLE ${t.table} DETACH PARTITION ${name}`)))) {
      out.deferred.push(`drop ${name}`);
      continue;
    }
    await qr.query(`DROP TABLE ${name}`);
    days.delete(d);
    out.dropped.push(name);
    out.rowsDropped += n;
  }
  // Counts of hours older than every partition left describe rows that are gone (this pass's drops,
  // or a pass that stopped between a drop and this statement).
  if (t.hourlyCounts && days.size > 0) await qr.query(`DELETE FROM ${t.hourlyCounts} WHERE hour < $1`, [iso(Math.min(...days))]);
  const [{ n: inDefault }]: Array<{ n: number }> = await qr.query(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${t.table}_default LIMIT 10001) x`,
  );
  out.defaultRows = inDefault;
  return out;
}

/**
 * One pass of the manager over table `t` as of `now` (see the module comment). Waits for another
 * worker's pass of the same table to finish (advisory lock). Throws on database errors other than
 * a lock timeout.
 */
export async function maintainPartitions(partitionedTable: PartitionedTable, now: Date = new Date()): Promise<PartitionPass> {
  if (!/^[a-z_]+$/.test(partitionedTable.table) || !/^[a-z_]+$/.test(partitionedTable.column))
    throw new Error(`not a partitioned table name: ${partitionedTable.table}.${partitionedTable.column}`);
  const qr = db().createQueryRunner();
  await qr.connect();
  const lock = `partitions:${partitionedTable.table}`;
  try {
    await qr.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    try {
      return await pass(qr, partitionedTable, now);
    } finally {
      if (qr.isTransactionActive) await qr.rollbackTransaction();
      await qr.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]);
    }
  } finally {
    await qr.release();
  }
}

/** A pass over every table of PARTITIONED_TABLES, by table name. */
export async function maintainAllPartitions(now: Date = new Date()): Promise<Record<string, PartitionPass>> {
  const out: Record<string, PartitionPass> = {};
  for (const t of PARTITIONED_TABLES) out[t.table] = await maintainPartitions(t, now);
  return out;
}
