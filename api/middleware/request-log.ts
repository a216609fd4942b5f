/**
 * Request logging (spec 4.10 request logs): records every `/v1` request (method, path without
 * query string, final status, latency, request id, caller, key id, idempotency key, error type and
 * code) without ever touching the database on the request path: rows go to an in-memory buffer
 * flushed in batches every REQUEST_LOG_FLUSH_MS (default 250 ms) or REQUEST_LOG_BATCH rows, and on
 * shutdown (`flushRequestLogs`). Reads therefore lag by up to one flush interval.
 *
 * Mounted in api/app.ts outside the error envelope, so errors, authentication failures and rate
 * limiting are recorded with their final status; the account is known only once authenticated.
 * Public payer-token routes are not recorded (their path carries a capability token and no account).
 */
import type Koa from 'koa';
import { insertRequestLogs, type RequestLogRow } from '../../activities/request-logs/commands';
import { BatchBuffer } from '../../lib/batch-buffer';
import { loadConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import type { AppState } from '../context';

let buffer: BatchBuffer<RequestLogRow> | null = null;

function logBuffer(): BatchBuffer<RequestLogRow> {
  if (!buffer) {
    const cfg = loadConfig();
    buffer = new BatchBuffer<RequestLogRow>({
      intervalMs: cfg.requestLogFlushMs, maxBatch: cfg.requestLogBatch, maxBuffered: 100_000,
      write: insertRequestLogs,
      onError: (err, rows) => logger.warn({ err, rows }, 'request log batch failed; will retry'),
    });
  }
  return buffer;
}

/** Writes every buffered request-log row now (server shutdown, tests). */
export async function flushRequestLogs(): Promise<void> {
  await buffer?.flush();
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
      logBuffer().push({
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
      });
    }
  };
}
