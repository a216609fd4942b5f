/**
 * Fast tier A harness: the real workflows under the Java time-skipping test server, with in-memory
 * stub activities and no database or product. One environment and one workflow bundle per test
 * file; one worker per test on its own task queue. Runs without jest's global setup
 * (jest.logic.config.js, `npm run test:logic`).
 *
 * Stubs are typed by the workflow's contract (contracts/<object>.ts): `withWorker(env, contract,
 * stubs, fn)` takes any subset of the contract's activity interface, each stub with the interface's
 * signature, so an activity renamed or retyped in the contract fails to compile here (`npm run lint`
 * runs tsc over tests/) before it fails at run time.
 */
import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { ActivitiesOf, QuerySet, SignalSet, WorkflowContract } from '../../../contracts/contract';
import { startTimeSkipping } from '../../helpers/time-skipping';

/** The intersection of the members of union `U`. */
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * Stub activities for the workflow of contract `C` (or of every contract of a list, e.g. a run and
 * its child items): any subset of the activity interface, with the interface's signatures.
 */
export type Stubs<C> = Partial<C extends readonly unknown[] ? Intersect<ActivitiesOf<C[number]>> : ActivitiesOf<C>>;

/** Any workflow contract. */
type Contract = WorkflowContract<object, SignalSet, QuerySet, unknown>;

let bundle: Promise<WorkflowBundleWithSourceMap> | null = null;

/** Starts the time-skipping environment (call in beforeAll; teardown in afterAll). */
export async function startLogicEnv(): Promise<TestWorkflowEnvironment> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* already installed */
  }
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../../workflows'), logger: new DefaultLogger('WARN') });
  const env = await startTimeSkipping();
  await bundle;
  return env;
}

/** A fresh id with `prefix` (workflow ids and task queues). */
export const uid = (prefix: string) => `${prefix}${crypto.randomBytes(6).toString('hex')}`;

/**
 * Runs `fn(taskQueue)` while a worker with the stub `activities` of `contract`'s workflow (or of
 * each contract of a list) polls a fresh task queue.
 */
export async function withWorker<C extends Contract | readonly Contract[], T>(
  env: TestWorkflowEnvironment,
  _contract: C,
  activities: Stubs<C>,
  fn: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = uid('logic-');
  // A local activity's info carries the worker's wall clock, not the skipped server time: read the
  // environment's clock before each local call, for activityNowMs.
  const timed = Object.fromEntries(
    Object.entries(activities as Record<string, (...a: unknown[]) => Promise<unknown>>).map(([name, fn]) => [
      name,
      async (...a: unknown[]) => {
        if (Context.current().info.isLocal) localNowMs = await env.currentTimeMs();
        return fn(...a);
      },
    ]),
  );
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundle!, activities: timed });
  return worker.runUntil(fn(taskQueue));
}

/** Polls the `waiting_for` query until it matches `re` (time does not skip meanwhile); returns the answer. */
export async function waitingFor(handle: WorkflowHandle, re: RegExp, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      last = await handle.query<string>('waiting_for');
    } catch {
      /* not started yet */
    }
    if (re.test(last)) return last;
    if (Date.now() > until) throw new Error(`waiting_for never matched ${re}; last answer: ${last}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The skipped server clock when the running local activity began (withWorker). */
let localNowMs = 0;

/** Workflow time of the running activity (epoch ms; the skipped server clock), remote or local. */
export const activityNowMs = () =>
  Context.current().info.isLocal ? localNowMs : Context.current().info.currentAttemptScheduledTimestampMs;

/** Run id of the workflow that called the running activity. */
export const callerRunId = (): string => {
  const run = Context.current().info.workflowExecution?.runId;
  if (!run) throw new Error('callerRunId: the running activity was not scheduled by a workflow');
  return run;
};

/** Timer durations (ms) started in the first run of `handle`, in order. */
export async function timersOf(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const d = e.timerStartedEventAttributes?.startToFireTimeout as { seconds?: unknown; nanos?: number | null } | undefined;
    return d ? [Number(String(d.seconds ?? 0)) * 1000 + Math.round((d.nanos ?? 0) / 1e6)] : [];
  });
}

/** A promise with its resolver (to hold a stub activity until the test lets it go). */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}
