/**
 * The Temporal SDK's own worker metrics (decision 0085): the SDK's Rust core
 * exports them in Prometheus format (`temporal_` prefix: task slots, poll and schedule-to-start
 * latencies, workflow and activity task outcomes, sticky cache, request failures), with `_total`
 * counters and seconds (`countersTotalSuffix`, `unitSuffix`, `useSecondsForDurations`). The core
 * listens on a loopback port of its own; `installRuntimeMetrics` appends what it serves to this
 * process's `/metrics` (lib/metrics.ts `addScrapeSource`), so a scraper reads one document.
 * Must run before the process's first NativeConnection (the SDK's runtime is created once).
 */
import { Runtime } from '@temporalio/worker';
import { logger } from '../lib/logger';
import { freePort } from '../lib/ports';
import { addScrapeSource, metricsOn } from '../lib/metrics';

/**
 * Installs the SDK runtime with its Prometheus exporter on a loopback port and adds that port's
 * `/metrics` to this process's scrape. Returns false (and logs) when metrics are off or a runtime
 * was already installed in this process (tests), true otherwise.
 */
export async function installRuntimeMetrics(): Promise<boolean> {
  if (!metricsOn()) return false;
  const port = await freePort();
  try {
    Runtime.install({
      telemetryOptions: {
        metrics: {
          prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
        },
      },
    });
  } catch (err) {
    logger.warn({ err }, 'Temporal SDK runtime already installed: its worker metrics are not exported by this process');
    return false;
  }
  const url = `http://127.0.0.1:${port}/metrics`;
  addScrapeSource(async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok ? res.text() : '';
  });
  return true;
}
