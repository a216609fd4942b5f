/**
 * `npm run bench:scale [-- --scale 0.05] [-- --no-fail]`: the product on a large account among many
 * small ones (issue 27 item 1), each figure beside the same run's empty account.
 *
 * 1. A private stack (scripts/stack.ts, API and worker as separate processes) on an embedded
 *    PostgreSQL with auto_explain preloaded (bench/scale/explain.ts).
 * 2. Templates through the product's own write paths, on the large account: BENCH_SCALE_TEMPLATE_LINKS
 *    (200) links by `POST /v1/payment_links`, a quarter of them cancelled and a quarter activated
 *    and paid in full through `/sim/chain/transfers`; 5 draft payouts; one payroll run of 500 items.
 *    Then the recovery sweeps are timed on this nearly empty database (the baseline).
 * 3. Bulk load in SQL (bench/scale/seed.ts): copies of those rows up to 1,000,000 links with their
 *    payments, 10,000,000 events, 20,000,000 request logs, 100,000 payouts, 1,000 payroll runs of
 *    500 items, and 10,000 small accounts, all times `--scale`; each table's duration printed.
 * 4. Reads: every list target's first page, a page 10,000 rows deep by cursor, each documented
 *    filter of GET /payment_links, `expand=summary`, `GET /events` by type and object,
 *    `/request_logs` by time range, at 1, 8 and 32 connections: p50 / p99, large and empty account.
 *    Each cell runs BENCH_SCALE_CELL_REQUESTS (200) requests or BENCH_SCALE_CELL_SECONDS (3 s),
 *    whichever ends first.
 * 5. Plans: each read once more with auto_explain on (ANALYZE, BUFFERS); every statement logged
 *    is checked for a Seq Scan of a table over 100,000 rows.
 * 6. Writes: `POST /v1/payment_links` at 8 connections for BENCH_SCALE_POST_SECONDS (10 s) per
 *    account, with a webhook endpoint on `payment_link.created`: req/s, and the dispatcher's lag
 *    (POST answered -> webhook received) p50 / p95.
 * 7. Recovery sweeps again (each ensure*Workflows worker.ts calls at start, timed in this process).
 * Prints a table and appends it to bench/README.md ("Scale (issue 27)" section, BENCH_SCALE_README=0
 * to skip). Exits 1 when a request-path statement seq-scans a large table, unless `--no-fail`.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Pool } from 'undici';
import { provisionAccount, type DevCredentials } from '../activities/accounts/commands';
import { ensureLinkWorkflows } from '../activities/payment-links/signals';
import { ensurePaymentWorkflows } from '../activities/payments/signals';
import { ensurePayoutWorkflows } from '../activities/payouts/signals';
import { ensurePayrollWorkflows } from '../activities/payroll/signals';
import { ensureConversionWorkflows } from '../activities/conversions/signals';
import { ensureDepositIntentWorkflows } from '../activities/deposit-intents/signals';
import { ensureOfframpWorkflows } from '../activities/offramp-intents/signals';
import { ensureSendIntentWorkflows } from '../activities/send-intents/signals';
import { ensureVirtualAccountWorkflows } from '../activities/virtual-accounts/signals';
import { ensureOrderWorkflows } from '../activities/orders/signals';
import { ensureSubscriptionWorkflows } from '../activities/subscriptions/signals';
import { ensureWebhookEndpointWorkflows } from '../activities/webhooks/signals';
import { closeDb, db, initDb } from '../lib/db';
import { startStack, type Stack } from '../scripts/stack';
import { pct, UNLIMITED } from './harness';
import { largeSeqScans, startExplainServer, type ExplainServer } from './scale/explain';
import { seedScale, type SeedTimes } from './scale/seed';
import { openStream } from '../scripts/sse-client';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const SCALE = Number(arg('--scale') ?? process.env.BENCH_SCALE ?? 1);
const NO_FAIL = process.argv.includes('--no-fail');
const CELL_REQUESTS = Number(process.env.BENCH_SCALE_CELL_REQUESTS ?? 200);
const CELL_SECONDS = Number(process.env.BENCH_SCALE_CELL_SECONDS ?? 3);
const POST_SECONDS = Number(process.env.BENCH_SCALE_POST_SECONDS ?? 10);
const TEMPLATE_LINKS = Number(process.env.BENCH_SCALE_TEMPLATE_LINKS ?? 200);
const CONNECTIONS = [1, 8, 32];
const DEPTH = 10_000;
const LARGE_ROWS = 100_000;
/** The label of the recovery sweeps' plan window (not a request path: reported, never failing). */
const SWEEP = 'recovery sweeps';
const log = (m: string) => process.stderr.write(`[bench:scale] ${new Date().toISOString().slice(11, 19)} ${m}\n`);

