/**
 * Traces with OpenTelemetry (docs/decisions/0083-tracing.md). Off unless the
 * standard environment asks for it (`tracingRequested`): then each process entry's first import
 * (lib/tracing-init.ts) starts the trace SDK for Node with the http, pg and undici
 * instrumentations, a BatchSpanProcessor and an OTLP/HTTP exporter, before anything loads those
 * modules. Temporal's OpenTelemetry interceptors (`temporalClientTracing`, `temporalWorkerTracing`)
 * carry the trace from a client's start or signal into the workflow and its activities; an outbox
 * event records the `traceparent` of the work that wrote it (`currentTraceParent`) and the webhook
 * drain sends each delivery inside a span under it (`inTraceOf`), so one trace follows a request to
 * the webhook it causes.
 *
 * Off, nothing of the SDK, the exporters, the instrumentations or the interceptors is loaded (they
 * are required lazily here) and every helper returns at its first test: no per-request cost.
 */
import type { Context, Link, Span, Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkerOptions } from '@temporalio/worker';
import type { ClientOptions } from '@temporalio/client';

/** The product processes that trace: their default `service.name` (OTEL_SERVICE_NAME wins). */
export type TracedService = 'api' | 'worker' | 'serve';

const DEFAULT_SERVICE_NAMES: Record<TracedService, string> = {
  api: 'payments-platform-api',
  worker: 'payments-platform-worker',
  serve: 'payments-platform',
};

/** Name of this product's tracer (our own spans: webhook deliveries). */
const TRACER_NAME = 'payments-platform';

interface Running {
  service: TracedService;
  resource: Resource;
  processor: SpanProcessor;
  tracer: Tracer;
  shutdown: () => Promise<void>;
}

let running: Running | null = null;
let decided = false;

/**
 * Whether the standard OpenTelemetry environment asks for traces: never with
 * `OTEL_SDK_DISABLED=true`; otherwise `OTEL_TRACES_EXPORTER` decides when set (`none` = off, any
 * other value = on), else an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns them on.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.length > 0) return !exporters.every((e) => e === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** True once `startTracing` has started the SDK in this process. */
export function tracingOn(): boolean {
  return running !== null;
}

/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */

/**
 * Starts tracing for `service` when `tracingRequested()`; otherwise does nothing (and loads
 * nothing). Must run before `http`, `pg` or `undici` are loaded (lib/tracing-init.ts, the first
 * import of each entry). Idempotent: the first call decides. Returns whether tracing is on.
 */
export function startTracing(service: TracedService): boolean {
  if (decided) return running !== null;
  decided = true;
  if (!tracingRequested()) return false;
  const { trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { Resource: ResourceClass, envDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BatchSpanProcessor, ConsoleSpanExporter } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the defaults.
  const resource = ResourceClass.default()
    .merge(new ResourceClass({ 'service.name': DEFAULT_SERVICE_NAMES[service] }))
    .merge(envDetectorSync.detect());
  const exporters = (process.env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim().toLowerCase());
  const exporter = exporters.includes('console') && !exporters.includes('otlp') ? new ConsoleSpanExporter() : otlpExporter();
  // Batch size, queue and delay from OTEL_BSP_* (the processor reads them).
  const processor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The AsyncLocalStorage context manager and the W3C trace-context and baggage propagators.
  provider.register();
  const health = new Set(['/healthz', '/readyz', '/metrics']);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes are not requests worth a trace; outgoing calls only inside a trace.
        ignoreIncomingRequestHook: (req) => health.has((req.url ?? '').split('?')[0]),
        requireParentforOutgoingSpans: true,
      }),
      // Only inside a trace: the dispatcher's polls and the housekeeping timers would be a root trace each.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  running = {
    service,
    resource,
    processor,
    tracer: trace.getTracer(TRACER_NAME),
    shutdown: () => provider.shutdown(),
  };
  return true;
}

/**
 * The OTLP span exporter for OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL:
 * `http/json` or `http/protobuf` (the default); `grpc` is not supported and falls back to
 * `http/protobuf` with a warning. Endpoint, headers, timeout and compression come from the
 * standard OTEL_EXPORTER_OTLP_* variables (the exporters read them).
 */
