/**
 * `npm run bench:retention` (issue 27 item 3, decision 0078): what retention costs the writers of
 * request logs. On a throwaway embedded PostgreSQL with the product's migrations, one writer
 * inserts batches of BENCH_RETENTION_BATCH (500) request logs as the API's buffer does (one
 * `INSERT ... SELECT FROM unnest(...)`), back to back, while retention removes BENCH_RETENTION_DROP_DAYS
 * (5) days of BENCH_RETENTION_ROWS_PER_DAY (40,000) rows each:
 * - **baseline**: the writer alone on the partitioned table (same run);
 * - **delete**: the former purge (batched `DELETE ... WHERE ctid IN (... LIMIT 5000)`, what
 *   activities/housekeeping/purge.ts did before) on an unpartitioned copy with the former schema;
 * - **drop**: the partition manager's pass (activities/housekeeping/partitions.ts) dropping the same
 *   days' partitions (run as of now + the dropped days, so their rows are past retention).
 * Prints, for each, the writer's batches per second and batch latency p50 / p99 / max over the
 * purge's window, how long the purge took and the WAL written meanwhile (the writer's share is the
 * baseline's rate); the manager's pass on a table with nothing to do
 * (what the worker pays every 10 minutes); and two reads on both tables after the purges (p50 /
 * p99 of BENCH_RETENTION_READS sequential runs): the first page of one account's request logs and
 * a one-day range of one key.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { maintainPartitions, PARTITIONED_TABLES } from '../activities/housekeeping/partitions';
import { REQUEST_LOG_RETENTION_DAYS } from '../domain/request-logs';
import { closeDb, db, initDb, makeDataSource } from '../lib/db';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { pct } from './harness';

const ROWS_PER_DAY = Number(process.env.BENCH_RETENTION_ROWS_PER_DAY ?? 40_000);
const DROP_DAYS = Number(process.env.BENCH_RETENTION_DROP_DAYS ?? 5);
const BATCH = Number(process.env.BENCH_RETENTION_BATCH ?? 500);
const READS = Number(process.env.BENCH_RETENTION_READS ?? 300);
const BASELINE_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const DAYS = REQUEST_LOG_RETENTION_DAYS;
const DAY = 86_400_000;
const log = (m: string) => process.stderr.write(`[retention] ${m}\n`);
const [REQUEST_LOGS] = PARTITIONED_TABLES;

/** Seeds `table` with ROWS_PER_DAY rows for each of the DAYS days before now (one statement per day). */
async function seed(table: string): Promise<void> {
  for (let d = 0; d < DAYS; d++) {
    await db().query(
      `INSERT INTO ${table}(id, account_id, livemode, caller_type, api_key_id, method, path, status, latency_ms, api_version, ip, created_at)
       SELECT 'req_seed_' || $1::int || '_' || g, 'acct_bench_' || (g % 50), true, 'business_key', 'key_bench_' || (g % 7), 'GET', '/v1/payment_links',
              CASE WHEN g % 20 = 0 THEN 404 ELSE 200 END, 5 + g % 40, '2026-09-04', '127.0.0.1',
              now() - make_interval(days => $1::int) + make_interval(secs => (g::double precision / $2::int) * 86000)
         FROM generate_series(1, $2::int) g`,
      [d, ROWS_PER_DAY],
    );
  }
  await db().query(`ANALYZE ${table}`);
}

/** One writer inserting BATCH-row batches into `table` until `stop()` is true; returns [startMs, latencyMs] per batch. */
async function writer(table: string, stop: () => boolean): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  let n = 0;
  while (!stop()) {
    const ids = Array.from({ length: BATCH }, (_, i) => `req_w_${process.pid}_${table}_${n}_${i}`);
    n++;
    const t0 = performance.now();
    await db().query(
      `INSERT INTO ${table}(id, account_id, livemode, caller_type, api_key_id, method, path, status, latency_ms, api_version, ip, created_at)
       SELECT id, 'acct_bench_w', true, 'business_key', 'key_bench_w', 'POST', '/v1/payment_links', 201, 12, '2026-09-04', '127.0.0.1', now()
         FROM unnest($1::text[]) id ON CONFLICT DO NOTHING`,
      [ids],
    );
    out.push([t0, performance.now() - t0]);
  }
  return out;
}

/** Runs the writer on `table` while `purge` runs (or for BASELINE_MS when null); the writer's figures over that window. */
async function measure(name: string, table: string, purge: (() => Promise<unknown>) | null): Promise<string> {
  let done = false;
  const w = writer(table, () => done);
  await new Promise((r) => setTimeout(r, 300));
  const [{ lsn: lsn0 }] = await db().query('SELECT pg_current_wal_lsn() AS lsn');
  const t0 = performance.now();
  if (purge) await purge();
  else await new Promise((r) => setTimeout(r, BASELINE_MS));
  const t1 = performance.now();
  const [{ mb }] = await db().query('SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), $1) / 1048576.0, 1) AS mb', [lsn0]);
  done = true;
  const samples = (await w)
    .filter(([s, l]) => s + l >= t0 && s <= t1)
    .map(([, l]) => l)
    .sort((a, b) => a - b);
  const secs = (t1 - t0) / 1000;
  return `| ${name} | ${purge ? `${(secs * 1000).toFixed(0)} ms` : '—'} | ${(samples.length / secs).toFixed(0)} | ${pct(samples, 50).toFixed(1)} | ${pct(samples, 99).toFixed(1)} | ${samples[samples.length - 1]?.toFixed(1)} | ${samples.length} | ${mb} (${(Number(mb) / secs).toFixed(1)}/s) |`;
}

