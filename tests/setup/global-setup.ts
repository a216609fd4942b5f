/**
 * Jest global setup: real parts only. Compiles the project (tsc) and starts the whole stack
 * (scripts/stack.ts: PostgreSQL on a fresh database with migrations, a Temporal dev server, the
 * product with the simulator on). Exposes it to tests through environment variables:
 * TEST_API_URL, DATABASE_URL, TEMPORAL_ADDRESS, APP_ENCRYPTION_KEY, TEST_PRODUCT_LOG, and for https webhook
 * receivers WEBHOOKS_EXTRA_CA_FILE (certificate, trusted by the product) and WEBHOOKS_TEST_TLS_KEY_FILE.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const log = (m: string) => process.stderr.write(`[test-setup] ${m}\n`);

export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  log('compiling (tsc)...');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  // The compiled module, so the product child and this process share one implementation.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startStack } = require(path.join(root, 'dist/scripts/stack.js')) as typeof import('../../scripts/stack');
  const stack = await startStack({
    log, tag: 'test',
    envOverrides: {
      RATE_LIMIT_BUSINESS_KEY: process.env.RATE_LIMIT_BUSINESS_KEY ?? '5000',
      RATE_LIMIT_PUBLIC_TOKEN: process.env.RATE_LIMIT_PUBLIC_TOKEN ?? '5000',
      RATE_LIMIT_DASHBOARD_SESSION: process.env.RATE_LIMIT_DASHBOARD_SESSION ?? '5000',
      RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS ?? '5000',
      // Short stream heartbeats so tests observe them quickly (production default 15 s).
      STREAM_HEARTBEAT_SECONDS: process.env.STREAM_HEARTBEAT_SECONDS ?? '1',
      // A public-looking host standing for the platform's own API host (webhook URLs may not name it).
      PLATFORM_HOSTS: 'api.platform.example.net',
    },
  });
  for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'APP_ENCRYPTION_KEY', 'PAYER_HOST', 'WEBHOOKS_ALLOW_LOOPBACK', 'WEBHOOKS_EXTRA_CA_FILE',
    'WEBHOOKS_TEST_TLS_KEY_FILE', 'PLATFORM_HOSTS']) process.env[k] = stack.env[k];
  process.env.TEST_API_URL = stack.apiUrl;
  process.env.TEST_PRODUCT_LOG = stack.productLog;
  process.env.SIMULATOR_ENABLED = 'true';
  (globalThis as Record<string, unknown>).__PP_TEARDOWN__ = stack.stop;
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: api ${stack.apiUrl}, temporal ${stack.temporalAddress}, product log ${stack.productLog}`);
}
