/**
 * `npm run bench:bulk-counters` (issue 36 item 5, "Bulk writes stay linear"; decision 0089): what
 * the counters behind `expand=summary` cost one statement that writes many rows of one account.
 *
 * Starts a throwaway embedded PostgreSQL and runs every migration but 1764660000000
 * (LinearCounterTriggers): the counters are kept by the row triggers of decision 0077. For each
 * table (`payment_links`, `events`, `payments`; BENCH_BULK_TABLES) and each size (BENCH_BULK_SIZES,
 * default 1,000, 10,000, 100,000 and 1,000,000 rows), one connection times, into ONE account:
 * - **insert**: one `INSERT ... SELECT FROM generate_series` of that many rows;
 * - **update**: one `UPDATE` of every row that moves each row's counter key (links to `cancelled`,
 *   payments to `expired`, events one day back) (sizes up to BENCH_BULK_MOVE_MAX, default 100,000);
 * - **delete**: one `DELETE` of every row (same sizes as update);
 * - and the product's usual shape, one row per statement: BENCH_BULK_SINGLES (2,000; 0 for none)
 *   inserts, then as many updates, each its own statement and transaction (the total time).
 * Each statement runs in its own transaction, then the account's counts are checked against a
 * `count(*) ... GROUP BY` of the table (events: hourly and daily, with first and last `created_at`).
 * "before" (row triggers) runs the sizes up to BENCH_BULK_BEFORE_MAX (default 10,000), each
 * statement cut at BENCH_BULK_BEFORE_TIMEOUT_S (default 30 s). Then the migration runs (timed), its
 * `down` and `up` again are checked to restore each side's triggers and functions exactly, and
 * "after" (statement triggers) runs every size, each beside its floor: the same statement with the
 * table's counter triggers disabled (`ALTER TABLE ... DISABLE TRIGGER <name>` inside a transaction
 * that is rolled back; every other trigger, the foreign keys' included, stays). The table is
 * truncated between statements, so each starts from the same empty table.
 * Every statement runs under `EXPLAIN ANALYZE` (the floor's too), which also reports the time spent
 * in the counter triggers: a figure the machine's other load moves far less than the difference of two
 * wall-clock times.
 * Prints a markdown table: table, statement, rows, before (s) and of it in the counter triggers,
 * after (s) and of it in the counter triggers, floor (s), after / floor, counts exact. Exits 1 when
 * a count differs.
 */
import 'reflect-metadata';
process.env.LOG_LEVEL ??= 'error';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ENTITIES, MIGRATIONS } from '../entities';
import { LinearCounterTriggers1764660000000 } from '../entities/migrations/1764660000000-LinearCounterTriggers';
import { startEmbeddedPostgres } from '../lib/embedded-pg';

const SIZES = (process.env.BENCH_BULK_SIZES ?? '1000,10000,100000,1000000').split(',').filter(Boolean).map(Number);
const TABLES = (process.env.BENCH_BULK_TABLES ?? 'payment_links,events,payments').split(',');
const MOVE_MAX = Number(process.env.BENCH_BULK_MOVE_MAX ?? 100_000);
const BEFORE_MAX = Number(process.env.BENCH_BULK_BEFORE_MAX ?? 10_000);
const BEFORE_TIMEOUT_S = Number(process.env.BENCH_BULK_BEFORE_TIMEOUT_S ?? 30);
const SINGLES = Number(process.env.BENCH_BULK_SINGLES ?? 2000);
const ACCOUNT = 'acct_bulk';
const THIS_MIGRATION = 'LinearCounterTriggers1764660000000';
const log = (m: string) => process.stderr.write(`[bulk-counters] ${m}\n`);

type Op = 'insert' | 'update' | 'delete';

/**
 * One counted table: its statements (`insert`: rows $2..$3 of account $1; `update`, `delete`: every
 * row of account $1, narrowed to one row by `AND id = <id>` with $2 its number), the count check,
 * and its counter triggers after the migration.
 */
