/**
 * The Temporal work a set of merchant journeys caused, counted from workflow histories (issue 36
 * item 1, "Count the work"; used by `bench:load --open` after each rate step).
 *
 * What it counts, per history event:
 * - workflow starts: runs started (`WorkflowExecutionStarted`, one per run, continue-as-new included);
 * - workflow tasks: completed workflow tasks (`WorkflowTaskCompleted`);
 * - activity tasks, remote: `ActivityTaskScheduled`;
 * - activity tasks, local: `MarkerRecorded` whose marker name is the SDK's local-activity marker
 *   (`core_local_activity`);
 * - signals received: `WorkflowExecutionSignaled`;
 * - history events: every event.
 *
 * Whose histories: a journey's payment workflow (workflow id = the payment id, `pay_...`) and link
 * workflow (the link id, `pl_...`), all their events; and the webhook endpoint workflow (the endpoint
 * id, `whe_...`), which every journey shares: only the events whose `eventTime` falls within the
 * step's window (its first arrival until its deliveries have drained), so a step is charged with the
 * endpoint work done while it ran. A workflow id can have several runs (continue-as-new, a new run
 * after the last one completed): each id's runs are listed with the client's visibility list
 * (`WorkflowId = '<id>'`) and each run's history is fetched, at most CONCURRENCY calls at a time.
 * Reading histories costs the Temporal server CPU: call it between steps, never while measuring.
 */
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';

/** Calls to the Temporal server in flight at once while counting. */
const CONCURRENCY = 16;

/** The SDK's marker name for a local activity's result (sdk-core `LOCAL_ACTIVITY_MARKER_NAME`). */
export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** `temporal.api.enums.v1.EventType` wire values (temporal/api/enums/v1/event_type.proto) of the events counted. */
const EVENT = {
  WORKFLOW_EXECUTION_STARTED: 1,
  WORKFLOW_TASK_COMPLETED: 7,
  ACTIVITY_TASK_SCHEDULED: 10,
  MARKER_RECORDED: 25,
  WORKFLOW_EXECUTION_SIGNALED: 26,
} as const;

/** Counts over a set of histories (module doc). */
export interface WorkCounts {
  starts: number;
  workflowTasks: number;
  remoteActivities: number;
  localActivities: number;
  signals: number;
  events: number;
}

const zero = (): WorkCounts => ({ starts: 0, workflowTasks: 0, remoteActivities: 0, localActivities: 0, signals: 0, events: 0 });

/** `a + b`, field by field. */
export function addCounts(left: WorkCounts, right: WorkCounts): WorkCounts {
  return {
    starts: left.starts + right.starts,
    workflowTasks: left.workflowTasks + right.workflowTasks,
    remoteActivities: left.remoteActivities + right.remoteActivities,
    localActivities: left.localActivities + right.localActivities,
    signals: left.signals + right.signals,
    events: left.events + right.events,
  };
}

/** `c / n`, field by field (n at least 1). */
export function divideCounts(workCounts: WorkCounts, count: number): WorkCounts {
  const d = Math.max(1, count);
  return {
    starts: workCounts.starts / d,
    workflowTasks: workCounts.workflowTasks / d,
    remoteActivities: workCounts.remoteActivities / d,
    localActivities: workCounts.localActivities / d,
    signals: workCounts.signals / d,
    events: workCounts.events / d,
  };
}

/** A step's work by kind of workflow; per journey once divided (`perJourney`). */
export interface StepWork {
  payment: WorkCounts;
  link: WorkCounts;
  endpoint: WorkCounts;
}

/** A step's total over the three kinds. */
export const totalOf = (stepWork: StepWork): WorkCounts => addCounts(addCounts(stepWork.payment, stepWork.link), stepWork.endpoint);

/** The step's work divided by its `journeys`. */
export const perJourney = (stepWork: StepWork, journeys: number): StepWork => ({
  payment: divideCounts(stepWork.payment, journeys),
  link: divideCounts(stepWork.link, journeys),
  endpoint: divideCounts(stepWork.endpoint, journeys),
});

