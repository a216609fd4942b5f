/**
 * Request logging (spec 4.10 request logs): records every `/v1` request (method, path without
 * query string, final status, latency, request id, caller, key id, idempotency key, error type and
 * code) without ever waiting for the database on the request path: rows go to an in-memory buffer
 * flushed in batches every REQUEST_LOG_FLUSH_MS (default 250 ms) or REQUEST_LOG_BATCH rows, and on
 * shutdown (`flushRequestLogs`). Reads therefore lag by up to one flush interval.
 *
 * No row is lost when the process is killed (docs/decisions/0079-pipeline-work-done-once.md):
 * each row is first appended to a local write-ahead file (lib/write-ahead-file.ts, one synchronous
 * write before the response is sent), deleted once its rows are stored; the next start replays
 * the files of dead processes (`replayRequestLogs`; the insert ignores ids already stored). What
 * can still be lost: rows of a host that loses power or its disk (no fsync), and rows whose append
 * failed (disk full: counted, kept in memory only). REQUEST_LOG_WAL_DIR=off turns the file off.
 *
 * Mounted in api/app.ts outside the error envelope, so errors, authentication failures and rate
 * limiting are recorded with their final status; the account is known only once authenticated.
 * Public payer-token routes are not recorded (their path carries a capability token and no account).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type Koa from 'koa';
import { insertRequestLogs, type RequestLogRow } from '../../activities/request-logs/commands';
import { BatchBuffer } from '../../lib/batch-buffer';
import { loadConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { replayOrphans, WriteAheadFile, type WalMark } from '../../lib/write-ahead-file';
import type { AppState } from '../context';

interface Entry {
  row: RequestLogRow;
  mark: WalMark | null;
}

let buffer: BatchBuffer<Entry> | null = null;
let wal: WriteAheadFile | null | undefined;

/** The write-ahead directory of this deployment (see lib/config.ts `requestLogWalDir`), or null when off. */
export function requestLogWalDir(): string | null {
  const cfg = loadConfig();
  if (cfg.requestLogWalDir === null) return null;
  if (cfg.requestLogWalDir) return cfg.requestLogWalDir;
  const db = crypto
    .createHash('sha256')
    .update(cfg.databaseUrl ?? '')
    .digest('hex')
    .slice(0, 16);
  return path.join(os.tmpdir(), 'payments-platform-request-logs', db);
}

function writeAhead(): WriteAheadFile | null {
  if (wal === undefined) {
    const dir = requestLogWalDir();
    try {
      wal = dir ? new WriteAheadFile({ dir }) : null;
    } catch (err) {
      logger.warn({ err, dir }, 'request log write-ahead file unavailable; rows are kept in memory only');
      wal = null;
    }
  }
  return wal;
}

function logBuffer(): BatchBuffer<Entry> {
  if (!buffer) {
    const cfg = loadConfig();
    buffer = new BatchBuffer<Entry>({
      intervalMs: cfg.requestLogFlushMs,
      maxBatch: cfg.requestLogBatch,
      maxBuffered: 100_000,
      write: async (entries) => {
        await insertRequestLogs(entries.map((e) => e.row));
        wal?.stored(entries.map((e) => e.mark));
      },
      onError: (err, rows) => logger.warn({ err, rows }, 'request log batch failed; will retry'),
    });
  }
  return buffer;
}

/** Writes every buffered request-log row now (server shutdown, tests); the write-ahead segment is closed (deleted when all its rows are stored). */
export async function flushRequestLogs(): Promise<void> {
  await buffer?.flush();
  if (!buffer?.size) wal?.close();
}

/**
 * At start, before serving: stores the rows left in the write-ahead files of processes that were
 * killed (their ids may already be stored: ignored). Returns how many rows it replayed. Never
 * throws: a file it could not store stays for the next start.
 */
export async function replayRequestLogs(): Promise<number> {
  const dir = requestLogWalDir();
  if (!dir) return 0;
  const revive = (x: unknown) => {
    const r = x as RequestLogRow & { created_at: string };
    return { ...r, created_at: new Date(r.created_at) };
  };
  const { rows, kept } = await replayOrphans(dir, revive, insertRequestLogs);
  if (rows || kept) logger.info({ rows, kept, dir }, 'request logs replayed from the write-ahead files of stopped processes');
  return rows;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

/** Koa middleware; `skip` excludes routes that must not be recorded (public token routes). */
export function requestLog(skip: (ctx: Koa.ParameterizedContext<AppState>) => boolean): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (!(ctx.path === '/v1' || ctx.path.startsWith('/v1/')) || skip(ctx)) return next();
    const startedAt = new Date();
    const t0 = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const c = ctx.state.caller;
      const body = ctx.body as { error?: { type?: unknown; code?: unknown } } | null | undefined;
      const err = ctx.status >= 400 && body && typeof body === 'object' && body.error ? body.error : null;
      const idemKey = ctx.get('Idempotency-Key');
      const row: RequestLogRow = {
        id: ctx.state.requestId,
        account_id: c?.accountId ?? null,
        livemode: c ? c.livemode : null,
        caller_type: c?.kind ?? null,
        api_key_id: c?.keyId ?? null,
        user_id: c?.userId ?? null,
        method: ctx.method,
        path: clip(ctx.path, 1000),
        status: ctx.status,
        latency_ms: Number((process.hrtime.bigint() - t0) / 1_000_000n),
        idempotency_key: idemKey ? clip(idemKey, 200) : null,
        error_type: typeof err?.type === 'string' ? err.type : null,
        error_code: typeof err?.code === 'string' ? err.code : null,
        api_version: ctx.state.version ?? null,
        ip: ctx.ip || null,
        created_at: startedAt,
      };
      logBuffer().push({ row, mark: writeAhead()?.append(row) ?? null });
    }
  };
}
