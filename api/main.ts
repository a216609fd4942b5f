/** API process entry: validates configuration, connects PostgreSQL and Temporal, listens on PORT. */
import '../lib/tracing-init'; // first: tracing instruments http, pg and undici before they load
import 'reflect-metadata';
import http from 'node:http';
import { loadConfig } from '../lib/config';
import { closeDb, initDb } from '../lib/db';
import { survivesDependencyOutages } from '../lib/dependency-errors';
import { logger } from '../lib/logger';
import { stopTracing } from '../lib/tracing';
import { deferStartsToSweep, temporalClient } from '../temporal/client';
import { buildApp } from './app';
import { wireChainWatcher } from '../activities/payments/watcher';
import { startNotifyListener, stopNotifyListener } from '../lib/notify';
import { wireSwitchCache } from '../lib/switches';
import { wireAuthCache } from './middleware/auth';
import { flushRequestLogs, replayRequestLogs } from './middleware/request-log';
import { closeAllStreams } from './stream-hub';
import { intentsSettled } from '../temporal/intents';
import { Lifecycle } from './lifecycle';
import { startMetricsSampler } from '../activities/observability/sampler';
import { ensureMetricsServer } from '../lib/metrics-server';

const lifecycles = new WeakMap<http.Server, Lifecycle>();

/** Starts the HTTP server; resolves once listening. */
export async function startApi(port?: number): Promise<http.Server> {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) throw new Error('DATABASE_URL is required');
  await initDb(cfg.databaseUrl, 20);
  // Before connecting: an API process serves while Temporal is out, even at boot (temporal/client.ts).
  deferStartsToSweep();
  await temporalClient();
  await startNotifyListener(cfg.databaseUrl);
  await wireAuthCache();
  await wireSwitchCache();
  await replayRequestLogs().catch((e) => logger.warn({ err: e }, 'request log write-ahead files not replayed'));
  wireChainWatcher();
  await ensureMetricsServer();
  startMetricsSampler({ business: false });
  const lifecycle = new Lifecycle();
  const app = buildApp({ lifecycle });
  const server = http.createServer(app.callback());
  lifecycles.set(server, lifecycle);
  server.keepAliveTimeout = 65000;
  await new Promise<void>((res) => server.listen(port ?? cfg.port, cfg.host, () => res()));
  logger.info({ port: (server.address() as { port: number }).port }, 'api listening');
  return server;
}

/**
 * Graceful stop for a rolling deploy (decision 0082), in order:
 * 1. draining: `/readyz` answers 503 and every response `Connection: close`; the instance keeps
 *    serving for `drainSeconds` (SHUTDOWN_DRAIN_SECONDS) so the load balancer stops sending to it;
 * 2. open event streams end (clients resume elsewhere with `Last-Event-ID`) and the listener closes:
 *    no new connection is accepted, idle keep-alive connections are closed as they become idle;
 * 3. requests in flight finish, for at most `graceSeconds` (SHUTDOWN_GRACE_SECONDS); what is still
 *    open then is cut (a client retries it with its Idempotency-Key: spec 3);
 * 4. the buffered request logs are written.
 * Resolves when done; never throws.
 */
export async function stopApi(server: http.Server, opts: { drainSeconds?: number; graceSeconds?: number } = {}): Promise<void> {
  const cfg = loadConfig();
  const drainMs = 1000 * (opts.drainSeconds ?? cfg.shutdownDrainSeconds);
  const graceMs = 1000 * (opts.graceSeconds ?? cfg.shutdownGraceSeconds);
  lifecycles.get(server)?.startDraining();
  if (drainMs > 0) {
    logger.info({ drain_ms: drainMs }, 'api draining: /readyz answers 503');
    await new Promise((r) => setTimeout(r, drainMs));
  }
  closeAllStreams('server_shutdown');
  const closed = new Promise<void>((res) => server.close(() => res()));
  // Keep-alive sockets become idle once their response ends (streams included): close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const cut = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((r) => {
      timer = setTimeout(() => r(true), graceMs);
    }),
  ]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (cut) logger.warn({ grace_ms: graceMs }, 'api stop: requests still in flight after the grace period were cut');
  server.closeAllConnections();
  // Workflow starts and signals committed by the last requests (temporal/intents.ts): finish them here
  // rather than leave them to a worker's sweep.
  await intentsSettled();
  await flushRequestLogs().catch((e) => logger.warn({ err: e }, 'request logs not flushed at shutdown'));
}

if (require.main === module) {
  survivesDependencyOutages(logger);
  startApi()
    .then((server) => {
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'api stopping');
        await stopApi(server);
        await stopNotifyListener();
        await closeDb().catch(() => undefined);
        await stopTracing();
        logger.info('api stopped');
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    })
    .catch((e) => {
      logger.fatal({ err: e }, 'api failed');
      process.exit(1);
    });
}
