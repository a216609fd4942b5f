/** API process entry: validates configuration, connects PostgreSQL and Temporal, listens on PORT. */
import 'reflect-metadata';
import http from 'node:http';
import { loadConfig } from '../lib/config';
import { initDb } from '../lib/db';
import { logger } from '../lib/logger';
import { temporalClient } from '../temporal/client';
import { buildApp } from './app';
import { wireChainWatcher } from '../activities/payins';
import { startNotifyListener } from '../lib/notify';
import { wireAuthCache } from './middleware/auth';

/** Starts the HTTP server; resolves once listening. */
export async function startApi(port?: number): Promise<http.Server> {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) throw new Error('DATABASE_URL is required');
  await initDb(cfg.databaseUrl, 20);
  await temporalClient();
  await startNotifyListener(cfg.databaseUrl);
  await wireAuthCache();
  wireChainWatcher();
  const app = buildApp();
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65000;
  await new Promise<void>((res) => server.listen(port ?? cfg.port, cfg.host, () => res()));
  logger.info({ port: (server.address() as { port: number }).port }, 'api listening');
  return server;
}

if (require.main === module) {
  startApi().catch((e) => {
    logger.fatal({ err: e }, 'api failed');
    process.exit(1);
  });
}
