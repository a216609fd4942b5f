/**
 * Jest global setup: real parts only. Compiles the project (tsc) and starts the whole stack
 * (scripts/stack.ts: PostgreSQL on a fresh database with migrations, a Temporal dev server, the
 * product with the simulator on). Exposes it to tests through environment variables:
 * TEST_API_URL, DATABASE_URL, TEMPORAL_ADDRESS, APP_ENCRYPTION_KEY, TEST_PRODUCT_LOG, and for https webhook
 * receivers WEBHOOKS_EXTRA_CA_FILE (certificate, trusted by the product) and WEBHOOKS_TEST_TLS_KEY_FILE.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startTestStack } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');
const log = (m: string) => process.stderr.write(`[test-setup] ${m}\n`);

export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  log('compiling (tsc)...');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  const stack = await startTestStack('test', log);
  stack.apply(process.env);
  (globalThis as Record<string, unknown>).__PP_TEARDOWN__ = stack.stop;
  log(
    `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: api ${stack.apiUrl}, temporal ${stack.temporalAddress}, product log ${stack.productLog}`,
  );
}
