/**
 * Workflows of bench/temporal-floor.ts (never registered in the product's worker): the least a
 * workflow can be on a Temporal server (why webhooks moved to one workflow per endpoint).
 * - `emptyWorkflow`: starts and completes (one workflow task).
 * - `oneLocalActivityWorkflow`: one local activity that returns at once, then completes, as a
 *   webhook delivery's first successful attempt did under the former one-workflow-per-delivery design.
 * - `floorFanOutWorkflow`: a payroll execution's shape with nothing to pay (bench/payroll.ts).
 */
import { executeChild, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';

const { floorAttempt } = proxyLocalActivities<{ floorAttempt(): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** Completes at once. */
export async function emptyWorkflow(): Promise<void> {
  // Nothing to do: the cost measured is the start and the one workflow task.
}

/** Runs one local activity and returns its result. */
export async function oneLocalActivityWorkflow(): Promise<number> {
  return floorAttempt();
}

const { floorItem } = proxyActivities<{ floorItem(i: number): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** One child per item: one activity that returns at once (the least an item payment can cost). */
export async function floorItemWorkflow(index: number): Promise<number> {
  return floorItem(index);
}

/**
 * The shape of a payroll execution with nothing to do (bench/payroll.ts baseline): `items` child
 * workflows, `concurrency` in flight at once, each one activity; completes when all have.
 */
export async function floorFanOutWorkflow(items: number, concurrency: number): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < items) {
      const i = next++;
      await executeChild(floorItemWorkflow, { workflowId: `${workflowInfo().workflowId}_${i}`, args: [i] });
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items) }, lane));
  return done;
}
