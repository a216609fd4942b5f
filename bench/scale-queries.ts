/**
 * `npm run bench:scale-queries` (issue 27 items 1-2, decision 0077): the list and summary queries of
 * one large account, before and after migrations 1764610000000, 1764610100000 and 1764610200000,
 * with their plans.
 *
 * Starts a throwaway embedded PostgreSQL, runs every migration but those three, seeds with
 * `generate_series` one large account (SCALE_LINKS payment links, default 1,000,000, one payment
 * each; SCALE_EVENTS events, default 3,000,000; SCALE_PAYOUTS payouts, default 100,000; no link in
 * `needs_attention`, none `fiat_provider`, no `payout.settled` event, no failed payment, no
 * payout in `needs_you`, as in the issue's table) among 200 small accounts of 10 links and 30
 * events, then for each query:
 * - calls the product's own function (the route's query, `paginate` as the route does) SCALE_RUNS
 *   times (default 7): median and worst in ms;
 * - runs `EXPLAIN (ANALYZE, BUFFERS)` of every statement that call sent, and prints its plan node
 *   types (with relation and index) and execution time, and `SEQ SCAN OF A LARGE TABLE` when a
 *   plan reads `payment_links`, `payments`, `payouts` or `events` sequentially.
 * Then it runs the three migrations (timed: their index builds and the counters' backfill) and
 * measures again. "Before" answers the summaries by counting (today's queries: `linkSummaryByScan`,
 * `paymentSummaryByScan`, `scan: true` of the activity reads); "after" from the counts, and checks
 * both answers are equal.
 * One connection, no concurrency: the figures are single-query latencies on this machine.
 */
import 'reflect-metadata';
// The server stops under the pool at the end: keep its warning out of the printed figures.
process.env.LOG_LEVEL ??= 'error';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { activitySummary, listActivity } from '../activities/activity/queries';
import { listEvents } from '../activities/events/queries';
import { listPayments, paymentSummaryByScan, paymentSummaryFromCounts, type PaymentFilters } from '../activities/payments/queries';
import { payoutListQuery } from '../activities/payouts/queries';
import { linkSummaryByScan, linkSummaryFromCounts, listLinks, type LinkFilters } from '../activities/payment-links/queries';
import { systemScope } from '../activities/scope';
import { encodeCursor } from '../domain/pagination';
import { ENTITIES, MIGRATIONS } from '../entities';
import { closeDb, db, initDb } from '../lib/db';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { paginate } from '../lib/pagination';

const LINKS = Number(process.env.SCALE_LINKS ?? 1_000_000);
const EVENTS = Number(process.env.SCALE_EVENTS ?? 3_000_000);
const PAYOUTS = Number(process.env.SCALE_PAYOUTS ?? 100_000);
const RUNS = Number(process.env.SCALE_RUNS ?? 7);
const BIG = 'acct_scale_big';
const log = (m: string) => process.stderr.write(`[scale-queries] ${m}\n`);
const THESE_MIGRATIONS = ['ListIndexesLinkCounts1764610000000', 'EventCounts1764610100000', 'PaymentListIndexesCounts1764610200000'];
/** Migrations that change what those three created: held back with them and run after them. */
const FOLLOWING_MIGRATIONS = ['LinearCounterTriggers1764660000000'];
const NOW = new Date();

/** Statements the product sent while `capturing` (TypeORM's logger sees every query). */
let capturing: Array<{ sql: string; params: unknown[] }> | null = null;

