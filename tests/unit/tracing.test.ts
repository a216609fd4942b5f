/**
 * Tracing's switch and the log lines' context (issue 29 item 2; docs/decisions/0083-tracing.md):
 * `tracingRequested` follows the standard OTEL_* environment, and off, the helpers do nothing;
 * `logContext` (the logger's mixin) names the request and the active span, and leaves out a field
 * without a value. The journey through a traced stack is tests/e2e/tracing.test.ts.
 */
import { trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { logContext } from '../../lib/logger';
import { runInRequest } from '../../lib/request-context';
import {
  currentTraceParent,
  inTraceOf,
  temporalClientTracing,
  temporalWorkerTracing,
  tracingOn,
  tracingRequested,
  traceRequest,
} from '../../lib/tracing';

describe('tracingRequested', () => {
  test.each<[string, NodeJS.ProcessEnv, boolean]>([
    ['nothing set', {}, false],
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    ['an exporter', { OTEL_TRACES_EXPORTER: 'otlp' }, true],
    ['the console exporter', { OTEL_TRACES_EXPORTER: 'console' }, true],
    ['exporter none wins over an endpoint', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    ['the SDK disabled', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    ['the SDK not disabled', { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    ['a blank endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
  ])('%s', (_what, env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });
});

test('off (never started): no interceptors, no traceparent, no request span, inTraceOf just runs', async () => {
  expect(tracingOn()).toBe(false);
  expect(temporalClientTracing()).toEqual({});
  expect(temporalWorkerTracing()).toEqual({});
  expect(currentTraceParent()).toBeNull();
  expect(traceRequest('req_x', 'GET')).toBeNull();
  await expect(inTraceOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x', {}, async () => 42)).resolves.toBe(42);
});

describe('logContext', () => {
  test('outside a request and a span: nothing', () => {
    expect(logContext()).toEqual({});
  });

  test('inside a request: its id', () => {
    expect(runInRequest({ requestId: 'req_abc' }, () => logContext())).toEqual({ request_id: 'req_abc' });
  });

  test('inside a span: its trace and span ids, with the request id', () => {
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      const out = runInRequest({ requestId: 'req_abc' }, () =>
        trace.getTracer('test').startActiveSpan('s', (span) => {
          const ctx = span.spanContext();
          span.end();
          return { got: logContext(), traceId: ctx.traceId, spanId: ctx.spanId };
        }),
      );
      expect(out.got).toEqual({ request_id: 'req_abc', trace_id: out.traceId, span_id: out.spanId });
      expect(out.traceId).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      trace.disable();
    }
  });
});
