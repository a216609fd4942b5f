/**
 * The metrics listener of a process (decision 0085): `GET /metrics` (lib/metrics.ts
 * `metricsText()`, Prometheus text format) on METRICS_HOST:METRICS_PORT, a port of its own that is
 * not the public API port, so a deployment exposes it to its scraper only (bind to an internal
 * interface, or keep the default 127.0.0.1 for a sidecar). Any other path or method answers 404.
 * One listener per process: the API and the worker in one process (api/serve.ts) share it.
 */
import http from 'node:http';
import { loadConfig } from './config';
import { logger } from './logger';
import { METRICS_CONTENT_TYPE, metricsText } from './metrics';

let server: Promise<http.Server | null> | null = null;
let retry: NodeJS.Timeout | null = null;
/** How often a listener whose port is taken tries to bind again, ms. */
const REBIND_MS = 2000;

/**
 * Starts the listener once per process when METRICS_PORT is set; resolves with it (null when unset;
 * not yet listening while its port is taken). A taken port never stops the process (metrics must not stop money
 * moving): it is logged and bound again every 2 s until it is free, e.g. while the process it
 * replaces in a rolling restart on the same host still drains.
 */
export function ensureMetricsServer(): Promise<http.Server | null> {
  server ??= (async () => {
    const { port, host, enabled } = loadConfig().metrics;
    if (port === null || !enabled) return null;
    const s = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      metricsText().then(
        (text) => res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(text),
        (err) => {
          logger.warn({ err }, 'metrics scrape failed');
          res.writeHead(500).end();
        },
      );
    });
    const bind = () =>
      new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
    const listening = () => {
      s.unref();
      logger.info({ host, port: (s.address() as { port: number }).port }, 'metrics listening');
    };
    try {
      await bind();
      listening();
    } catch (err) {
      logger.error({ err, host, port }, 'metrics port unavailable; binding again every 2 s');
      const again = () => {
        retry = setTimeout(() => {
          bind().then(listening, () => again());
        }, REBIND_MS);
        retry.unref();
      };
      again();
    }
    return s;
  })();
  return server;
}

/** Closes the listener (process stop). */
export async function stopMetricsServer(): Promise<void> {
  if (retry) clearTimeout(retry);
  const s = await server?.catch(() => null);
  server = null;
  if (s?.listening) await new Promise<void>((r) => s.close(() => r()));
}
