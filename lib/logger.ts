/**
 * Structured logging (pino). One root logger per process; level from LOG_LEVEL (default info).
 * Every line names the API request it is written for (`request_id`, lib/request-context.ts) and,
 * with tracing on (lib/tracing.ts), the active span (`trace_id`, `span_id`); a field without a
 * value is left out. Off, the span lookup finds none at once (the API's no-op context manager).
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';
import { currentRequest } from './request-context';

/** The request and trace fields of a log line written now (only those that have a value). */
export function logContext(): Record<string, string> {
  const out: Record<string, string> = {};
  const req = currentRequest();
  if (req) out.request_id = req.requestId;
  const sc = trace.getActiveSpan()?.spanContext();
  if (sc && isSpanContextValid(sc)) {
    out.trace_id = sc.traceId;
    out.span_id = sc.spanId;
  }
  return out;
}

export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'payments-platform' },
  redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.secret', '*.account_number', '*.iban'], remove: true },
  mixin: logContext,
});
