/**
 * Process configuration, validated once at start with joi (ARCHITECTURE.md "Configuration").
 * Every process (API, worker, scripts) reads settings only through `loadConfig()`.
 * Throws an Error listing every invalid variable.
 */
import Joi from 'joi';

export interface Config {
  databaseUrl: string | null;
  temporalAddress: string | null;
  temporalNamespace: string;
  temporalTaskQueue: string;
  temporalSearchAttributes: boolean;
  port: number;
  host: string;
  simulatorEnabled: boolean;
  /** Payer-facing host used in `url` and `short_url` of payment links (spec 2.3). */
  payerHost: string;
  /**
   * Where the product's docs live (DOCS_BASE_URL, default `<payerHost>/docs`, the docs this server
   * serves); an error envelope's `doc_url` is `<docsBaseUrl>/errors#<code>` (spec 7). No trailing slash.
   */
  docsBaseUrl: string;
  /**
   * STRICT_ERROR_CODES (off by default; on in the test stacks): an error answered with a code that is
   * not in the registry (domain/error-codes.ts) also carries the header `Error-Code-Unregistered:
   * <code>` so tests see it; it is logged as an error either way.
   */
  strictErrorCodes: boolean;
  /** Base64 32-byte key that encrypts webhook secrets and bank details at rest. */
  appEncryptionKey: string | null;
  /** Development switch: webhook endpoints may use loopback http (dev stack and tests only; off by default). */
  webhooksAllowLoopback: boolean;
  /** PEM file of extra CA certificates trusted for webhook deliveries (a local https receiver in dev/tests); null = system roots only. */
  webhooksExtraCaFile: string | null;
  /** Hosts of this platform (besides the payer host) that webhook URLs may not name, subdomains included. */
  platformHosts: string[];
  /** Chain network the service runs on: test network in dev and tests (spec 2.5). */
  network: 'mainnet' | 'testnet';
  /** Rate limits per credential class, requests per second (spec 8: numeric rates not shown). */
  rateLimits: { business_key: number; dashboard_session: number; public_token: number; anonymous: number };
  /**
   * Failed authentication per source address (spec 8 rate limiting): at most `limit`
   * presented-but-refused credentials per `windowSeconds`; more answer 429 until the window ends.
   */
  authFailures: { limit: number; windowSeconds: number };
  /** Seconds a payment's deposit instructions stay open unless the link ends sooner. */
  paymentTtlSeconds: number;
  logLevel: string;
  dataDir: string;
  /** Seconds between comment frames on an idle `GET /events/stream` (spec 6 stream heartbeats). */
  streamHeartbeatSeconds: number;
  /** How far back (seconds) the stream replays after `Last-Event-ID`; older ids are a gap (spec 6). */
  streamResumeWindowSeconds: number;
  /** Request-log buffer: flush interval (ms) and rows per batch (spec 4.10 request logs). */
  requestLogFlushMs: number;
  requestLogBatch: number;
  /**
   * Request-log write-ahead directory (REQUEST_LOG_WAL_DIR; lib/write-ahead-file.ts): null when
   * `off`; empty: `<tmpdir>/payments-platform-request-logs/<hash of DATABASE_URL>` (api/middleware/request-log.ts).
   */
  requestLogWalDir: string | null;
  /** Per-provider deadline of the quote fan-out, ms (spec 4.9; QUOTE_PROVIDER_DEADLINE_MS). */
  quoteProviderDeadlineMs: number;
  /** How long quote offers stay executable, seconds (QUOTE_TTL_SECONDS). */
  quoteTtlSeconds: number;
  /**
   * Development check (EVENT_SCHEMA_CHECK, off by default; on in the test stacks): every event the
   * outbox writes is validated against its documented schema (views/event-schemas.ts) and a
   * drifting one throws, failing the request or activity that emitted it.
   */
  eventSchemaCheck: boolean;
  /**
   * Graceful stop of an API process (SIGTERM; api/main.ts, decision 0082): seconds it keeps serving
   * with `/readyz` at 503 so the load balancer stops sending (SHUTDOWN_DRAIN_SECONDS, default 0; set
   * it to the balancer's probe interval x failure threshold), then seconds it waits for requests in
   * flight after it stops accepting (SHUTDOWN_GRACE_SECONDS, default 25).
   */
  shutdownDrainSeconds: number;
  shutdownGraceSeconds: number;
  /** Seconds a stopping worker lets running activities finish before cancelling them (WORKER_SHUTDOWN_GRACE_SECONDS, default 30). */
  workerShutdownGraceSeconds: number;
  /**
   * Metrics (decision 0085): METRICS_ENABLED (default on) collects them; METRICS_PORT
   * (unset: no listener) serves `GET /metrics` on a listener of its own bound to METRICS_HOST
   * (default 127.0.0.1), the worker's scrape port; METRICS_TOKEN (unset: refused) is the bearer
   * token a scraper presents for `GET /metrics` on the API's public port (never a merchant credential).
   */
  metrics: { enabled: boolean; port: number | null; host: string; token: string | null; sampleSeconds: number };
}

