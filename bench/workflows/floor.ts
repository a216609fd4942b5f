/**
 * Workflows of bench/temporal-floor.ts (never registered in the product's worker): the least a
 * workflow per delivery can be on a Temporal server.
 * - `emptyWorkflow`: starts and completes (one workflow task).
 * - `oneLocalActivityWorkflow`: one local activity that returns at once, then completes, as a
 *   webhook delivery's first successful attempt does (workflows/webhook-delivery.ts).
 */
import { proxyLocalActivities } from '@temporalio/workflow';

const { floorAttempt } = proxyLocalActivities<{ floorAttempt(): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** Completes at once. */
export async function emptyWorkflow(): Promise<void> {
  // Nothing to do: the cost measured is the start and the one workflow task.
}

/** Runs one local activity and returns its result. */
export async function oneLocalActivityWorkflow(): Promise<number> {
  return floorAttempt();
}
