/**
 * Time-skipping Temporal environment for workflow tests: the Java test server (resolved from Maven
 * Central by temporal/dev/resolve.ts) with the AccountId search attribute registered, a worker on the
 * product's task queue running the real workflows and activities (real PostgreSQL), and the
 * activities' Temporal client pointed at the test server.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { activities } from '../../activities';
import { loadConfig } from '../../lib/config';
import { registerSearchAttributes } from '../../temporal/dev/bootstrap';
import { startTimeSkipping } from './time-skipping';
import { setTemporalClient } from '../../temporal/client';
import { HEARTBEAT_THROTTLE_MS } from '../../temporal/config';
import { connectDb } from './api';
import { awaitAfterCommitHooks } from '../../lib/db';

export interface WorkflowHarness {
  env: TestWorkflowEnvironment;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Starts the environment and a worker; call `stop()` in afterAll. */
export async function startWorkflowHarness(): Promise<WorkflowHarness> {
  if (!runtimeInstalled) {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      /* already installed in this process */
    }
    runtimeInstalled = true;
  }
  await connectDb();
  const env = await startTimeSkipping();
  await registerSearchAttributes(env.connection);
  setTemporalClient(env.client);
  // Commands and activities start workflows after commit (temporal/intents.ts): wait for those
  // starts here, so a skip of hours right after a command finds the workflow running.
  awaitAfterCommitHooks(true);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: loadConfig().temporalTaskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities,
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
  });
  const running = worker.run();
  return {
    env,
    stop: async () => {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