const schema = Joi.object({
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .allow(''),
  TEMPORAL_ADDRESS: Joi.string().allow(''),
  TEMPORAL_NAMESPACE: Joi.string().default('default'),
  TEMPORAL_TASK_QUEUE: Joi.string().default('payments-platform'),
  TEMPORAL_SEARCH_ATTRIBUTES: Joi.boolean().truthy('1').falsy('0').default(true),
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().default('127.0.0.1'),
  SIMULATOR_ENABLED: Joi.boolean().truthy('1').falsy('0').default(false),
  PAYER_HOST: Joi.string().uri().default('http://localhost:3000'),
  DOCS_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .allow(''),
  STRICT_ERROR_CODES: Joi.boolean().truthy('1').falsy('0').default(false),
  APP_ENCRYPTION_KEY: Joi.string().base64().allow(''),
  WEBHOOKS_ALLOW_LOOPBACK: Joi.boolean().truthy('1').falsy('0').default(false),
  WEBHOOKS_EXTRA_CA_FILE: Joi.string().allow(''),
  PLATFORM_HOSTS: Joi.string().allow('').default(''),
  NETWORK: Joi.string().valid('mainnet', 'testnet').default('testnet'),
  RATE_LIMIT_BUSINESS_KEY: Joi.number().integer().min(1).default(1000),
  RATE_LIMIT_DASHBOARD_SESSION: Joi.number().integer().min(1).default(200),
  RATE_LIMIT_PUBLIC_TOKEN: Joi.number().integer().min(1).default(50),
  RATE_LIMIT_ANONYMOUS: Joi.number().integer().min(1).default(20),
  AUTH_FAILURE_LIMIT: Joi.number().integer().min(1).default(50),
  AUTH_FAILURE_WINDOW_SECONDS: Joi.number().integer().min(1).max(3600).default(10),
  PAYMENT_TTL_SECONDS: Joi.number().integer().min(60).default(86400),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  DATA_DIR: Joi.string().default('.data'),
  STREAM_HEARTBEAT_SECONDS: Joi.number().min(0.1).max(300).default(15),
  STREAM_RESUME_WINDOW_SECONDS: Joi.number().integer().min(60).default(86400),
  REQUEST_LOG_FLUSH_MS: Joi.number().integer().min(10).max(60000).default(250),
  REQUEST_LOG_BATCH: Joi.number().integer().min(1).max(10000).default(500),
  REQUEST_LOG_WAL_DIR: Joi.string().allow('').default(''),
  QUOTE_PROVIDER_DEADLINE_MS: Joi.number().integer().min(50).max(30000).default(1500),
  QUOTE_TTL_SECONDS: Joi.number().integer().min(5).max(3600).default(60),
  EVENT_SCHEMA_CHECK: Joi.boolean().truthy('1').falsy('0').default(false),
  SHUTDOWN_DRAIN_SECONDS: Joi.number().min(0).max(300).default(0),
  SHUTDOWN_GRACE_SECONDS: Joi.number().min(0).max(600).default(25),
  WORKER_SHUTDOWN_GRACE_SECONDS: Joi.number().min(0).max(3600).default(30),
  METRICS_ENABLED: Joi.boolean().truthy('1').falsy('0').default(true),
  METRICS_PORT: Joi.number().integer().min(0).max(65535).allow(''),
  METRICS_HOST: Joi.string().default('127.0.0.1'),
  METRICS_TOKEN: Joi.string().min(16).allow(''),
  METRICS_SAMPLE_SECONDS: Joi.number().min(1).max(3600).default(15),
}).unknown(true);

