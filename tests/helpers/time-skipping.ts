/**
 * The Java time-skipping test server for workflow tests (ARCHITECTURE.md "Temporal"): the wrapper
 * from temporal/dev (resolved from Maven Central, cached outside the checkout).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort } from '../../lib/ports';
import { ensureTestServer } from '../../temporal/dev/bootstrap';

/**
 * How long the JVM may take to listen. The SDK's own start (`createTimeSkipping` with an
 * 'existing-path' executable) gives it 5 s, which a loaded 2-core machine misses again and again
 * (a CI beside other work saw five starts in a row fail), so the server is started here and waited
 * for on its port instead.
 */
const LISTEN_WITHIN_MS = 120_000;

/** The SDK's environment factory behind `createTimeSkipping` and `createFromExistingServer` (private in its typings, public at run time). */
type CreateEnvironment = (options: {
  server: { type: 'existing' };
  address: string;
  namespace: string;
  supportsTimeSkipping: boolean;
  connectionOptions: Record<string, never>;
}) => Promise<TestWorkflowEnvironment>;

/** Resolves once `port` on 127.0.0.1 accepts a connection; rejects when `child` exits first or `withinMs` passes. */
async function listening(port: number, child: ChildProcess, output: () => string, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the Java test server exited (${child.exitCode ?? child.signalCode}) before listening:\n${output()}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`the Java test server did not listen on ${port} within ${withinMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a time-skipping environment on the cached Java test server (a process of its own on a free
 * port, waited for up to LISTEN_WITHIN_MS), connected with the test service so `env.sleep` and
 * result waits skip time as `createTimeSkipping` does. `teardown()` also stops the server.
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const executable = await ensureTestServer();
  const port = await freePort();
  // As the SDK starts it: the port alone, so time skipping starts locked and moves only while the
  // client waits on a result or calls `env.sleep` (`--enable-time-skipping` would skip whenever idle).
  const child = spawn(executable, [String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await listening(port, child, () => output, LISTEN_WITHIN_MS);
    const create = (TestWorkflowEnvironment as unknown as { create: CreateEnvironment }).create.bind(TestWorkflowEnvironment);
    const env = await create({
      server: { type: 'existing' },
      address: `127.0.0.1:${port}`,
      namespace: 'default',
      supportsTimeSkipping: true,
      connectionOptions: {},
    });
    const teardown = env.teardown.bind(env);
    env.teardown = async () => {
      await teardown();
      await stop();
    };
    return env;
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * How long before its deadline an object is checked still open. A deadline test (docs/decisions/0073-deadline-tests-check-time-passed.md) reads the deadline D as workflow time after the start of the object's workflow
 * run, checks the object still open at D - BEFORE_DEADLINE_MS, then that the run closed no earlier
 * than D and no later than D + TURN_SLACK_MS. The workflows wake at their deadlines themselves (a
 * timer of min(poll, time left)), so no poll period is added to the upper bound.
 */
export const BEFORE_DEADLINE_MS = 60_000;
/**
 * Upper slack on when a run closes after its deadline: the turn that acts on the fired timer (a
 * workflow task, an activity on PostgreSQL, a workflow task) runs in real time, and the test
 * server's clock moves with the wall clock while time skipping is locked.
 */
export const TURN_SLACK_MS = 30_000;

/** Milliseconds since the epoch of a protobuf timestamp of a history event (int64 seconds as a number or a Long). */
function tsMs(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(String(ts?.seconds ?? 0)) * 1000 + Math.floor((ts?.nanos ?? 0) / 1e6);
}

/**
 * When workflow `workflowId` began and (once closed) when it closed, in workflow time (ms since the
 * epoch): the start of the first run of its continue-as-new chain (a long wait with a short poll
 * continues as new on the way; the object clock's origin is carried across) and the close of the
 * current run.
 */
export async function runTimes(env: TestWorkflowEnvironment, workflowId: string): Promise<{ startMs: number; closeMs: number | null }> {
  const d = await env.client.workflow.getHandle(workflowId).describe();
  const firstEvent = async (runId: string) => (await env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events?.[0];
  let runId = d.runId;
  for (;;) {
    const first = await firstEvent(runId);
    const previous = first?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return { startMs: tsMs(first?.eventTime), closeMs: d.closeTime ? d.closeTime.getTime() : null };
    runId = previous;
  }
}

/** Workflow time from the start of workflow `workflowId` (its first run) to the close of its current run; throws while it runs. */
export async function runElapsedMs(env: TestWorkflowEnvironment, workflowId: string): Promise<number> {
  const t = await runTimes(env, workflowId);
  if (t.closeMs === null) throw new Error(`workflow ${workflowId} is still running`);
  return t.closeMs - t.startMs;
}

/** Moves the test server's clock to `atMs` (workflow time; timers due before then fire on the way); nothing when already past. */
export async function skipToTime(env: TestWorkflowEnvironment, atMs: number): Promise<void> {
  const now = await env.currentTimeMs();
  if (atMs > now) await env.sleep(atMs - now);
}

/** Moves the test server's clock to `offsetMs` of workflow time after workflow `workflowId` began (runTimes). */
export async function skipToRunOffset(env: TestWorkflowEnvironment, workflowId: string, offsetMs: number): Promise<void> {
  await skipToTime(env, (await runTimes(env, workflowId)).startMs + offsetMs);
}

/**
 * The timer workflow `workflowId` is waiting on (the last one started and neither fired nor
 * cancelled), in workflow time: when it started and when it fires; null when there is none.
 */
export async function pendingTimer(
  env: TestWorkflowEnvironment,
  workflowId: string,
): Promise<{ startedMs: number; fireAtMs: number } | null> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const closed = new Set<string>();
  for (const e of events) {
    const id = e.timerFiredEventAttributes?.timerId ?? e.timerCanceledEventAttributes?.timerId;
    if (id) closed.add(id);
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const t = events[i].timerStartedEventAttributes;
    if (!t) continue;
    if (closed.has(t.timerId ?? '')) return null;
    const startedMs = tsMs(events[i].eventTime);
    return { startedMs, fireAtMs: startedMs + tsMs(t.startToFireTimeout) };
  }
  return null;
}
