/**
 * The product stacks tests run against (scripts/stack.ts): the shared one started by
 * tests/setup/global-setup.ts, and private ones for test files that flip global switches.
 */
import path from 'node:path';
import type { Stack } from '../../scripts/stack';

const root = path.resolve(__dirname, '../..');

/** Product settings every test stack runs with: generous rate limits (failed authentication included), 1 s stream heartbeats, a platform host. */
export function testProductEnv(): NodeJS.ProcessEnv {
  return {
    RATE_LIMIT_BUSINESS_KEY: process.env.RATE_LIMIT_BUSINESS_KEY ?? '5000',
    RATE_LIMIT_PUBLIC_TOKEN: process.env.RATE_LIMIT_PUBLIC_TOKEN ?? '5000',
    RATE_LIMIT_DASHBOARD_SESSION: process.env.RATE_LIMIT_DASHBOARD_SESSION ?? '5000',
    RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS ?? '5000',
    // Refused credentials per source address and 10 s (production default 50): on the shared stack
    // the authorization matrix and the fuzzer send thousands on purpose, all from 127.0.0.1, so the
    // limit is out of reach there; tests/contract/auth-flood.test.ts proves it on a private stack.
    AUTH_FAILURE_LIMIT: process.env.AUTH_FAILURE_LIMIT ?? '1000000000',
    // Short stream heartbeats so tests observe them quickly (production default 15 s).
    STREAM_HEARTBEAT_SECONDS: process.env.STREAM_HEARTBEAT_SECONDS ?? '1',
    // A public-looking host standing for the platform's own API host (webhook URLs may not name it).
    PLATFORM_HOSTS: 'api.platform.example.net',
    // An answered error code missing from the registry (domain/error-codes.ts) is flagged with `Error-Code-Unregistered`.
    STRICT_ERROR_CODES: 'true',
    EVENT_SCHEMA_CHECK: 'true', // every event is checked against its documented schema (views/event-schemas.ts); drift throws
  };
}

/** The stack's settings a test process takes over (database, Temporal, secrets, receiver certificate). */
const SHARED_KEYS = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'APP_ENCRYPTION_KEY',
  'PAYER_HOST',
  'WEBHOOKS_ALLOW_LOOPBACK',
  'WEBHOOKS_EXTRA_CA_FILE',
  'WEBHOOKS_TEST_TLS_KEY_FILE',
  'PLATFORM_HOSTS',
  'METRICS_TOKEN',
];

/** Starts a stack from the compiled dist/ (so the product child and the caller share one implementation). */
export async function startTestStack(
  tag: string,
  log: (m: string) => void,
  overrides: NodeJS.ProcessEnv = {},
  shape: { split?: boolean; apis?: number; workers?: number } = {},
): Promise<Stack & { apply(env: NodeJS.ProcessEnv): void }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startStack } = require(path.join(root, 'dist/scripts/stack.js')) as typeof import('../../scripts/stack');
  const stack = await startStack({ log, tag, ...shape, envOverrides: { ...testProductEnv(), ...overrides } });
  return {
    ...stack,
    apply(env) {
      for (const k of SHARED_KEYS) env[k] = stack.env[k];
      env.TEST_API_URL = stack.apiUrl;
      env.TEST_PRODUCT_LOG = stack.productLog;
      env.SIMULATOR_ENABLED = 'true';
    },
  };
}

/**
 * Gives the calling test file a private stack: its own database on the shared PostgreSQL server,
 * its own Temporal dev server and product process. For files that flip global switches
 * (`feature_switches`): a switch is global to a deployment, so flipping it on the shared stack
 * would change the answers seen by the files running alongside. Also for product settings the
 * shared stack cannot have (`overrides`, e.g. a low failed-auth limit). Points this file's process.env
 * (Jest gives each file its own copy) at the private stack before the file's tests, stops it after.
 */
export function usePrivateStack(tag: string, overrides: NodeJS.ProcessEnv = {}): void {
  let stop: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    const stack = await startTestStack(tag, (m) => process.stderr.write(`[${tag}] ${m}\n`), overrides);
    stop = stack.stop;
    stack.apply(process.env);
  }, 180_000);
  afterAll(async () => {
    await stop?.();
  }, 60_000);
}