function otlpExporter(): import('@opentelemetry/sdk-trace-base').SpanExporter {
  const protocol = (process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf')
    .trim()
    .toLowerCase();
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  if (protocol !== 'http/protobuf') {
    process.emitWarning(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; traces are exported as http/protobuf`);
  }
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}

/**
 * Flushes the spans still buffered and stops the SDK (process shutdown: api/main.ts, worker.ts,
 * api/serve.ts). Never throws; does nothing when tracing is off.
 */
export async function stopTracing(): Promise<void> {
  const r = running;
  if (!r) return;
  running = null;
  await r.shutdown().catch(() => undefined);
}

/**
 * Options to spread into `new Client({...})` (temporal/client.ts, worker.ts): with tracing on, the
 * client interceptor that wraps each start, signal-with-start, signal and query in a span and passes
 * its context to the workflow in the headers; `{}` when off.
 */
export function temporalClientTracing(): Pick<ClientOptions, 'interceptors'> {
  if (!running) return {};
  const { OpenTelemetryWorkflowClientInterceptor } =
    require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}

/**
 * Options to spread into `Worker.create({...})` (worker.ts): with tracing on, the workflow
 * interceptor module (bundled with the workflows: RunWorkflow, StartActivity, HandleSignal spans,
 * context passed on to activities in their headers), the sink that exports the workflow's spans
 * through this process's span processor (never during replay), and the activity interceptors
 * (RunActivity spans, active while the activity runs); `{}` when off, so the worker is built
 * exactly as without tracing.
 */
export function temporalWorkerTracing(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!running) return {};
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return {
    interceptors: {
      workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: otel.makeWorkflowExporter(running.processor, running.resource) },
  };
}

/* eslint-enable @typescript-eslint/no-require-imports */

/** The API module (already loaded by the SDK when tracing is on). */
let apiModule: typeof import('@opentelemetry/api') | null = null;
let coreModule: typeof import('@opentelemetry/core') | null = null;

/** @opentelemetry/api, loaded once (only ever called with tracing on). */
function api(): typeof import('@opentelemetry/api') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  apiModule ??= require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  return apiModule;
}

/** @opentelemetry/core, loaded once (only ever called with tracing on). */
function core(): typeof import('@opentelemetry/core') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  coreModule ??= require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  return coreModule;
}

/**
 * Tags the current HTTP server span with the request (api/app.ts): the request id as attribute
 * `payments.request_id` at once; the returned function, called when the response is done with the
 * matched route template, makes it `http.route` and the span name (`POST /v1/payouts/:id`). Null
 * (nothing to do) when tracing is off or no server span is active.
 */
export function traceRequest(requestId: string, method: string): ((route: string | undefined) => void) | null {
  if (!running) return null;
  const { context, trace } = api();
  const active = context.active();
  const span = trace.getSpan(active);
  if (!span) return null;
  span.setAttribute('payments.request_id', requestId);
  return (route) => {
    if (!route) return;
    const { getRPCMetadata, RPCType } = core();
    const meta = getRPCMetadata(active);
    // The http instrumentation sets `http.route` and renames its span from this when the response ends.
    if (meta?.type === RPCType.HTTP) meta.route = route;
    else span.setAttribute('http.route', route).updateName(`${method} ${route}`);
  };
}

/**
 * The W3C `traceparent` of the active span (`00-<trace id>-<span id>-<flags>`), recorded on an
 * outbox event so the webhook delivery it causes joins the same trace; null when tracing is off or
 * no span is active.
 */
export function currentTraceParent(): string | null {
  if (!running) return null;
  const { trace, isSpanContextValid } = api();
  const sc = trace.getActiveSpan()?.spanContext();
  if (!sc || !isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * Runs `fn` inside a new span `name` whose parent is the work that recorded `traceParent` (an
 * outbox event's), linked to the span active now (the drain activity's): the HTTP call `fn` makes
 * is then part of the request's trace. Without a parent the span is a child of the active span.
 * When tracing is off, just `fn()`.
 */
export async function inTraceOf<T>(
  traceParent: string | null,
  name: string,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!running) return fn();
  const { context, trace, SpanKind, SpanStatusCode } = api();
  const here = context.active();
  let parent: Context = here;
  const links: Link[] = [];
  if (traceParent) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    const extracted = new W3CTraceContextPropagator().extract(
      context.active(),
      { traceparent: traceParent },
      {
        get: (carrier: Record<string, string>, key: string) => carrier[key],
        keys: (carrier: Record<string, string>) => Object.keys(carrier),
      },
    );
    if (trace.getSpanContext(extracted)) {
      parent = extracted;
      const current = trace.getSpanContext(here);
      if (current) links.push({ context: current });
    }
  }
  return running.tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes, links }, parent, async (span: Span) => {
    try {
      return await fn();
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String((e as Error)?.message ?? e) });
      throw e;
    } finally {
      span.end();
    }
  });
}
