/**
 * `npm run bench:profile`: where the API process spends its CPU under one load.
 * Starts a throwaway stack (API and worker split) with the API under `--cpu-prof`, drives
 * `BENCH_PROFILE_LOAD` (`post`: idempotent POST /v1/payment_links, `get`: GET /v1/payment_links/{id})
 * at BENCH_CONNECTIONS (32) for BENCH_SECONDS (10), stops the API so it writes its profile, and
 * prints requests/s, the API process's CPU time per request (all its threads, from /proc: a figure
 * the shared host's load moves much less than requests/s), the top functions by self time and the
 * share of the main thread that was idle. `BENCH_PROFILE_NODE_ARGS=' '` runs without `--cpu-prof`
 * (CPU per request without the profiler's own cost).
 * Env: BENCH_PROFILE_TOP (40) rows; the raw `.cpuprofile` stays in the printed directory (open it
 * in Chrome DevTools).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DevCredentials } from '../activities/accounts/commands';
import type { Stack } from '../scripts/stack';
import { execFileSync } from 'node:child_process';
import { runBench } from './harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOAD = process.env.BENCH_PROFILE_LOAD ?? 'post';
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 40);
const log = (m: string) => process.stderr.write(`[profile] ${m}\n`);
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-platform-profile-'));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (microseconds), largest first. */
function selfTimes(p: CpuProfile): { name: string; us: number }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const where = f.url ? `${path.basename(f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    totals.set(key, (totals.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  return [...totals.entries()].map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us);
}

async function measure(stack: Stack, creds: DevCredentials): Promise<void> {
  const headers = { 'x-api-key': creds.live_key, 'content-type': 'application/json' };
  const body = JSON.stringify({
    amount: { amount: '10000', currency: 'USD', decimals: 2 },
    title: 'Bench link',
    accepted_rail_kinds: ['crypto'],
  });
  const key = () => `bench_${crypto.randomBytes(12).toString('hex')}`;
  const link = (await (
    await fetch(`${stack.apiUrl}/v1/payment_links`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': key() }, body })
  ).json()) as { id: string };
  const opts =
    LOAD === 'get'
      ? { url: `${stack.apiUrl}/v1/payment_links/${link.id}`, headers }
      : {
          url: `${stack.apiUrl}/v1/payment_links`,
          requests: [
            {
              method: 'POST',
              headers,
              body,
              setupRequest: (r: { headers: Record<string, string> }) => ({ ...r, headers: { ...r.headers, 'Idempotency-Key': key() } }),
            },
          ],
        };
  await autocannon({ ...opts, connections: 8, duration: 2 });
  log(`${LOAD} at ${CONNECTIONS} connections for ${SECONDS} s...`);
  const pid = listenerPid(Number(new URL(stack.apiUrl).port));
  const cpu0 = pid ? cpuMs(pid) : 0;
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: SECONDS });
  const cpu = pid ? cpuMs(pid) - cpu0 : NaN;
  process.stdout.write(
    `${LOAD}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non2xx ${r.non2xx}\n`,
  );
  process.stdout.write(
    `${LOAD}: API process CPU ${((1000 * cpu) / r.requests.total).toFixed(0)} us per request (${(cpu / 1000).toFixed(1)} s over ${r.requests.total} requests, pid ${pid})\n`,
  );
  // Which tables the load read and wrote, and how many indexes each write maintains.
  const { db } = await import('../lib/db');
  const tables = (await db().query(`SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_del, t.seq_scan, t.idx_scan,
      (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid) AS indexes
    FROM pg_stat_user_tables t WHERE t.n_tup_ins + t.n_tup_upd + t.n_tup_del + coalesce(t.idx_scan, 0) + t.seq_scan > 50 ORDER BY t.n_tup_ins + t.n_tup_upd + coalesce(t.idx_scan, 0) DESC LIMIT 15`)) as Record<
    string,
    unknown
  >[];
  for (const t of tables)
    process.stdout.write(
      `  ${String(t.relname).padEnd(28)} ins ${t.n_tup_ins} upd ${t.n_tup_upd} del ${t.n_tup_del} seq_scan ${t.seq_scan} idx_scan ${t.idx_scan} indexes ${t.indexes}\n`,
    );
}

/** The pid listening on 127.0.0.1:`port` (`ss`), or 0 when it cannot be found. */
function listenerPid(port: number): number {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    return Number(/pid=(\d+)/.exec(out)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU time (user + system, every thread) process `pid` has used, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

runBench(
  {
    name: 'profile',
    tag: 'profile',
    split: true,
    envOverrides: { PRODUCT_NODE_ARGS: process.env.BENCH_PROFILE_NODE_ARGS ?? `--cpu-prof --cpu-prof-dir=${profileDir}` },
    log,
  },
  measure,
);

process.on('exit', () => {
  // The API and the worker write their profiles when they exit; the API's is the one that served HTTP.
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const list = () => fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
  for (let i = 0; i < 100 && list().length === 0; i++) sleep(100);
  sleep(1000);
  const files = list();
  const profiles = files.map((f) => ({ f, p: JSON.parse(fs.readFileSync(path.join(profileDir, f), 'utf8')) as CpuProfile }));
  const api = profiles.find(({ p }) => selfTimes(p).some((s) => /koa|router/i.test(s.name))) ?? profiles[0];
  if (!api) {
    process.stdout.write(`no profile written in ${profileDir}\n`);
    return;
  }
  const rows = selfTimes(api.p);
  const total = rows.reduce((s, x) => s + x.us, 0);
  process.stdout.write(`\nAPI profile ${path.join(profileDir, api.f)} (${(total / 1e6).toFixed(1)} s sampled)\n`);
  for (const x of rows.slice(0, TOP)) process.stdout.write(`${((100 * x.us) / total).toFixed(1).padStart(5)}%  ${x.name}\n`);
});