/** Runs `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/** A window of wall-clock time, epoch ms, both ends included. */
export interface Window {
  fromMs: number;
  toMs: number;
}

/**
 * The counts of every run of `workflowIds`: all events of each run, or with `window` only the
 * events whose `eventTime` falls within it (runs that closed before it or started after it are
 * not fetched). Also answers how many runs were read.
 */
export async function countWork(client: Client, workflowIds: string[], window?: Window): Promise<{ counts: WorkCounts; runs: number }> {
  const runsOf = await mapLimit(workflowIds, CONCURRENCY, async (id) => {
    const runs: Array<{ id: string; runId: string }> = [];
    for await (const info of client.workflow.list({ query: `WorkflowId = '${id}'` })) {
      if (window && (info.startTime.getTime() > window.toMs || (info.closeTime && info.closeTime.getTime() < window.fromMs))) continue;
      runs.push({ id, runId: info.runId });
    }
    return runs;
  });
  const runs = runsOf.flat();
  const perRun = await mapLimit(runs, CONCURRENCY, async ({ id, runId }) => {
    const c = zero();
    for (const e of (await client.workflow.getHandle(id, runId).fetchHistory()).events ?? []) {
      if (window) {
        const at = optionalTsToMs(e.eventTime);
        if (at === undefined || at < window.fromMs || at > window.toMs) continue;
      }
      c.events += 1;
      switch (e.eventType) {
        case EVENT.WORKFLOW_EXECUTION_STARTED:
          c.starts += 1;
          break;
        case EVENT.WORKFLOW_TASK_COMPLETED:
          c.workflowTasks += 1;
          break;
        case EVENT.ACTIVITY_TASK_SCHEDULED:
          c.remoteActivities += 1;
          break;
        case EVENT.MARKER_RECORDED:
          if (e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER) c.localActivities += 1;
          break;
        case EVENT.WORKFLOW_EXECUTION_SIGNALED:
          c.signals += 1;
          break;
      }
    }
    return c;
  });
  return { counts: perRun.reduce(addCounts, zero()), runs: runs.length };
}

/**
 * A step's work (module doc): every run of its payments' and links' workflows, and the endpoint
 * workflow's events within `window`. Also answers how many runs were read.
 */
export async function countStepWork(
  client: Client,
  step: { payments: string[]; links: string[]; endpointId: string; window: Window },
): Promise<{ work: StepWork; runs: number }> {
  const payment = await countWork(client, step.payments);
  const link = await countWork(client, step.links);
  const endpoint = await countWork(client, [step.endpointId], step.window);
  return {
    work: { payment: payment.counts, link: link.counts, endpoint: endpoint.counts },
    runs: payment.runs + link.runs + endpoint.runs,
  };
}

/** `starts 1.0, workflow tasks 9.5, activity tasks 7.0 remote + 0.0 local, signals 2.0, history events 53.5`. */
export function describeCounts(workCounts: WorkCounts): string {
  const f = (n: number) => n.toFixed(1);
  return `starts ${f(workCounts.starts)}, workflow tasks ${f(workCounts.workflowTasks)}, activity tasks ${f(workCounts.remoteActivities)} remote + ${f(workCounts.localActivities)} local, signals ${f(workCounts.signals)}, history events ${f(workCounts.events)}`;
}

/**
 * One line of per-journey work: `starts 3.0, workflow tasks 14.2, activity tasks 9.1 remote + 0.0
 * local, signals 5.0, history events 88.3 (payment 40.1, link 20.0, webhook endpoint 28.2)`.
 */
export function describeWork(perJourneyWork: StepWork): string {
  const f = (n: number) => n.toFixed(1);
  return `${describeCounts(totalOf(perJourneyWork))} (payment ${f(perJourneyWork.payment.events)}, link ${f(perJourneyWork.link.events)}, webhook endpoint ${f(perJourneyWork.endpoint.events)})`;
}
