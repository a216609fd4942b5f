/**
 * `node dist/temporal/dev/cli.js` (npm run temporal:bootstrap): makes sure the Temporal CLI
 * (dev server) and the Java time-skipping test server are available — building / resolving them
 * into the cache if needed — and then the cluster stack's server, SQL tool and UI server
 * (temporal/dev/cluster-build.ts; after the CLI, whose Go build cache they share), and prints their
 * paths. CI runs it to warm the cache.
 *
 * Progress goes to stderr; stdout gets `TEMPORAL_CLI_PATH=...`, `TEMPORAL_TEST_SERVER_PATH=...`
 * (usable as env assignments) and `TEMPORAL_SERVER_PATH=...`. Exit code 1 if any is unavailable.
 */
import { ensureTemporalCli, ensureTestServer } from './bootstrap';
import { ensureClusterBinaries } from './cluster-build';
import { cacheDir } from '../config';

async function main(): Promise<number> {
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  log(`[temporal] cache: ${cacheDir()}`);
  // Both steps run concurrently: the Go build and the Maven resolve are independent.
  const [cli, testServer] = await Promise.allSettled([ensureTemporalCli(log), ensureTestServer(log)]);
  let failed = false;
  if (cli.status === 'fulfilled') process.stdout.write(`TEMPORAL_CLI_PATH=${cli.value}\n`);
  else {
    failed = true;
    log(`[temporal] ERROR (Temporal CLI): ${(cli.reason as Error)?.message ?? String(cli.reason)}`);
  }
  if (testServer.status === 'fulfilled') process.stdout.write(`TEMPORAL_TEST_SERVER_PATH=${testServer.value}\n`);
  else {
    failed = true;
    log(`[temporal] ERROR (test server): ${(testServer.reason as Error)?.message ?? String(testServer.reason)}`);
  }
  try {
    const cluster = await ensureClusterBinaries(log);
    process.stdout.write(`TEMPORAL_SERVER_PATH=${cluster.server}\n`);
  } catch (e) {
    failed = true;
    log(`[temporal] ERROR (cluster binaries): ${(e as Error)?.message ?? String(e)}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`[temporal] ERROR: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
