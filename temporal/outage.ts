/**
 * Notices the Temporal server coming back after an outage. While the server is
 * out, an API process commits the intent of a start or a signal in PostgreSQL and leaves the call
 * to the recovery sweep (temporal/client.ts `deferStartsToSweep`); the worker runs that sweep at
 * boot and, through `watchTemporal`, again each time the server answers after having failed to.
 */
import { temporalClient } from './client';

/**
 * Probes the Temporal server every `everyMs` (GetSystemInfo, 2 s deadline); after one or more
 * failed probes, the first answer calls `onBack`. Returns the function that stops probing.
 */
export function watchTemporal(onBack: () => void, everyMs = 2000): () => void {
  let failed = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const probe = async (): Promise<void> => {
    try {
      const c = await temporalClient();
      await c.withDeadline(Date.now() + 2000, () => c.workflowService.getSystemInfo({}));
      if (failed) {
        failed = false;
        onBack();
      }
    } catch {
      failed = true;
    }
    if (!stopped) {
      timer = setTimeout(() => void probe(), everyMs);
      timer.unref();
    }
  };
  timer = setTimeout(() => void probe(), everyMs);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