async function main(): Promise<void> {
  const dir = path.join(os.tmpdir(), `payments-platform-retention-pg-${process.pid}`);
  const pg = await startEmbeddedPostgres({ dir, database: 'bench_retention', fast: true, log });
  try {
    const ds = makeDataSource(pg.url, 2);
    await ds.initialize();
    await ds.runMigrations({ transaction: 'each' });
    await ds.destroy();
    await initDb(pg.url, 4);

    log(`seeding ${DAYS} days x ${ROWS_PER_DAY} request logs into the partitioned table and an unpartitioned copy...`);
    await seed('request_logs');
    // The former schema (migrations 1763800200000 and 1763800800000: the BRIN served the prune).
    await db().query(`CREATE TABLE request_logs_flat (LIKE request_logs INCLUDING DEFAULTS);
      ALTER TABLE request_logs_flat ADD PRIMARY KEY (id);
      CREATE INDEX ON request_logs_flat(account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL;
      CREATE INDEX ON request_logs_flat(api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;
      CREATE INDEX ON request_logs_flat USING brin (created_at);`);
    await seed('request_logs_flat');
    await maintainPartitions(REQUEST_LOGS);
    const t = performance.now();
    await maintainPartitions(REQUEST_LOGS);
    const idleMs = performance.now() - t;
    const [{ n: before }] = await db().query('SELECT count(*)::int AS n FROM request_logs');

    const rows: string[] = [];
    rows.push(await measure('baseline: writer alone (partitioned table)', 'request_logs', null));
    let deleted = 0;
    rows.push(
      await measure(`delete: former batched DELETE of ${DROP_DAYS} days (unpartitioned table)`, 'request_logs_flat', async () => {
        for (;;) {
          const r: [unknown[], number] = await db().query(
            `DELETE FROM request_logs_flat WHERE ctid IN (
             SELECT ctid FROM request_logs_flat WHERE created_at < now() - make_interval(days => $1) AND id LIKE 'req_seed_%' LIMIT 5000)`,
            [REQUEST_LOG_RETENTION_DAYS - DROP_DAYS],
          );
          deleted += r[1];
          if (r[1] < 5000) break;
        }
      }),
    );
    let dropped = { dropped: [] as string[], rowsDropped: 0 };
    rows.push(
      await measure(`drop: partition manager dropping ${DROP_DAYS} daily partitions`, 'request_logs', async () => {
        dropped = await maintainPartitions(REQUEST_LOGS, new Date(Date.now() + DROP_DAYS * DAY));
      }),
    );

    // Reads on the same data, partitioned and not: the first page of `GET /request_logs` (newest
    // first, one account) and a one-day time range of one key (`GET /api_keys/{id}/usage?days=1`).
    const reads: string[] = [];
    for (const [name, sql] of [
      [
        'first page of one account',
        `SELECT * FROM %t r WHERE r.account_id = 'acct_bench_3' ORDER BY r.created_at DESC, r.id DESC LIMIT 26`,
      ],
      [
        'one day of one key (count)',
        `SELECT count(*) FROM %t r WHERE r.api_key_id = 'key_bench_2' AND r.account_id = 'acct_bench_2' AND r.created_at >= now() - interval '1 day'`,
      ],
    ] as const) {
      for (const table of ['request_logs', 'request_logs_flat']) {
        const lat: number[] = [];
        for (let i = 0; i < READS; i++) {
          const r0 = performance.now();
          await db().query(sql.replace('%t', table));
          lat.push(performance.now() - r0);
        }
        lat.sort((a, b) => a - b);
        reads.push(
          `| ${name} | ${table === 'request_logs' ? 'partitioned' : 'unpartitioned'} | ${pct(lat, 50).toFixed(2)} | ${pct(lat, 99).toFixed(2)} |`,
        );
      }
    }

    const out = [
      `request logs: ${before} rows in ${DAYS} daily partitions before the measure; batches of ${BATCH} rows, one writer; the purge removes ${DROP_DAYS} days`,
      `(DELETE removed ${deleted} rows; the drop removed ${dropped.rowsDropped} rows in ${dropped.dropped.length} partitions)`,
      `manager pass with nothing to do (the worker's every 10 minutes): ${idleMs.toFixed(1)} ms`,
      '',
      '| run | purge took | writer batches/s | p50 ms | p99 ms | max ms | batches | WAL MB in the window |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `reads, ${READS} sequential runs each (ms):`,
      '',
      '| read | table | p50 | p99 |',
      '|---|---|---|---|',
      ...reads,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await closeDb();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}-sock`, { recursive: true, force: true });
  }
}

main()
  .then(() => process.exit(0))
  .catch((e) => {
    process.stderr.write(`[retention] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