type Json = any;

/** One JSON call as `key` (no key: public / sim); throws on a non-2xx answer. */
async function call(api: string, key: string | null, method: string, p: string, body?: unknown): Promise<Json> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (method !== 'GET') headers['Idempotency-Key'] = `scale_${crypto.randomBytes(12).toString('hex')}`;
  const r = await fetch(`${api}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Runs `fn` over `list` with `n` in flight. */
async function inPool<T>(list: T[], n: number, fn: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < list.length) {
        const i = next++;
        await fn(list[i], i);
      }
    }),
  );
}

/** The template rows, through the API and /sim (see the module doc). */
async function makeTemplates(api: string, key: string): Promise<void> {
  const idx = Array.from({ length: TEMPLATE_LINKS }, (_, i) => i);
  const links: Json[] = [];
  await inPool(idx, 8, async (i) => {
    links[i] = await call(api, key, 'POST', '/v1/payment_links', {
      amount: { amount: String(1000 + i), currency: 'USD', decimals: 2 },
      title: `Scale order ${i} ${['consulting', 'design', 'hosting', 'support'][i % 4]}`,
      memo: `Scale memo ${i}`,
      invoice_number: `INV-${100000 + i}`,
      accepted_rail_kinds: ['crypto'],
    });
  });
  const cancel = links.filter((_, i) => i % 4 === 1);
  const pay = links.filter((_, i) => i % 4 === 2);
  await inPool(cancel, 8, async (l) => {
    await call(api, key, 'POST', `/v1/payment_links/${l.id}/cancel`, {});
  });
  await inPool(pay, 8, async (l) => {
    const act = await call(api, key, 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    const token = String(act.url).split('/pay/')[1];
    const p = await call(api, null, 'POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' });
    const di = p.deposit_instructions;
    await call(api, null, 'POST', '/sim/chain/transfers', {
      chain: di.chain,
      to_address: di.address,
      asset: di.asset,
      amount: String(di.amount.amount),
    });
  });
  // Wait until the paid links have left the live statuses (their workflows settle them).
  const deadline = Date.now() + 120_000;
  for (;;) {
    const live = Number(
      (
        await db().query(`SELECT count(*)::int AS n FROM payment_links WHERE id = ANY($1) AND status IN ('active','viewed','processing')`, [
          pay.map((l) => l.id),
        ])
      )[0].n,
    );
    const unsettled = Number(
      (
        await db().query(`SELECT count(*)::int AS n FROM payments WHERE payment_link_id = ANY($1) AND status <> 'settled'`, [
          pay.map((l) => l.id),
        ])
      )[0].n,
    );
    if ((live === 0 && unsettled === 0) || Date.now() > deadline) {
      log(`templates: ${pay.length} paid links, ${live} still live, ${unsettled} payments not settled (left out of the copies)`);
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  for (let i = 0; i < 5; i++)
    await call(api, key, 'POST', '/v1/payouts', {
      invoice_amount: { amount: String(5000 + i), currency: 'USD', decimals: 2 },
      corridor_id: 'usd_ach',
      note: `Scale payout ${i}`,
    });
  const rows = Array.from({ length: 500 }, (_, i) => ({
    email: `scale${i}@example.com`,
    name: `Scale Recipient ${i}`,
    amount: { amount: '2000', currency: 'USD', decimals: 2 },
  }));
  await call(api, key, 'POST', '/v1/payroll_runs', { title: 'Scale payroll', currency: 'USD', rows });
  // A few reads so the request log has GET rows too.
  for (const p of ['/v1/payment_links?limit=5', '/v1/events?limit=5', '/v1/payouts?limit=5', '/v1/payroll_runs?limit=5'])
    await call(api, key, 'GET', p);
}

/** The recovery sweeps worker.ts runs at start, each timed (ms) with how many rows it woke. */
async function sweeps(): Promise<{ name: string; ms: number; n: number }[]> {
  const all: [string, () => Promise<unknown>][] = [
    ['payments', () => ensurePaymentWorkflows()],
    ['payment_links', () => ensureLinkWorkflows()],
    ['payouts', () => ensurePayoutWorkflows()],
    ['payroll', () => ensurePayrollWorkflows()],
    ['send_intents', () => ensureSendIntentWorkflows()],
    ['virtual_accounts', () => ensureVirtualAccountWorkflows()],
    ['offramp', () => ensureOfframpWorkflows()],
    ['orders', () => ensureOrderWorkflows()],
    ['subscriptions', () => ensureSubscriptionWorkflows()],
    ['deposit_intents', () => ensureDepositIntentWorkflows()],
    ['conversions', () => ensureConversionWorkflows()],
    ['webhook_endpoints', () => ensureWebhookEndpointWorkflows()],
  ];
  const out: { name: string; ms: number; n: number }[] = [];
  for (const [name, fn] of all) {
    const t0 = performance.now();
    const n = await fn();
    out.push({ name, ms: performance.now() - t0, n: typeof n === 'number' ? n : 0 });
  }
  return out;
}

interface Target {
  label: string;
  path: (acct: 'large' | 'empty') => string | null;
}
interface Cell {
  p50: number;
  p99: number;
  n: number;
  errors: number;
}

/** GET `p` with `conns` connections: CELL_REQUESTS requests or CELL_SECONDS, whichever first. */
async function cell(api: string, key: string, p: string, conns: number): Promise<Cell> {
  const pool = new Pool(api, { connections: conns, pipelining: 1 });
  const lat: number[] = [];
  let errors = 0;
  let started = 0;
  const deadline = performance.now() + CELL_SECONDS * 1000;
  try {
    await Promise.all(
      Array.from({ length: conns }, async () => {
        let mine = 0;
        while (started < CELL_REQUESTS && (mine === 0 || performance.now() < deadline)) {
          started++;
          mine++;
          const t0 = performance.now();
          const r = await pool.request({ method: 'GET', path: p, headers: { 'x-api-key': key } });
          await r.body.text();
          if (r.statusCode >= 300) errors++;
          lat.push(performance.now() - t0);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length, errors };
}

/** The cursor of the page starting DEPTH rows into `listPath` (limit=100 walk), or null when shorter. */
async function deepCursor(api: string, key: string, listPath: string): Promise<string | null> {
  let cursor: string | null = null;
  const sep = listPath.includes('?') ? '&' : '?';
  for (let seen = 0; seen < DEPTH;) {
    const page: Json = await call(api, key, 'GET', `${listPath}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen += page.data.length;
    if (!page.has_more) return null;
    cursor = page.next_cursor;
  }
  return cursor;
}

