/**
 * Tier A: the `Parked` search attribute (issue 29; workflows/convention.ts parkForOperator) with
 * stub activities under the Java time-skipping server (AccountId, RequestId and Parked registered):
 * a workflow started with search attributes upserts Parked = true when it parks and false when the
 * `retry` signal resumes it, behind the `parked-search-attribute` patch marker; one started without
 * them issues neither; and a history that parked and resumed under the code before the patch
 * (tests/workflows/fixtures/customer-parked-before-patch.json, recorded from commit c70b6bf with
 * AccountId set) replays against the current code without nondeterminism.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { customerContract } from '../../../contracts/customer';
import { ACCOUNT_KEY, PARKED_KEY } from '../../../contracts/search-attributes';
import { registerSearchAttributes } from '../../../temporal/dev/bootstrap';
import { historyFromProtoJson } from '../../../temporal/dev/history-json';
import { PARKED_PATCH } from '../../../workflows/convention';
import { customerWorkflow } from '../../../workflows/customer';
import { startLogicEnv, uid, waitingFor, withWorker, type Stubs } from './harness';

const { retry } = customerContract.signals;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startLogicEnv();
  await registerSearchAttributes(env.connection);
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

/** Fails the first read with a non-retryable NotFound (the workflow parks), then approves. */
function failsOnce(): Stubs<typeof customerContract> {
  let reads = 0;
  return {
    syncCustomerVerification: async () => {
      reads += 1;
      if (reads === 1) throw ApplicationFailure.nonRetryable('customer not found', 'NotFound');
      return 'approved';
    },
  };
}

/** The history's patch markers and Parked upserts, in order. */
async function visibilityCommands(h: WorkflowHandle): Promise<string[]> {
  const events = (await h.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    if (e.markerRecordedEventAttributes) return [`marker ${e.markerRecordedEventAttributes.markerName}`];
    if (e.upsertWorkflowSearchAttributesEventAttributes)
      return [`upsert ${Object.keys(e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields ?? {}).join(',')}`];
    return [];
  });
}

async function replays(workflowId: string, history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>>): Promise<void> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../../workflows'),
    logger: new DefaultLogger('WARN'),
  });
  await Worker.runReplayHistory({ workflowBundle, replayName: 'parked-attribute' }, history, workflowId);
}

test('started with search attributes: Parked is true while parked and false once `retry` resumed it (patched)', async () => {
  await withWorker(env, customerContract, failsOnce(), async (tq) => {
    const id = uid('cus_');
    const h = await env.client.workflow.start(customerWorkflow, {
      taskQueue: tq,
      workflowId: id,
      args: [{ customerId: id }],
      typedSearchAttributes: [{ key: ACCOUNT_KEY, value: 'acct_x' }],
    });
    await waitingFor(h, /^an operator: NotFound/);
    expect((await h.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(true);
    await h.signal(retry);
    expect(await h.result()).toBe('approved');
    expect((await h.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(false);
    const cmds = await visibilityCommands(h);
    // The SDK records the patch in the system attribute TemporalChangeVersion beside its marker.
    expect(cmds).toEqual(['marker core_patch', 'upsert TemporalChangeVersion', 'upsert Parked', 'upsert Parked']);
    const marker = (await h.fetchHistory()).events!.find((e) => e.markerRecordedEventAttributes)!.markerRecordedEventAttributes!;
    const data = Object.values(marker.details ?? {})
      .flatMap((p) => p.payloads ?? [])
      .map((p) => defaultPayloadConverter.fromPayload(p));
    expect(JSON.stringify(data)).toContain(PARKED_PATCH);
    await replays(id, await h.fetchHistory());
  });
});

test('started without search attributes: parks and resumes with no patch marker and no upsert', async () => {
  await withWorker(env, customerContract, failsOnce(), async (tq) => {
    const id = uid('cus_');
    const h = await env.client.workflow.start(customerWorkflow, { taskQueue: tq, workflowId: id, args: [{ customerId: id }] });
    await waitingFor(h, /^an operator: NotFound/);
    expect((await h.describe()).typedSearchAttributes.get(PARKED_KEY)).toBeUndefined();
    await h.signal(retry);
    expect(await h.result()).toBe('approved');
    expect(await visibilityCommands(h)).toEqual([]);
  });
});

test('a history that parked and resumed before the patch replays against the current code', async () => {
  const file = path.resolve(__dirname, '../fixtures/customer-parked-before-patch.json');
  const history = historyFromProtoJson(JSON.parse(fs.readFileSync(file, 'utf8')));
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  expect(Object.keys(started.searchAttributes?.indexedFields ?? {})).toEqual(['AccountId']);
  expect(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'retry')).toBe(true);
  await replays('cus_parked_before_patch', history);
});
