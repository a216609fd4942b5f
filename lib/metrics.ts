/**
 * Prometheus metrics (decision 0085), with prom-client: one registry per process,
 * the metric catalogue below (names follow Prometheus conventions: `payments_` prefix, base units in
 * the name, `_total` counters), Node's default process metrics, and extra scrape sources appended
 * to the same text (the Temporal SDK's runtime metrics, worker.ts). Recording is a counter or
 * histogram update in memory: nothing here waits on the request path. Gauges that need a query
 * are sampled on a timer (activities/observability/sampler.ts), never per scrape.
 *
 * METRICS_ENABLED=false (bench comparisons) leaves every metric registered but records nothing:
 * `metricsOn()` is checked by the recording sites that do any work beyond an increment.
 */
import client from 'prom-client';
import { loadConfig } from './config';

/** The process's registry (what `/metrics` answers). */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

/** Latency buckets in seconds for requests and calls that should take milliseconds (5 ms to 10 s). */
const FAST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Buckets in seconds for work that may take minutes (commit to webhook receipt). */
const SLOW_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** RED: every HTTP request by operation id (spec operation, or `page`, `docs`, `sim`, `unmatched`), status class (`2xx`...) and caller kind. */
export const httpRequests = new client.Counter({
  name: 'payments_http_requests_total',
  help: 'HTTP requests answered, by operation id, status class and caller kind (business_key, dashboard_session, public_token, anonymous).',
  labelNames: ['operation', 'status_class', 'caller_kind'] as const,
  registers: [registry],
});

/** RED duration: seconds from the request's arrival to its answer, by operation id and status class. */
export const httpRequestDuration = new client.Histogram({
  name: 'payments_http_request_duration_seconds',
  help: "Seconds from a request's arrival to its answer, by operation id and status class.",
  labelNames: ['operation', 'status_class'] as const,
  buckets: FAST_BUCKETS,
  registers: [registry],
});

/** Idempotency-Key outcomes (spec 8): `replayed` (a stored answer), `key_reused` (409, another body), `failed` (409, an earlier attempt died after it may have acted). */
export const idempotencyOutcomes = new client.Counter({
  name: 'payments_idempotency_outcomes_total',
  help: 'Requests with an Idempotency-Key answered from the store (replayed) or refused (key_reused, failed), by operation id.',
  labelNames: ['operation', 'outcome'] as const,
  registers: [registry],
});

/** Requests refused `429 rate_limit_error` (spec 8), by credential class. */
export const rateLimitRefusals = new client.Counter({
  name: 'payments_rate_limit_refusals_total',
  help: 'Requests refused 429 rate_limit_error, by caller kind.',
  labelNames: ['caller_kind'] as const,
  registers: [registry],
});

/** Requests answered 503 temporarily_unavailable because PostgreSQL or Temporal was out. */
export const dependencyRefusals = new client.Counter({
  name: 'payments_dependency_unavailable_total',
  help: 'Requests answered 503 temporarily_unavailable because PostgreSQL or Temporal did not answer.',
  registers: [registry],
});

/** Age in seconds of the oldest event the webhook dispatcher has not yet fanned out (sampled). */
export const outboxOldestAge = new client.Gauge({
  name: 'payments_outbox_oldest_undispatched_event_age_seconds',
  help: "Age of the oldest event behind the webhook dispatcher's cursor (0 when none), sampled.",
  registers: [registry],
});

/** Events behind the dispatcher's cursor (sampled). */
export const outboxBehind = new client.Gauge({
  name: 'payments_outbox_undispatched_events',
  help: 'Events written to the outbox that the webhook dispatcher has not yet fanned out, sampled.',
  registers: [registry],
});