/** Webhook receiver: when each `payment_link.created` arrived (performance.now()), by link id. */
async function receiver(): Promise<{ url: string; at: Map<string, number>; close(): void }> {
  const at = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      try {
        const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { object: { id: string } } };
        if (e.type === 'payment_link.created' && !at.has(e.data.object.id)) at.set(e.data.object.id, now);
      } catch {
        /* not an event */
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, at, close: () => server.close() };
}

/**
 * POST /v1/payment_links at 8 connections for POST_SECONDS; req/s, p50/p99, the dispatcher's lag
 * (POST answered -> webhook received) and the outbox tail's (POST answered -> the event's frame on
 * `GET /v1/events/stream?type=payment_link.created`, api/stream-hub.ts), ms.
 */
async function writes(
  api: string,
  key: string,
): Promise<{
  rps: number;
  p50: number;
  p99: number;
  lag50: number;
  lag95: number;
  missing: number;
  tail50: number;
  tail95: number;
  tailMissing: number;
}> {
  const rx = await receiver();
  await call(api, key, 'POST', '/v1/webhook_endpoints', { url: rx.url, event_types: ['payment_link.created'] });
  const framed = new Map<string, number>();
  const stream = openStream(api, key, { query: '?type=payment_link.created' });
  const streamOpen = performance.now() + 10_000;
  while (stream.opens === 0 && performance.now() < streamOpen) await new Promise((r) => setTimeout(r, 50));
  let seenFrames = 0;
  const frameTimer = setInterval(() => {
    for (; seenFrames < stream.frames.length; seenFrames++) {
      const fr = stream.frames[seenFrames];
      framed.set(fr.data?.data?.object?.id, fr.at - performance.timeOrigin); // Date.now() to performance.now()
    }
  }, 20);
  const pool = new Pool(api, { connections: 8, pipelining: 1 });
  const answered = new Map<string, number>();
  const lat: number[] = [];
  const t0 = performance.now();
  const end = t0 + POST_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const r = await pool.request({
          method: 'POST',
          path: '/v1/payment_links',
          headers: {
            'x-api-key': key,
            'content-type': 'application/json',
            'idempotency-key': `scale_${crypto.randomBytes(12).toString('hex')}`,
          },
          body: JSON.stringify({
            amount: { amount: '1000', currency: 'USD', decimals: 2 },
            title: 'Scale write',
            accepted_rail_kinds: ['crypto'],
          }),
        });
        const b = (await r.body.json()) as Json;
        const now = performance.now();
        lat.push(now - s);
        if (r.statusCode < 300) answered.set(b.id, now);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  const wait = performance.now() + 30_000;
  while ([...answered.keys()].some((id) => !rx.at.has(id) || !framed.has(id)) && performance.now() < wait)
    await new Promise((r) => setTimeout(r, 200));
  rx.close();
  clearInterval(frameTimer);
  stream.close();
  const lags = [...answered]
    .filter(([id]) => rx.at.has(id))
    .map(([id, t]) => rx.at.get(id)! - t)
    .sort((a, b) => a - b);
  const tails = [...answered]
    .filter(([id]) => framed.has(id))
    .map(([id, t]) => framed.get(id)! - t)
    .sort((a, b) => a - b);
  lat.sort((a, b) => a - b);
  return {
    rps: answered.size / seconds,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    lag50: pct(lags, 50),
    lag95: pct(lags, 95),
    missing: answered.size - lags.length,
    tail50: pct(tails, 50),
    tail95: pct(tails, 95),
    tailMissing: answered.size - tails.length,
  };
}