interface Counted {
  table: string;
  id: string;
  insert: string;
  update: string;
  delete: string;
  /** Returns one row `{ bad }`: the number of keys whose count differs from counting the account's rows. */
  check: string;
  triggers: Record<Op, string>;
}

/** `SELECT count(*)` of the keys where `counts` and `rows` (both grouped by `keys`) disagree on `cols`. */
const mismatch = (counts: string, rows: string, keys: string, cols: string[]) =>
  `SELECT count(*)::int AS bad FROM (${counts}) c FULL JOIN (${rows}) r USING (${keys})
    WHERE ${cols.map((x) => `c.${x} IS DISTINCT FROM r.${x}`).join(' OR ')}`;

const COUNTED: Counted[] = [
  {
    table: 'payment_links',
    id: "'pl_b' || $2::int",
    insert: `INSERT INTO payment_links(id, account_id, livemode, status, title, invoice_number, reference_id, amount_minor, currency, decimals,
        reminder_schedule, settlement_kind, short_code, created_at, updated_at)
      SELECT 'pl_b' || g, $1, true, (ARRAY['draft','active'])[1 + g % 2], 'Imported invoice ' || g, 'INV-' || lpad(g::text, 8, '0'),
        'CP-b' || g, 1000 + g % 5000, 'USD', 2, '{}'::jsonb, 'crypto_only', 'b' || g, now() - make_interval(secs => g), now()
      FROM generate_series($2::int, $3::int) g`,
    update: `UPDATE payment_links SET status = 'cancelled', cancelled_at = now() WHERE account_id = $1`,
    delete: 'DELETE FROM payment_links WHERE account_id = $1',
    check: mismatch(
      `SELECT livemode, status, has_partial, settlement_kind, sum(n) AS n FROM payment_link_counts WHERE account_id = $1 GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`,
      `SELECT livemode, status, partial_payment IS NOT NULL AS has_partial, coalesce(settlement_kind, '') AS settlement_kind, count(*) AS n
         FROM payment_links WHERE account_id = $1 GROUP BY 1, 2, 3, 4`,
      'livemode, status, has_partial, settlement_kind',
      ['n'],
    ),
    triggers: { insert: 'payment_link_counts_insert', update: 'payment_link_counts_update', delete: 'payment_link_counts_delete' },
  },
  {
    table: 'events',
    id: "'evt_b' || $2::int",
    insert: `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, created_at)
      SELECT 'evt_b' || g, $1, true, (ARRAY['payment_link.created','payment_link.updated','payment.created','payment.paid'])[1 + g % 4],
        'payment_link', 'pl_b' || (g / 3), '{}'::jsonb, '2026-09-04', now() - make_interval(secs => g % 600)
      FROM generate_series($2::int, $3::int) g`,
    update: `UPDATE events SET created_at = created_at - interval '1 day' WHERE account_id = $1`,
    delete: 'DELETE FROM events WHERE account_id = $1',
    check: `SELECT (${['hourly', 'daily']
      .map(
        (t) =>
          `(${mismatch(
            `SELECT livemode, type, bucket, sum(n) AS n, min(first_at) AS first_at, max(last_at) AS last_at FROM event_counts_${t} WHERE account_id = $1 GROUP BY 1, 2, 3`,
            `SELECT livemode, type, date_trunc('${t === 'hourly' ? 'hour' : 'day'}', created_at AT TIME ZONE 'UTC') AS bucket, count(*) AS n,
         min(created_at) AS first_at, max(created_at) AS last_at FROM events WHERE account_id = $1 GROUP BY 1, 2, 3`,
            'livemode, type, bucket',
            ['n', 'first_at', 'last_at'],
          )})`,
      )
      .join(' + ')}) AS bad`,
    triggers: { insert: 'event_counts_insert', update: 'event_counts_update', delete: 'event_counts_delete' },
  },
  {
    table: 'payments',
    id: "'pay_b' || $2::int",
    insert: `INSERT INTO payments(id, account_id, livemode, payment_link_id, status, payment_rail, currency, decimals, invoice_minor, fee_minor,
        amount_expected_minor, settlement, expires_at, created_at, updated_at)
      SELECT 'pay_b' || g, $1, true, NULL, (ARRAY['awaiting','paid'])[1 + g % 2], 'native', 'USD', 2, 1000 + g % 5000, 0, 1000 + g % 5000,
        CASE WHEN g % 2 = 0 THEN 'crypto' END, now() + interval '1 day', now() - make_interval(secs => g), now()
      FROM generate_series($2::int, $3::int) g`,
    update: `UPDATE payments SET status = 'expired' WHERE account_id = $1`,
    delete: 'DELETE FROM payments WHERE account_id = $1',
    check: mismatch(
      `SELECT livemode, status, settlement, sum(n) AS n FROM payment_counts WHERE account_id = $1 GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
      `SELECT livemode, status, coalesce(settlement, '') AS settlement, count(*) AS n FROM payments WHERE account_id = $1 GROUP BY 1, 2, 3`,
      'livemode, status, settlement',
      ['n'],
    ),
    triggers: { insert: 'payment_counts_insert', update: 'payment_counts_update', delete: 'payment_counts_delete' },
  },
];

/** One measured case: `rows` rows by one statement, or (`single`) by `rows` statements of one row each. */
interface Case {
  t: Counted;
  op: Op;
  rows: number;
  single: boolean;
}

/**
 * One measured case: seconds (null: cut by the timeout); of one statement, the seconds spent in the
 * counter triggers (EXPLAIN ANALYZE's trigger times, summed; null for the floor); whether
 * the counts matched the rows after it (null: not checked).
 */
interface Timed {
  seconds: number | null;
  inCounters: number | null;
  exact: boolean | null;
}

/** The counters' triggers, row- or statement-level, by name (the foreign keys' triggers are `RI_ConstraintTrigger_*`). */
const COUNTER_TRIGGER = /^(payment_link_counts|payment_counts|event_counts)_/;

/**
 * Runs case `x` on `c`. One statement: in one transaction, with `floor` the counter trigger of the
 * operation disabled and the transaction rolled back, otherwise committed and the counts checked.
 * Single-row statements: each its own transaction, with `floor` the trigger disabled around the
 * loop. The rows an update or delete acts on are inserted (and committed) and analyzed first. The
 * table is truncated before and after (its TRUNCATE trigger empties the counts).
 */
async function timed(c: Client, x: Case, o: { floor: boolean; timeoutS?: number }): Promise<Timed> {
  const { t, op, rows } = x;
  const truncate = () => c.query(`TRUNCATE ${t.table} CASCADE`);
  const check = async (seconds: number, inCounters: number | null = null): Promise<Timed> => {
    const [{ bad }] = (await c.query(t.check, [ACCOUNT])).rows as Array<{ bad: number }>;
    return { seconds, inCounters, exact: bad === 0 };
  };
  await truncate();
  try {
    if (op !== 'insert') {
      await c.query(t.insert, [ACCOUNT, 1, rows]);
      // Statistics of the loaded table: without them PostgreSQL 18 may plan the foreign keys' check of
      // a deleted row (NO ACTION: is the key still there?) as a skip scan of another index, once per
      // row (a 100,000-row DELETE of payments once ran for over 10 minutes, counters or not).
      await c.query(`ANALYZE ${t.table}`);
    }
    // Every statement runs under EXPLAIN ANALYZE (the floor's too, for the same overhead): the time
    // spent in each trigger.
    const explained = async (sql: string, params: unknown[]): Promise<number> => {
      const r = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const [plan] = (r.rows[0] as { 'QUERY PLAN': Array<{ Triggers?: Array<{ 'Trigger Name': string; Time: number }> }> })['QUERY PLAN'];
      return (plan.Triggers ?? []).filter((g) => COUNTER_TRIGGER.test(g['Trigger Name'])).reduce((sum, g) => sum + g.Time, 0) / 1000;
    };
    if (x.single) {
      if (o.floor) await c.query(`ALTER TABLE ${t.table} DISABLE TRIGGER ${t.triggers[op]}`);
      let inCounters = 0;
      const t0 = performance.now();
      try {
        for (let i = 1; i <= rows; i++) {
          if (op === 'insert') inCounters += await explained(t.insert, [ACCOUNT, i, i]);
          else inCounters += await explained(`${t[op]} AND id = ${t.id}`, [ACCOUNT, i]);
        }
      } finally {
        if (o.floor) await c.query(`ALTER TABLE ${t.table} ENABLE TRIGGER ${t.triggers[op]}`);
      }
      const seconds = (performance.now() - t0) / 1000;
      return o.floor ? { seconds, inCounters: null, exact: null } : check(seconds, inCounters);
    }
    await c.query('BEGIN');
    if (o.floor) await c.query(`ALTER TABLE ${t.table} DISABLE TRIGGER ${t.triggers[op]}`);
    if (o.timeoutS) await c.query(`SET LOCAL statement_timeout = '${o.timeoutS}s'`);
    let inCounters: number;
    const t0 = performance.now();
    try {
      inCounters = op === 'insert' ? await explained(t.insert, [ACCOUNT, 1, rows]) : await explained(t[op], [ACCOUNT]);
    } catch (e) {
      await c.query('ROLLBACK');
      if ((e as { code?: string }).code === '57014') return { seconds: null, inCounters: null, exact: null };
      throw e;
    }
    const seconds = (performance.now() - t0) / 1000;
    if (o.floor) {
      await c.query('ROLLBACK');
      return { seconds, inCounters: null, exact: null };
    }
    await c.query('COMMIT');
    return check(seconds, inCounters);
  } finally {
    await truncate();
  }
}

/** The non-internal triggers of the three counted tables and the counters' functions (bodies with whitespace collapsed). */
async function triggersAndFunctions(c: Client): Promise<string> {
  const triggers = await c.query(`SELECT tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
    WHERE tgrelid IN ('payment_links'::regclass, 'payments'::regclass, 'events'::regclass) AND NOT tgisinternal ORDER BY tgrelid::regclass::text, tgname`);
  const functions = await c.query(`SELECT proname, regexp_replace(pg_get_functiondef(p.oid), '\\s+', ' ', 'g') AS def FROM pg_proc p
    WHERE pronamespace = 'public'::regnamespace AND proname ~ '^(payment_link_counts|payment_counts|event_counts)_' ORDER BY proname`);
  return JSON.stringify([triggers.rows, functions.rows]);
}

const secs = (x: number | null | undefined) => (x === undefined ? 'not run' : x === null ? `> ${BEFORE_TIMEOUT_S} (cut)` : x.toFixed(3));

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-counters-'));
  fs.chmodSync(dir, 0o777);
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), database: 'bulk', fast: true, log });
  const c = new Client({ connectionString: pg.url });
  try {
    const early = new DataSource({
      type: 'postgres',
      url: pg.url,
      entities: ENTITIES,
      migrations: MIGRATIONS.filter((m) => m.name !== THIS_MIGRATION),
      logging: false,
    });
    await early.initialize();
    await early.runMigrations({ transaction: 'each' });
    await early.destroy();
    await c.connect();
    await c.query(`INSERT INTO users(id, email) VALUES ('usr_bulk', 'bulk@example.com')`);
    await c.query(`INSERT INTO accounts(id, display_name, email, owner_user_id) VALUES ($1, $1, 'bulk@example.com', 'usr_bulk')`, [
      ACCOUNT,
    ]);
    const [{ server_version: version }] = (await c.query('SHOW server_version')).rows as Array<{ server_version: string }>;
    const counted = COUNTED.filter((t) => TABLES.includes(t.table));
    const cases: Case[] = [];
    for (const t of counted) {
      for (const rows of SIZES) {
        for (const op of ['insert', 'update', 'delete'] as const)
          if (op === 'insert' || rows <= MOVE_MAX) cases.push({ t, op, rows, single: false });
      }
      if (SINGLES > 0) for (const op of ['insert', 'update'] as const) cases.push({ t, op, rows: SINGLES, single: true });
    }
    const key = (x: Case) => `${x.t.table} ${x.op}${x.single ? ' (single rows)' : ''} ${x.rows}`;

    const before = new Map<string, Timed>();
    const rowTriggers = await triggersAndFunctions(c);
    const note = (phase: string, x: Case, r: Timed) => {
      log(
        `${phase}: ${key(x)}: ${secs(r.seconds)} s (counters ${r.inCounters?.toFixed(3) ?? '-'} s)${r.exact === false ? ' COUNTS DIFFER' : ''}`,
      );
      return r;
    };
    for (const x of cases.filter((y) => y.rows <= BEFORE_MAX)) {
      before.set(key(x), note('before (row triggers)', x, await timed(c, x, { floor: false, timeoutS: BEFORE_TIMEOUT_S })));
    }

    const ds = new DataSource({ type: 'postgres', url: pg.url, entities: ENTITIES, migrations: MIGRATIONS, logging: false });
    await ds.initialize();
    const m0 = performance.now();
    const ran = await ds.runMigrations({ transaction: 'each' });
    const migrationMs = performance.now() - m0;
    if (ran.map((m) => m.name).join() !== THIS_MIGRATION)
      throw new Error(`expected to run ${THIS_MIGRATION} alone, ran ${ran.map((m) => m.name).join(', ')}`);
    const statementTriggers = await triggersAndFunctions(c);
    const qr = ds.createQueryRunner();
    await new LinearCounterTriggers1764660000000().down(qr);
    const downRestores = (await triggersAndFunctions(c)) === rowTriggers;
    await new LinearCounterTriggers1764660000000().up(qr);
    const upAgain = (await triggersAndFunctions(c)) === statementTriggers;
    await qr.release();
    await ds.destroy();
    if (!downRestores || !upAgain)
      throw new Error(`down restores the row triggers: ${downRestores}; up again the statement triggers: ${upAgain}`);

    const after = new Map<string, Timed>();
    const floor = new Map<string, Timed>();
    for (const x of cases) {
      floor.set(key(x), note('floor (no counter trigger)', x, await timed(c, x, { floor: true })));
      after.set(key(x), note('after (statement triggers)', x, await timed(c, x, { floor: false })));
    }

    const lines = [
      `PostgreSQL ${version}, ${os.cpus().length} cores, load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; one connection, one account, every case on an emptied table;`,
      `migration ${THIS_MIGRATION} took ${migrationMs.toFixed(0)} ms on empty tables; its down restores the row triggers and functions exactly, and up again the statement triggers: yes`,
      '',
      '| table | statement | rows | before: row triggers (s) | of which in the counters (s) | after: statement triggers (s) | of which in the counters (s) | floor: counter trigger disabled (s) | after / floor | counts exact (before, after) |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ];
    let allExact = true;
    const inCounters = (x: Timed | undefined) => (x?.inCounters == null ? '-' : x.inCounters.toFixed(3));
    for (const x of cases) {
      const b = before.get(key(x));
      const a = after.get(key(x))!;
      const f = floor.get(key(x))!;
      allExact &&= b?.exact !== false && a.exact === true;
      const exact = [b ? (b.exact === null ? '-' : b.exact ? 'yes' : '**NO**') : '-', a.exact ? 'yes' : '**NO**'].join(', ');
      const statement = x.single ? `${x.op}, one row per statement` : `${x.op}, one statement`;
      const ratio = a.seconds !== null && f.seconds !== null ? (a.seconds / f.seconds).toFixed(2) : '-';
      lines.push(
        `| ${x.t.table} | ${statement} | ${x.rows.toLocaleString('en-US')} | ${secs(b?.seconds)} | ${inCounters(b)} | ${secs(a.seconds)} | ${inCounters(a)} | ${secs(f.seconds)} | ${ratio} | ${exact} |`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!allExact) process.exitCode = 1;
  } finally {
    await c.end().catch(() => undefined);
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main()
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((e) => {
    process.stderr.write(`[bulk-counters] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