/** Webhook delivery attempts by outcome (`succeeded`, `retrying`, `failed`: the delivery's status after the attempt). */
export const webhookAttempts = new client.Counter({
  name: 'payments_webhook_delivery_attempts_total',
  help: "Webhook delivery attempts, by the delivery's status after the attempt (succeeded, retrying, failed).",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Seconds each attempt's HTTP exchange took (the receiver's answer or the error). */
export const webhookAttemptDuration = new client.Histogram({
  name: 'payments_webhook_delivery_attempt_duration_seconds',
  help: 'Seconds a webhook delivery attempt took, request sent to answer (or error), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: FAST_BUCKETS,
  registers: [registry],
});

/** Seconds from the event's commit to its successful delivery (first success per delivery). */
export const webhookDeliveryLag = new client.Histogram({
  name: 'payments_webhook_delivery_lag_seconds',
  help: "Seconds from an event's creation to the receiver's 2xx for its delivery.",
  buckets: SLOW_BUCKETS,
  registers: [registry],
});

/** Endpoints failing (enabled, with failures since their last success) or auto-disabled (sampled). */
export const webhookEndpoints = new client.Gauge({
  name: 'payments_webhook_endpoints',
  help: 'Webhook endpoints by state: failing (enabled, last delivery attempts failed), disabled (auto-disabled after repeated failures), sampled.',
  labelNames: ['state'] as const,
  registers: [registry],
});

/** Provider calls (providers/*: the rails, chains, bridges, checkout, KYC, screening, quotes, email) by provider, operation and outcome (`ok`, `error`). */
export const providerCalls = new client.Counter({
  name: 'payments_provider_calls_total',
  help: 'Calls to a provider adapter, by provider, operation and outcome (ok, error, timeout).',
  labelNames: ['provider', 'operation', 'outcome'] as const,
  registers: [registry],
});

/** Seconds each provider call took. */
export const providerCallDuration = new client.Histogram({
  name: 'payments_provider_call_duration_seconds',
  help: 'Seconds a provider adapter call took, by provider and operation.',
  labelNames: ['provider', 'operation'] as const,
  buckets: FAST_BUCKETS,
  registers: [registry],
});

/** Running workflows parked for an operator (workflows/convention.ts parkForOperator), by workflow type (sampled from Temporal visibility). */
export const workflowsParked = new client.Gauge({
  name: 'payments_workflows_parked',
  help: 'Running workflows parked for an operator (waiting for the retry signal), by workflow type, sampled.',
  labelNames: ['workflow_type'] as const,
  registers: [registry],
});

/** Money objects by type and status (sampled: payments and links from their count tables, the others' live statuses only). */
export const moneyObjects = new client.Gauge({
  name: 'payments_money_objects',
  help: 'Money objects by object type and status, sampled (payments and payment links: every status; payouts, payroll, sends, off-ramps, orders, subscriptions: live statuses).',
  labelNames: ['object', 'status'] as const,
  registers: [registry],
});

/** Whether a dependency answered its last probe (1) or not (0): `postgresql`, `temporal` (sampled). */
export const dependencyUp = new client.Gauge({
  name: 'payments_dependency_up',
  help: 'Whether a dependency answered its last probe within 1 s (1) or not (0), by dependency (postgresql, temporal), sampled.',
  labelNames: ['dependency'] as const,
  registers: [registry],
});

/** Seconds the last sampling pass took, and passes that failed. */
export const samplePassDuration = new client.Gauge({
  name: 'payments_metrics_sample_duration_seconds',
  help: 'Seconds the last sampling pass of the sampled gauges took.',
  registers: [registry],
});
export const samplePassFailures = new client.Counter({
  name: 'payments_metrics_sample_failures_total',
  help: 'Sampling passes of the sampled gauges that failed (the gauges keep their last values).',
  registers: [registry],
});

/** True unless METRICS_ENABLED=false. */
export function metricsOn(): boolean {
  return loadConfig().metrics.enabled;
}

/** The status class label of an HTTP status: `2xx`, `3xx`, `4xx`, `5xx`. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/** Another exposition-format text to append to the scrape (e.g. the Temporal SDK's runtime metrics); resolves '' when it has none. */
export type ScrapeSource = () => Promise<string>;
const sources: ScrapeSource[] = [];

/** Appends `source` to every scrape of this process's metrics. */
export function addScrapeSource(source: ScrapeSource): void {
  sources.push(source);
}

/** The exposition-format text of this process: the registry, then each extra source (a failing source is left out). */
export async function metricsText(): Promise<string> {
  const parts = [await registry.metrics()];
  for (const s of sources) parts.push(await s().catch(() => ''));
  return parts.filter(Boolean).join('\n');
}

/** The content type of `metricsText()` (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = registry.contentType;

/**
 * Wraps a provider adapter so that each of its methods that returns a promise is counted and timed
 * (`payments_provider_calls_total`, `payments_provider_call_duration_seconds`) under `provider` and
 * the method's name; synchronous helpers pass through. Returns `adapter` itself when metrics are off.
 */
export function instrumentProvider<T extends object>(provider: string, adapter: T): T {
  if (!metricsOn()) return adapter;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
      let w = wrapped.get(prop);
      if (!w) {
        w = function (this: unknown, ...args: unknown[]) {
          const t0 = process.hrtime.bigint();
          const out = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!out || typeof (out as Promise<unknown>).then !== 'function') return out;
          return (out as Promise<unknown>).then(
            (r) => {
              observeProviderCall(provider, prop, 'ok', t0);
              return r;
            },
            (e) => {
              observeProviderCall(provider, prop, 'error', t0);
              throw e;
            },
          );
        };
        wrapped.set(prop, w);
      }
      return w;
    },
  });
}

/** Records one provider call that started at `t0` (`process.hrtime.bigint()`). */
export function observeProviderCall(provider: string, operation: string, outcome: 'ok' | 'error' | 'timeout', t0: bigint): void {
  providerCalls.inc({ provider, operation, outcome });
  providerCallDuration.observe({ provider, operation }, Number(process.hrtime.bigint() - t0) / 1e9);
}