const f = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : '-');

async function measure(stack: Stack, pg: ExplainServer, large: DevCredentials, empty: DevCredentials): Promise<boolean> {
  const api = `${stack.apiUrl}`;
  const out: string[] = [];
  log(`templates through the API on the large account (${TEMPLATE_LINKS} links)...`);
  await makeTemplates(api, large.live_key);
  log('recovery sweeps on the nearly empty database...');
  const sweepsBefore = await sweeps();

  log(`seeding at scale ${SCALE}...`);
  const seed: SeedTimes[] = await seedScale(stack.databaseUrl, {
    large: large.account_id,
    emptyAccount: empty.account_id,
    scale: SCALE,
    log,
  });
  const counts: { relname: string; n: string }[] = await db().query(
    `SELECT relname, reltuples::bigint::text AS n FROM pg_class WHERE relkind IN ('r','p') AND relnamespace = 'public'::regnamespace AND reltuples > $1 ORDER BY reltuples DESC`,
    [LARGE_ROWS],
  );
  const largeTables = new Set(counts.map((r) => r.relname));
  out.push(
    `Scale ${SCALE}: tables over ${LARGE_ROWS.toLocaleString('en-US')} rows: ${counts.map((r) => `${r.relname} ${Number(r.n).toLocaleString('en-US')}`).join(', ') || 'none'}`,
  );
  out.push(
    '',
    '| seeding | rows | seconds |',
    '|---|---|---|',
    ...seed.map((s) => `| ${s.table} | ${s.rows.toLocaleString('en-US')} | ${s.seconds.toFixed(1)} |`),
  );

  const keyOf = (a: 'large' | 'empty') => (a === 'large' ? large.live_key : empty.live_key);
  const objectId: string =
    (
      await db().query(`SELECT object_id FROM events WHERE account_id = $1 AND object_type = 'payment' ORDER BY seq DESC LIMIT 1`, [
        large.account_id,
      ])
    )[0]?.object_id ?? 'pay_none';
  const hourAgo = new Date(Date.now() - 86_400_000 * 3).toISOString();
  const hourAgoEnd = new Date(Date.now() - 86_400_000 * 3 + 3_600_000).toISOString();
  const lists = ['/v1/payment_links', '/v1/payments', '/v1/events', '/v1/request_logs', '/v1/payouts', '/v1/payroll_runs', '/v1/activity'];
  const deep = new Map<string, string | null>();
  for (const l of lists)
    deep.set(
      l,
      await deepCursor(api, large.live_key, l).catch((e) => {
        log(`deep cursor ${l}: ${String(e).slice(0, 200)}`);
        return null;
      }),
    );
  const targets: Target[] = [
    ...lists.map((l) => ({ label: `GET ${l.slice(3)}?limit=25`, path: () => `${l}?limit=25` })),
    ...lists.map((l) => ({
      label: `GET ${l.slice(3)} 10,000 deep`,
      path: (a: 'large' | 'empty') => (a === 'large' && deep.get(l) ? `${l}?limit=25&cursor=${encodeURIComponent(deep.get(l)!)}` : null),
    })),
    ...['open', 'needs_attention', 'paid', 'ended'].map((g) => ({
      label: `GET /payment_links?status_group=${g}`,
      path: () => `/v1/payment_links?limit=25&status_group=${g}`,
    })),
    ...['crypto_only', 'fiat_provider'].map((k) => ({
      label: `GET /payment_links?settlement_kind=${k}`,
      path: () => `/v1/payment_links?limit=25&settlement_kind=${k}`,
    })),
    { label: 'GET /payment_links?q=INV-100017 (invoice number)', path: () => '/v1/payment_links?limit=25&q=INV-100017' },
    { label: 'GET /payment_links?q=hosting (title)', path: () => '/v1/payment_links?limit=25&q=hosting' },
    { label: 'GET /payment_links?q=zzz (no match)', path: () => '/v1/payment_links?limit=25&q=zzz' },
    { label: 'GET /payment_links?client_id=cli_none', path: () => '/v1/payment_links?limit=25&client_id=cli_none' },
    { label: 'GET /payment_links?expand=summary', path: () => '/v1/payment_links?limit=25&expand=summary' },
    { label: 'GET /activity?expand=summary', path: () => '/v1/activity?limit=25&expand=summary' },
    { label: 'GET /events?type=payout.settled (no rows)', path: () => '/v1/events?limit=25&type=payout.settled' },
    { label: 'GET /events?type=payment_link.created', path: () => '/v1/events?limit=25&type=payment_link.created' },
    { label: 'GET /events?object=<payment>', path: () => `/v1/events?limit=25&object=${objectId}` },
    {
      label: 'GET /request_logs since..until (1 h, 3 days ago)',
      path: () => `/v1/request_logs?limit=25&since=${encodeURIComponent(hourAgo)}&until=${encodeURIComponent(hourAgoEnd)}`,
    },
    { label: 'GET /request_logs?expand=summary', path: () => '/v1/request_logs?limit=25&expand=summary' },
  ];

  out.push('', `| request | conns | empty p50 | empty p99 | large p50 | large p99 | large n |`, '|---|---|---|---|---|---|---|');
  for (const t of targets) {
    for (const c of CONNECTIONS) {
      const row: Record<string, Cell | null> = {};
      for (const a of ['empty', 'large'] as const) {
        const p = t.path(a);
        row[a] = p ? await cell(api, keyOf(a), p, c) : null;
        if (row[a]?.errors) log(`${t.label} (${a}, ${c} conns): ${row[a]!.errors} non-2xx answers`);
      }
      const e = row.empty;
      const l = row.large;
      const line = `| ${t.label} | ${c} | ${e ? f(e.p50) : '-'} | ${e ? f(e.p99) : '-'} | ${l ? f(l.p50) : '-'} | ${l ? f(l.p99) : '-'} | ${l ? l.n : '-'}${l?.errors ? ` (${l.errors} errors)` : ''} |`;
      out.push(line);
      log(line);
    }
  }

  log('plans: each read once with auto_explain on...');
  const offset = await pg.startCapture();
  // A statement of this process's own, in the log between two requests' statements: the window's label.
  const marker = (label: string) => db().query(`SELECT 'scale-marker:${label.replace(/'/g, "''")}'::text AS scale_marker`);
  for (const t of targets) {
    const p = t.path('large');
    if (!p) continue;
    await marker(t.label);
    await call(api, large.live_key, 'GET', p).catch((e) => log(`plan run ${t.label}: ${String(e).slice(0, 200)}`));
  }
  await marker('POST /payment_links');
  for (let i = 0; i < 3; i++) {
    await call(api, large.live_key, 'POST', '/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: 'Scale plan',
      accepted_rail_kinds: ['crypto'],
    });
  }
  await marker(`${SWEEP} (worker start)`);
  await sweeps();
  await marker('end');
  await pg.stopCapture();
  const plans = pg.readPlans(offset);
  const seen = new Map<string, { label: string; ms: number; scans: string[] }>();
  let label = '(before the first request)';
  for (const pl of plans) {
    const m = /scale-marker/.test(pl.text) ? null : pl;
    if (!m) {
      const mm = /'scale-marker:(.*)'/.exec(pl.text);
      label = mm ? mm[1] : label;
      continue;
    }
    const key = m.text.replace(/\s+/g, ' ').trim();
    const prev = seen.get(key);
    if (!prev || m.ms > prev.ms) seen.set(key, { label: prev?.label ?? label, ms: m.ms, scans: largeSeqScans(m.plan, largeTables) });
  }
  const scans = [...seen].filter(([, v]) => v.scans.length > 0);
  const bad = scans.filter(([, v]) => !v.label.startsWith(SWEEP));
  out.push(
    '',
    `Plans: ${seen.size} distinct statements logged by auto_explain (ANALYZE, BUFFERS) during the requests (and the sweeps); ${bad.length} on a request path with a Seq Scan of a table over ${LARGE_ROWS.toLocaleString('en-US')} rows, ${scans.length - bad.length} in the sweeps:`,
  );
  for (const [text, v] of scans)
    out.push(
      `- ${v.label}: Seq Scan on ${[...new Set(v.scans)].join(', ')} (${v.ms.toFixed(0)} ms): \`${text.slice(0, 160)}${text.length > 160 ? '...' : ''}\``,
    );
  const slow = [...seen]
    .filter(([, v]) => v.scans.length === 0)
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 8);
  out.push('', 'Slowest statements without a large Seq Scan:');
  for (const [text, v] of slow) out.push(`- ${v.label}: ${v.ms.toFixed(1)} ms: \`${text.slice(0, 160)}${text.length > 160 ? '...' : ''}\``);

  log('writes: POST /v1/payment_links at 8 connections, webhook lag...');
  const wEmpty = await writes(api, empty.live_key);
  const wLarge = await writes(api, large.live_key);
  out.push(
    '',
    `| POST /v1/payment_links, 8 conns, ${POST_SECONDS} s | req/s | p50 | p99 | webhook lag p50 | lag p95 | not received in 30 s | stream lag p50 | p95 | no frame in 30 s |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const [n, w] of [
    ['empty account', wEmpty],
    ['large account', wLarge],
  ] as const) {
    out.push(
      `| ${n} | ${w.rps.toFixed(0)} | ${f(w.p50)} | ${f(w.p99)} | ${f(w.lag50)} | ${f(w.lag95)} | ${w.missing} | ${f(w.tail50)} | ${f(w.tail95)} | ${w.tailMissing} |`,
    );
  }
  out.push(`| large / empty | ${((100 * wLarge.rps) / wEmpty.rps).toFixed(0)}% | | | | | | | | |`);

  log('recovery sweeps on the seeded database...');
  const sweepsAfter = await sweeps();
  out.push('', '| recovery sweep | before seeding ms (rows) | seeded ms (rows) |', '|---|---|---|');
  for (let i = 0; i < sweepsAfter.length; i++)
    out.push(
      `| ${sweepsAfter[i].name} | ${f(sweepsBefore[i].ms)} (${sweepsBefore[i].n}) | ${f(sweepsAfter[i].ms)} (${sweepsAfter[i].n}) |`,
    );
  const sum = (s: { ms: number }[]) => s.reduce((a, b) => a + b.ms, 0);
  out.push(`| all | ${f(sum(sweepsBefore))} | ${f(sum(sweepsAfter))} |`);

  const text = out.join('\n');
  process.stdout.write(`${text}\n`);
  if (process.env.BENCH_SCALE_README !== '0') {
    const readme = path.resolve(__dirname, '../../bench/README.md');
    const head = `\n### Run of ${new Date().toISOString().slice(0, 16)}Z, --scale ${SCALE} (2 shared cores; figures noisy)\n\n`;
    fs.appendFileSync(readme, head + text + '\n');
    log(`appended to ${readme}`);
  }
  if (bad.length) {
    process.stderr.write(
      `[bench:scale] ${bad.length} statement(s) seq-scan a large table:\n${bad.map(([t, v]) => `  ${v.label}: ${[...new Set(v.scans)].join(', ')}: ${t.slice(0, 200)}`).join('\n')}\n`,
    );
    return NO_FAIL;
  }
  return true;
}

async function main(): Promise<boolean> {
  const pg = await startExplainServer(log);
  process.env.DATABASE_URL = pg.url;
  let stack: Stack | null = null;
  try {
    stack = await startStack({ log, tag: 'scale', split: true, envOverrides: { ...UNLIMITED } });
    // This process calls the recovery sweeps: same database, same Temporal, same key material.
    for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'APP_ENCRYPTION_KEY']) process.env[k] = stack.env[k];
    await initDb(stack.databaseUrl, 4);
    const large = await provisionAccount({ displayName: 'Scale large merchant' });
    const empty = await provisionAccount({ displayName: 'Scale empty merchant' });
    return await measure(stack, pg, large, empty);
  } finally {
    await closeDb();
    if (stack) await stack.stop();
    await pg.stop();
  }
}

main()
  .then((ok) => process.exit(ok ? 0 : 1))
  .catch((e) => {
    process.stderr.write(`[bench:scale] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
