/**
 * `npm run bench:pages`: the payer page's weight and time to first byte (issue 22), on a throwaway
 * stack (bench/harness.ts: API and worker as separate processes; rate limits out of reach, the
 * public-token budget of the pages included, so 300 sequential requests from one IP are not
 * throttled). On crypto-only USD payment links, activated (the token from the link's `url`):
 * 1. Weight: the HTML of `GET /pay/<token>` plus every stylesheet (`<link rel="stylesheet" href>`)
 *    and script (`<script src>`) it references, uncompressed bytes (gzip alongside, for reference);
 *    target under 100 KB (102,400 bytes). Twice: the first open (the rail choice), and a second
 *    link's page awaiting a `crypto_native` deposit (address, amount, QR code).
 * 2. Time to first byte (undici, request sent to response headers received, one keep-alive
 *    connection per target) of `GET /pay/<token>` against the JSON read it is built on,
 *    `GET /v1/payment_sessions/<token>`, and a floor: a bare Koa server in this process answering
 *    the same HTML bytes as a fixed string. BENCH_PAGES_REQUESTS (300) sequential requests per
 *    target, interleaved (the order rotates every round). p50 / p95 / p99 of each; target: the
 *    page's p95 within 2x of the JSON read's.
 * Env: BENCH_PAGES_REQUESTS (300), BENCH_PAGES_WARMUP (30).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import Koa from 'koa';
import { Client } from 'undici';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { pct, runBench } from './harness';

const REQUESTS = Number(process.env.BENCH_PAGES_REQUESTS ?? 300);
const WARMUP = Number(process.env.BENCH_PAGES_WARMUP ?? 30);
const BUDGET = 102_400;
const log = (m: string) => process.stderr.write(`[bench:pages] ${m}\n`);

/** The attribute `name` of one start tag (double, single or no quotes), entities `&amp;` and `&quot;` decoded. */
function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  if (!m) return null;
  return (m[1] ?? m[2] ?? m[3])
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** What the page loads before it is usable: its stylesheets and scripts, in document order. */
function referencedAssets(html: string): { kind: 'stylesheet' | 'script'; href: string }[] {
  const out: { kind: 'stylesheet' | 'script'; href: string }[] = [];
  for (const m of html.matchAll(/<(link|script)\b[^>]*>/gi)) {
    const tag = m[0];
    if (m[1].toLowerCase() === 'link') {
      const rel = (attr(tag, 'rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr(tag, 'href');
      if (rel.includes('stylesheet') && href) out.push({ kind: 'stylesheet', href });
    } else {
      const src = attr(tag, 'src');
      if (src) out.push({ kind: 'script', href: src });
    }
  }
  return out;
}

/** One GET on `client`: the time from sending to the response headers (ms), then the body read off the clock. */
async function ttfb(
  client: Client,
  path: string,
): Promise<{ ms: number; status: number; body: Buffer; headers: Record<string, string | string[] | undefined> }> {
  const t0 = performance.now();
  const res = await client.request({ method: 'GET', path });
  const ms = performance.now() - t0;
  const body = Buffer.from(await res.body.arrayBuffer());
  return { ms, status: res.statusCode, body, headers: res.headers };
}

interface Weight {
  html: string;
  parts: { name: string; bytes: number; gzip: number; status: number }[];
  total: number;
  totalGzip: number;
}

/**
 * The weight of the page at `pagePath`: its HTML (the second open: the first records the view) and
 * every stylesheet and script it references, each read once on `client`.
 */
async function weigh(apiUrl: string, client: Client, pagePath: string, token: string): Promise<Weight> {
  await ttfb(client, pagePath);
  const page = await ttfb(client, pagePath);
  if (page.status !== 200)
    log(`WARNING: GET ${pagePath} answered ${page.status}, not 200: the figures below are for that answer, not the payer page`);
  if (page.headers['content-encoding'])
    log(`note: the page came ${String(page.headers['content-encoding'])}-encoded; its size below is the encoded body`);
  const html = page.body.toString('utf8');
  const main = /<main\b[^>]*>([\s\S]*)<\/main>/i.exec(html)?.[1] ?? '';
  const state = main
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  log(`page measured: "${/<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? '(no title)'}": ${state.slice(0, 300)}`);
  const parts = [
    {
      name: `GET ${pagePath.replace(token, '<token>')} (HTML)`,
      bytes: page.body.length,
      gzip: zlib.gzipSync(page.body).length,
      status: page.status,
    },
  ];
  for (const a of referencedAssets(html)) {
    const u = new URL(a.href, `${apiUrl}${pagePath}`);
    if (u.origin !== new URL(apiUrl).origin) throw new Error(`the page references a ${a.kind} on another origin: ${a.href}`);
    const r = await ttfb(client, `${u.pathname}${u.search}`);
    parts.push({ name: `${a.kind} ${u.pathname}`, bytes: r.body.length, gzip: zlib.gzipSync(r.body).length, status: r.status });
  }
  return { html, parts, total: parts.reduce((n, p) => n + p.bytes, 0), totalGzip: parts.reduce((n, p) => n + p.gzip, 0) };
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const post = async (path: string, body: unknown, auth = true) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth) Object.assign(headers, { 'x-api-key': creds.live_key, 'Idempotency-Key': `bench_${crypto.randomBytes(12).toString('hex')}` });
    const r = await fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const b = (await r.json()) as any;
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(b)}`);
    return b;
  };
  /** A crypto-only USD link, activated: its page's path and token (from the link's `url`). */
  const activeLink = async () => {
    const link = await post('/v1/payment_links', {
      amount: { amount: '10000', currency: 'USD', decimals: 2 },
      title: 'Bench page link',
      accepted_rail_kinds: ['crypto'],
    });
    const act = await post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true });
    const pagePath = new URL(String(act.url)).pathname;
    const token = pagePath.split('/pay/')[1];
    if (!token) throw new Error(`the activated link's url has no /pay/<token>: ${act.url}`);
    return { pagePath, token };
  };

  const product = new Client(stack.apiUrl, { pipelining: 1 });
  const productJson = new Client(stack.apiUrl, { pipelining: 1 });
  const assetsClient = new Client(stack.apiUrl, { pipelining: 1 });

  // 1. Weight: the page a payer first gets (the rail choice), and, on a second link, the page
  // awaiting a native deposit (address, amount, QR code: the heaviest open state).
  const { pagePath, token } = await activeLink();
  const jsonPath = `/v1/payment_sessions/${token}`;
  const first = await weigh(stack.apiUrl, assetsClient, pagePath, token);
  const other = await activeLink();
  await post(`/v1/payment_sessions/${other.token}/payments`, { rail: 'crypto_native' }, false);
  const awaiting = await weigh(stack.apiUrl, assetsClient, other.pagePath, other.token);
  const html = first.html;

  // 2. Time to first byte. The floor serves the page's own bytes as a fixed string.
  const bareApp = new Koa();
  bareApp.use((ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  const bareServer = bareApp.listen(0, '127.0.0.1');
  await new Promise<void>((r) => bareServer.once('listening', () => r()));
  const bare = new Client(`http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`, { pipelining: 1 });

  const targets = [
    { name: 'GET /pay/<token> (HTML page)', run: () => ttfb(product, pagePath), ms: [] as number[], statuses: new Map<number, number>() },
    {
      name: 'GET /v1/payment_sessions/<token> (JSON)',
      run: () => ttfb(productJson, jsonPath),
      ms: [] as number[],
      statuses: new Map<number, number>(),
    },
    {
      name: 'bare Koa, the same HTML as a fixed string',
      run: () => ttfb(bare, '/'),
      ms: [] as number[],
      statuses: new Map<number, number>(),
    },
  ];
  log(`warming up (${WARMUP} requests per target)...`);
  for (let i = 0; i < WARMUP; i++) for (const t of targets) await t.run();
  log(`time to first byte: ${REQUESTS} sequential requests per target, interleaved...`);
  for (let i = 0; i < REQUESTS; i++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(i + k) % targets.length];
      const r = await t.run();
      t.ms.push(r.ms);
      t.statuses.set(r.status, (t.statuses.get(r.status) ?? 0) + 1);
    }
  }
  await Promise.all([product.close(), productJson.close(), assetsClient.close(), bare.close()]);
  bareServer.close();

  const f = (n: number) => n.toFixed(2);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const stats = targets.map((t) => {
    const s = [...t.ms].sort((a, b) => a - b);
    return {
      name: t.name,
      p50: pct(s, 50),
      p95: pct(s, 95),
      p99: pct(s, 99),
      statuses: [...t.statuses].map(([k, v]) => `${k} x${v}`).join(', '),
    };
  });
  const [pageStats, jsonStats, bareStats] = stats;
  const ratio = pageStats.p95 / jsonStats.p95;
  process.stdout.write(
    [
      '',
      `Payer page weight (uncompressed; gzip for reference), ${os.cpus().length} cores:`,
      ...[
        { label: 'first open (the rail choice)', w: first },
        { label: 'awaiting a crypto_native deposit', w: awaiting },
      ].flatMap(({ label, w }) => [
        `  ${label}:`,
        ...w.parts.map(
          (p) => `    ${p.name.padEnd(42)} ${String(p.bytes).padStart(8)} B   gzip ${String(p.gzip).padStart(7)} B   ${p.status}`,
        ),
        `    ${'total'.padEnd(42)} ${String(w.total).padStart(8)} B   gzip ${String(w.totalGzip).padStart(7)} B   (${kb(w.total)}; target < 100 KB = ${BUDGET} B: ${w.total < BUDGET ? 'met' : 'NOT met'})`,
      ]),
      '',
      `Time to first byte (the first open's page), ${REQUESTS} sequential requests per target, interleaved, one keep-alive connection each:`,
      `  ${'target'.padEnd(44)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   statuses`,
      ...stats.map((s) => `  ${s.name.padEnd(44)} ${f(s.p50).padStart(8)} ${f(s.p95).padStart(8)} ${f(s.p99).padStart(8)}   ${s.statuses}`),
      '',
      `  page p95 / JSON p95: ${ratio.toFixed(2)}x (target <= 2x: ${ratio <= 2 ? 'met' : 'NOT met'}); page p95 / bare p95: ${(pageStats.p95 / bareStats.p95).toFixed(1)}x`,
      '',
    ].join('\n'),
  );
}

runBench({ name: 'bench:pages', tag: 'bench-pages', split: true, log }, measure);
