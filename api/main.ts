/** API process entry: validates configuration, connects PostgreSQL and Temporal, listens on PORT. */
import 'reflect-metadata';
import http from 'node:http';
import { loadConfig } from '../lib/config';
import { initDb } from '../lib/db';
import { survivesDependencyOutages } from '../lib/dependency-errors';
import { logger } from '../lib/logger';
import { deferStartsToSweep, temporalClient } from '../temporal/client';
import { buildApp } from './app';
import { wireChainWatcher } from '../activities/payments/watcher';
import { startNotifyListener, stopNotifyListener } from '../lib/notify';
import { wireSwitchCache } from '../lib/switches';
import { wireAuthCache } from './middleware/auth';
import { flushRequestLogs, replayRequestLogs } from './middleware/request-log';
import { closeAllStreams } from './stream-hub';

/** Starts the HTTP server; resolves once listening. */
export async function startApi(port?: number): Promise<http.Server> {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) throw new Error('DATABASE_URL is required');
  await initDb(cfg.databaseUrl, 20);
  await temporalClient();
  deferStartsToSweep();
  await startNotifyListener(cfg.databaseUrl);
  await wireAuthCache();
  await wireSwitchCache();
  await replayRequestLogs().catch((e) => logger.warn({ err: e }, 'request log write-ahead files not replayed'));
  wireChainWatcher();
  const app = buildApp();
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65000;
  await new Promise<void>((res) => server.listen(port ?? cfg.port, cfg.host, () => res()));
  logger.info({ port: (server.address() as { port: number }).port }, 'api listening');
  return server;
}

/**
 * Graceful stop: ends every open event stream (they would otherwise hold the server open), stops
 * accepting connections (waits at most 5 s for requests in flight), then writes the buffered
 * request logs.
 */
export async function stopApi(server: http.Server): Promise<void> {
  closeAllStreams('server_shutdown');
  const closed = new Promise<void>((res) => server.close(() => res()));
  // Keep-alive sockets become idle once their response ends (streams included): close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  await Promise.race([closed, new Promise((r) => setTimeout(r, 5000).unref())]);
  clearInterval(sweep);
  server.closeAllConnections();
  await flushRequestLogs().catch((e) => logger.warn({ err: e }, 'request logs not flushed at shutdown'));
}

if (require.main === module) {
  survivesDependencyOutages(logger);
  startApi().then((server) => {
    const stop = async () => {
      await stopApi(server);
      await stopNotifyListener();
      process.exit(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }).catch((e) => {
    logger.fatal({ err: e }, 'api failed');
    process.exit(1);
  });
}