let cached: Config | null = null;

/** Reads and validates the environment; cached after the first call. Throws on invalid values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (cached && env === process.env) return cached;
  const { value, error } = schema.validate(env, { abortEarly: false, convert: true });
  if (error) throw new Error(`invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  const cfg: Config = {
    databaseUrl: value.DATABASE_URL || null,
    temporalAddress: value.TEMPORAL_ADDRESS || null,
    temporalNamespace: value.TEMPORAL_NAMESPACE,
    temporalTaskQueue: value.TEMPORAL_TASK_QUEUE,
    temporalSearchAttributes: value.TEMPORAL_SEARCH_ATTRIBUTES,
    port: value.PORT,
    host: value.HOST,
    simulatorEnabled: value.SIMULATOR_ENABLED,
    payerHost: value.PAYER_HOST.replace(/\/$/, ''),
    docsBaseUrl: (value.DOCS_BASE_URL || `${value.PAYER_HOST.replace(/\/$/, '')}/docs`).replace(/\/$/, ''),
    strictErrorCodes: value.STRICT_ERROR_CODES,
    appEncryptionKey: value.APP_ENCRYPTION_KEY || null,
    webhooksAllowLoopback: value.WEBHOOKS_ALLOW_LOOPBACK,
    webhooksExtraCaFile: value.WEBHOOKS_EXTRA_CA_FILE || null,
    platformHosts: String(value.PLATFORM_HOSTS)
      .split(',')
      .map((h: string) => h.trim().toLowerCase().replace(/\.$/, ''))
      .filter(Boolean),
    network: value.NETWORK,
    rateLimits: {
      business_key: value.RATE_LIMIT_BUSINESS_KEY,
      dashboard_session: value.RATE_LIMIT_DASHBOARD_SESSION,
      public_token: value.RATE_LIMIT_PUBLIC_TOKEN,
      anonymous: value.RATE_LIMIT_ANONYMOUS,
    },
    authFailures: { limit: value.AUTH_FAILURE_LIMIT, windowSeconds: value.AUTH_FAILURE_WINDOW_SECONDS },
    paymentTtlSeconds: value.PAYMENT_TTL_SECONDS,
    logLevel: value.LOG_LEVEL,
    dataDir: value.DATA_DIR,
    streamHeartbeatSeconds: value.STREAM_HEARTBEAT_SECONDS,
    streamResumeWindowSeconds: value.STREAM_RESUME_WINDOW_SECONDS,
    requestLogFlushMs: value.REQUEST_LOG_FLUSH_MS,
    requestLogBatch: value.REQUEST_LOG_BATCH,
    requestLogWalDir: value.REQUEST_LOG_WAL_DIR === 'off' ? null : value.REQUEST_LOG_WAL_DIR,
    quoteProviderDeadlineMs: value.QUOTE_PROVIDER_DEADLINE_MS,
    quoteTtlSeconds: value.QUOTE_TTL_SECONDS,
    eventSchemaCheck: value.EVENT_SCHEMA_CHECK,
    shutdownDrainSeconds: value.SHUTDOWN_DRAIN_SECONDS,
    shutdownGraceSeconds: value.SHUTDOWN_GRACE_SECONDS,
    workerShutdownGraceSeconds: value.WORKER_SHUTDOWN_GRACE_SECONDS,
    metrics: {
      enabled: value.METRICS_ENABLED,
      port: value.METRICS_PORT === '' || value.METRICS_PORT === undefined ? null : Number(value.METRICS_PORT),
      host: value.METRICS_HOST,
      token: value.METRICS_TOKEN || null,
      sampleSeconds: value.METRICS_SAMPLE_SECONDS,
    },
  };
  if (env === process.env) cached = cfg;
  return cfg;
}

/** Forgets the cached configuration (tests that change the environment). */
export function resetConfig(): void {
  cached = null;
}
