/**
 * `npm run temporal -- <args>`: the project's own Temporal CLI (temporal/dev/resolve.ts
 * `ensureTemporalCli`: TEMPORAL_CLI_PATH, `temporal` on PATH, or the build cached in
 * ~/.cache/payments-platform/bin/temporal, built on first use) against the configured server:
 * TEMPORAL_ADDRESS when set, else the running dev stack's (`.data/runtime.json`
 * `temporal_address`, written by `npm start`); namespace TEMPORAL_NAMESPACE or `default`. The
 * arguments go to the CLI as given, e.g.
 *   npm run temporal -- workflow list --query "AccountId='acct_...'"
 *   npm run temporal -- workflow list --query "RequestId='req_...'"      (the workflow a request started)
 *   npm run temporal -- workflow list --query "Parked=true AND ExecutionStatus='Running'"
 *   npm run temporal -- workflow describe -w pay_...
 * The server and namespace reach the CLI through its own environment variables, so an explicit
 * `--address` / `--namespace` argument still wins. Exits with the CLI's status.
 */
import { spawn } from 'node:child_process';
import { TEMPORAL_NAMESPACE } from '../temporal/config';
import { ensureTemporalCli } from '../temporal/dev/resolve';
import { readRuntime } from './runtime';

/** The server the CLI talks to: TEMPORAL_ADDRESS, else the running dev stack's; throws a clear error when neither is known. */
export function temporalAddress(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TEMPORAL_ADDRESS) return env.TEMPORAL_ADDRESS;
  return readRuntime().temporal_address;
}

async function main(): Promise<number> {
  const address = temporalAddress();
  const cli = await ensureTemporalCli((m) => process.stderr.write(`${m}\n`));
  const child = spawn(cli, process.argv.slice(2), {
    stdio: 'inherit',
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE || TEMPORAL_NAMESPACE },
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`temporal: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
