/**
 * Runs the worker and the API in one process (dev stack and tests). Production runs `worker.ts`
 * and `api/main.ts` as separate, horizontally scalable processes.
 */
import '../lib/tracing-init'; // first: tracing instruments http, pg and undici before they load
import 'reflect-metadata';
import { stopNotifyListener } from '../lib/notify';
import { createWorker } from '../worker';
import { startApi, stopApi } from './main';
import { logger } from '../lib/logger';
import { stopTracing } from '../lib/tracing';

async function main(): Promise<void> {
  const { worker, stopDispatcher } = await createWorker();
  const running = worker.run();
  const server = await startApi();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopApi(server);
    // The SDK's runtime already begins the shutdown on SIGINT/SIGTERM; shutting down twice throws.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await stopDispatcher();
    await stopNotifyListener();
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await running;
}

main().catch((e) => {
  logger.fatal({ err: e }, 'serve failed');
  process.exit(1);
});