async function seed(): Promise<void> {
  const q = (s: string) => db().query(s);
  log(`seeding ${LINKS} links, ${EVENTS} events into ${BIG}, 200 small accounts`);
  await q(`INSERT INTO users(id, email) VALUES ('usr_scale', 'scale@example.com')`);
  await q(`INSERT INTO accounts(id, display_name, email, owner_user_id)
    SELECT a, a, a || '@example.com', 'usr_scale' FROM (SELECT '${BIG}' AS a UNION ALL SELECT 'acct_scale_empty' UNION ALL SELECT 'acct_scale_' || g FROM generate_series(1, 200) g) x`);
  // Statuses: every group but needs_attention; settlement kinds: crypto_only or none.
  const links = (account: string, from: number, n: number) => `
    INSERT INTO payment_links(id, account_id, livemode, status, title, memo, invoice_number, reference_id, amount_minor, currency, decimals,
      reminder_schedule, settlement_kind, short_code, created_at, updated_at)
    SELECT 'pl_s' || g, '${account}', true,
      (ARRAY['paid','settled','expired','active','viewed','cancelled','draft','processing'])[1 + g % 8],
      'Invoice for order ' || g, CASE WHEN g % 3 = 0 THEN 'memo ' || md5(g::text) END, 'INV-' || lpad(g::text, 8, '0'),
      'CP-s' || g, 1000 + g % 5000, 'USD', 2, '{}'::jsonb, CASE WHEN g % 2 = 0 THEN 'crypto_only' END, 's' || g,
      now() - make_interval(secs => g), now()
    FROM generate_series(${from}, ${from + n - 1}) g`;
  await q(links(BIG, 1, LINKS));
  for (let a = 1; a <= 200; a++) await q(links(`acct_scale_${a}`, LINKS + a * 10, 10));
  const types = `ARRAY['payment_link.created','payment_link.updated','payment.created','payment.paid','payment.settled','payment_link.paid','payment_link.expired']`;
  const events = (account: string, from: number, n: number) => `
    INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, created_at)
    SELECT 'evt_s' || g, '${account}', true, (${types})[1 + g % 7], 'payment_link', 'pl_s' || (g / 3), '{}'::jsonb, '2026-09-04',
      now() - make_interval(secs => (${EVENTS + 1} - g) * 2)
    FROM generate_series(${from}, ${from + n - 1}) g ORDER BY g`;
  await q(events(BIG, 1, EVENTS));
  // One payment per link (none failed, none settling to a bank); payouts none in needs_you.
  await q(`INSERT INTO payments(id, account_id, livemode, payment_link_id, status, payment_rail, currency, decimals, invoice_minor, fee_minor,
      amount_expected_minor, settlement, expires_at, created_at, updated_at)
    SELECT 'pay_s' || g, account_id, true, id, (ARRAY['awaiting','paid','settled','expired','underpaid','overpaid'])[1 + g % 6], 'native', 'USD', 2,
      amount_minor, 0, amount_minor, CASE WHEN g % 2 = 0 THEN 'crypto' END, created_at + interval '1 day', created_at + interval '1 second', now()
    FROM (SELECT l.*, row_number() OVER () AS g FROM payment_links l) x`);
  await q(`INSERT INTO payouts(id, account_id, livemode, status, invoice_minor, currency, decimals, corridor_id, fiat_rail, payer_type, fee_bps,
      capability_version, created_at, updated_at)
    SELECT 'po_s' || g, '${BIG}', true, (ARRAY['funds_received','processing','paid','settled','failed','returned','expired','cancelled'])[1 + g % 8],
      1000, 'USD', 2, 'us_ach', 'ach', 'business', 100, 'v1', now() - make_interval(secs => g * 30), now()
    FROM generate_series(1, ${PAYOUTS}) g`);
  for (let a = 1; a <= 200; a++) await q(events(`acct_scale_${a}`, EVENTS + a * 30, 30));
  await q('ANALYZE');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
function nodes(p: PlanNode, out: string[] = []): string[] {
  out.push(p['Node Type'] + (p['Index Name'] ? ` ${p['Index Name']}` : p['Relation Name'] ? ` ${p['Relation Name']}` : ''));
  for (const c of p.Plans ?? []) nodes(c, out);
  return out;
}
function seqScans(p: PlanNode): string[] {
  const here =
    p['Node Type'] === 'Seq Scan' && ['payment_links', 'payments', 'payouts', 'events'].includes(p['Relation Name'] ?? '')
      ? [p['Relation Name']!]
      : [];
  return [...here, ...(p.Plans ?? []).flatMap(seqScans)];
}

/** Times `fn` (RUNS calls) and explains every statement of one more call. */
async function measure(
  label: string,
  fn: () => Promise<unknown>,
): Promise<{ label: string; p50: number; max: number; answer: unknown; plans: string[]; seq: string[] }> {
  const times: number[] = [];
  let answer: unknown;
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    answer = await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  capturing = [];
  await fn();
  const sent = capturing;
  capturing = null;
  const plans: string[] = [];
  const seq: string[] = [];
  for (const s of sent) {
    if (!/^\s*SELECT/i.test(s.sql)) continue;
    const [row] = (await db().query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.sql}`, s.params)) as Array<{
      'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }>;
    }>;
    const plan = row['QUERY PLAN'][0];
    plans.push(`${plan['Execution Time'].toFixed(2)} ms: ${nodes(plan.Plan).join(' > ')}`);
    seq.push(...seqScans(plan.Plan));
  }
  return { label, p50: median(times), max: Math.max(...times), answer, plans, seq };
}

const CREATES = Number(process.env.SCALE_CREATES ?? 2000);
let createSeq = 0;

/**
 * What a link create writes (the link row, its event), one transaction each, into the large
 * account and into an empty one, interleaved in batches of 100 so host drift weighs on both:
 * p50 and mean per create in ms. Not the product's whole create (no HTTP, idempotency record,
 * NOTIFY): the rows whose indexes and counts grow with the account.
 */
async function creates(): Promise<{ big: [number, number]; empty: [number, number] }> {
  const one = async (account: string) => {
    const i = ++createSeq;
    const t0 = process.hrtime.bigint();
    await db().transaction(async (m) => {
      await m.query(
        `INSERT INTO payment_links(id, account_id, livemode, status, title, invoice_number, reference_id, amount_minor, currency, decimals,
          reminder_schedule, settlement_kind, short_code)
        VALUES ($1, $2, true, 'draft', 'Created invoice ' || $3, 'NEW-' || $3, 'CP-new' || $3, 1000, 'USD', 2, '{}', 'crypto_only', 'n' || $3)`,
        [`pl_new${i}`, account, i],
      );
      await m.query(
        `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version)
        VALUES ($1, $2, true, 'payment_link.created', 'payment_link', $3, '{}', '2026-09-04')`,
        [`evt_new${i}`, account, `pl_new${i}`],
      );
    });
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const big: number[] = [];
  const empty: number[] = [];
  for (let b = 0; b < CREATES / 100; b++) {
    for (let k = 0; k < 100; k++) big.push(await one(BIG));
    for (let k = 0; k < 100; k++) empty.push(await one('acct_scale_empty'));
  }
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  return { big: [median(big), mean(big)], empty: [median(empty), mean(empty)] };
}

async function suite(phase: 'before' | 'after'): Promise<Array<Awaited<ReturnType<typeof measure>>>> {
  const scope = systemScope(BIG, true);
  const deep: Array<{ created_at: Date; id: string }> = await db().query(
    `SELECT created_at, id FROM payment_links WHERE account_id = $1 AND livemode ORDER BY created_at DESC, id DESC OFFSET 10000 LIMIT 1`,
    [BIG],
  );
  const deepCursor = encodeCursor({ t: deep[0].created_at.toISOString(), id: deep[0].id });
  const deepP: Array<{ created_at: Date; id: string }> = await db().query(
    `SELECT created_at, id FROM payments WHERE account_id = $1 AND livemode ORDER BY created_at DESC, id DESC OFFSET 10000 LIMIT 1`,
    [BIG],
  );
  const deepPayment = encodeCursor({ t: deepP[0].created_at.toISOString(), id: deepP[0].id });
  const payments = (f: PaymentFilters, cursor?: string) => paginate(listPayments(scope, f).query, 'p', { limit: 25, cursor }, (p) => p.id);
  const paymentSummary = (f: PaymentFilters) => (phase === 'before' ? paymentSummaryByScan(scope, f) : paymentSummaryFromCounts(scope, f));
  const page = (f: LinkFilters, cursor?: string) => paginate(listLinks(scope, f).query, 'l', { limit: 25, cursor }, (l) => l.id);
  const summary = (f: LinkFilters) =>
    phase === 'before' || f.q || f.client_id ? linkSummaryByScan(scope, f) : linkSummaryFromCounts(scope, f);
  const out = [];
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['GET /payment_links?limit=25', () => page({})],
    ['GET /payment_links, 10,000 rows deep', () => page({}, deepCursor)],
    ['?status_group=needs_attention (no rows)', () => page({ status_group: 'needs_attention' })],
    ['?status_group=paid', () => page({ status_group: 'paid' })],
    ['?status_group=ended, 10,000 rows deep', () => page({ status_group: 'ended' }, deepCursor)],
    ['?settlement_kind=fiat_provider (no rows)', () => page({ settlement_kind: 'fiat_provider' })],
    ['?settlement_kind=crypto_only', () => page({ settlement_kind: 'crypto_only' })],
    ['?client_id=cli_none (no rows)', () => page({ client_id: 'cli_none' })],
    ['?q=INV-00012345 (one row)', () => page({ q: 'INV-00012345' })],
    ['?q=zzqq (no rows)', () => page({ q: 'zzqq' })],
    ['?q=order (every row)', () => page({ q: 'order' })],
    ['expand=summary', () => summary({})],
    ['expand=summary&status_group=open', () => summary({ status_group: 'open' })],
    ['expand=summary&settlement_kind=fiat_provider', () => summary({ settlement_kind: 'fiat_provider' })],
    ['GET /payments?limit=25', () => payments({})],
    ['GET /payments?status=failed (no rows)', () => payments({ status: 'failed' })],
    ['GET /payments?status=paid, 10,000 rows deep', () => payments({ status: 'paid' }, deepPayment)],
    ['GET /payments?settlement=bank (no rows)', () => payments({ settlement: 'bank' })],
    ['GET /payments?expand=summary', () => paymentSummary({})],
    ['GET /payments?expand=summary&status=paid', () => paymentSummary({ status: 'paid' })],
    [
      'GET /payouts?status_group=needs_you (no rows)',
      () => paginate(payoutListQuery(scope, { status_group: 'needs_you' }), 'p', { limit: 25 }, (p) => p.id),
    ],
    ['GET /payouts?status_group=done', () => paginate(payoutListQuery(scope, { status_group: 'done' }), 'p', { limit: 25 }, (p) => p.id)],
    ['GET /events?limit=25', () => listEvents(scope, { limit: 25 })],
    ['GET /events?type=payout.settled (no rows)', () => listEvents(scope, { limit: 25, type: 'payout.settled' })],
    ['GET /events?type=payment.paid', () => listEvents(scope, { limit: 25, type: 'payment.paid' })],
    ['GET /activity?limit=25', () => listActivity(scope, { limit: 25 })],
    ['GET /activity?expand=summary (all time)', () => listActivity(scope, { limit: 25, summary: true, scan: phase === 'before' })],
    [
      'GET /activity?expand=summary&since=7 days ago',
      () =>
        listActivity(scope, {
          limit: 25,
          summary: true,
          since: new Date(NOW.getTime() - 7 * 86400_000 + 12_345).toISOString(),
          scan: phase === 'before',
        }),
    ],
    [
      'GET /activity/summary (30 days)',
      () => activitySummary(scope, { start: new Date(NOW.getTime() - 30 * 86400_000), end: NOW, scan: phase === 'before' }),
    ],
    [
      'GET /activity/summary (2 hours)',
      () => activitySummary(scope, { start: new Date(NOW.getTime() - 2 * 3600_000), end: NOW, scan: phase === 'before' }),
    ],
  ];
  for (const [label, fn] of cases) {
    log(`${phase}: ${label}`);
    out.push(await measure(label, fn));
  }
  return out;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-queries-'));
  fs.chmodSync(dir, 0o777);
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), database: 'scale', fast: true, log });
  try {
    const early = new DataSource({
      type: 'postgres',
      url: pg.url,
      entities: ENTITIES,
      migrations: MIGRATIONS.filter((m) => !THESE_MIGRATIONS.includes(m.name) && !FOLLOWING_MIGRATIONS.includes(m.name)),
      logging: false,
    });
    await early.initialize();
    await early.runMigrations();
    await early.destroy();
    const ds = await initDb(pg.url, 2);
    const logger = ds.logger;
    Object.assign(ds, {
      logger: new Proxy(logger, {
        get: (t, k) =>
          k === 'logQuery'
            ? (sql: string, params?: unknown[]) => {
                capturing?.push({ sql, params: params ?? [] });
              }
            : Reflect.get(t, k),
      }),
    });
    const t0 = Date.now();
    await seed();
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const before = await suite('before');
    log('before: creates');
    const createsBefore = await creates();
    // The after phase reads the same rows as the before phase.
    await db().query(`DELETE FROM events WHERE id LIKE 'evt\\_new%'`);
    await db().query(`DELETE FROM payment_links WHERE id LIKE 'pl\\_new%'`);
    const m0 = Date.now();
    await ds.runMigrations();
    await db().query('ANALYZE');
    const migrationS = (Date.now() - m0) / 1000;
    const after = await suite('after');
    log('after: creates');
    const createsAfter = await creates();

    const lines: string[] = [];
    lines.push(
      `large account: ${LINKS} links, ${EVENTS} events; ${RUNS} calls each, one connection; migrations 1764610000000, 1764610100000 and 1764610200000 took ${migrationS.toFixed(1)} s`,
    );
    lines.push('');
    lines.push('| query | before p50 (max) ms | after p50 (max) ms | same answer |');
    lines.push('|---|---|---|---|');
    for (let i = 0; i < before.length; i++) {
      const b = before[i];
      const a = after[i];
      lines.push(
        `| ${b.label} | ${b.p50.toFixed(1)} (${b.max.toFixed(1)}) | ${a.p50.toFixed(1)} (${a.max.toFixed(1)}) | ${JSON.stringify(b.answer) === JSON.stringify(a.answer) ? 'yes' : '**NO**'} |`,
      );
    }
    const c = (x: [number, number]) => `${x[0].toFixed(2)} / ${x[1].toFixed(2)}`;
    lines.push(
      '',
      `creates (a link and its event, one transaction; ${CREATES} per account per phase), p50 / mean ms:`,
      '',
      '| phase | large account | empty account | large / empty (mean) |',
      '|---|---|---|---|',
      `| before | ${c(createsBefore.big)} | ${c(createsBefore.empty)} | ${((createsBefore.big[1] / createsBefore.empty[1]) * 100).toFixed(0)}% |`,
      `| after | ${c(createsAfter.big)} | ${c(createsAfter.empty)} | ${((createsAfter.big[1] / createsAfter.empty[1]) * 100).toFixed(0)}% |`,
    );
    for (const [phase, rows] of [
      ['before', before],
      ['after', after],
    ] as const) {
      lines.push('', `plans ${phase}:`);
      for (const r of rows) {
        lines.push(`- ${r.label}${r.seq.length ? `  **SEQ SCAN OF A LARGE TABLE: ${r.seq.join(', ')}**` : ''}`);
        for (const p of r.plans) lines.push(`    ${p}`);
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await closeDb().catch(() => undefined);
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
