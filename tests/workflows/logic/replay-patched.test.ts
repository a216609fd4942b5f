/**
 * Replay catches an activity call added without `patched()` (docs/workflow-versioning.md): stored
 * histories replayed against test-only copies of their workflows
 * (fixtures/replay-changed-workflows.ts) with one activity call added before an existing one. The
 * copy as it is replays cleanly; the call added bare fails with a DeterminismViolationError; the
 * same call behind `patched()` replays cleanly (a history without the marker keeps the old
 * commands). Covers remote activities (payrollItemWorkflow, paymentLinkWorkflow of the first
 * release) and local ones (paymentLinkWorkflow with `localSteps`). Offline: one bundle, no server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { historyFromProtoJson } from '../../../temporal/dev/history-json';
import * as changed from './fixtures/replay-changed-workflows';

const DIR = path.resolve(__dirname, '../histories');

type Changed = keyof typeof changed;

/** Each stored history and the fixture workflows standing for its type: unchanged, the bare extra call, the patched one. */
const CASES: Array<{ file: string; unchanged: Changed; bare: Changed; patched: Changed }> = [
  {
    file: 'payrollItemWorkflow/bank-paid.json',
    unchanged: 'payrollItemUnchanged',
    bare: 'payrollItemExtraCall',
    patched: 'payrollItemExtraCallPatched',
  },
  {
    file: 'paymentLinkWorkflow/activated-and-paid.json',
    unchanged: 'paymentLinkUnchanged',
    bare: 'paymentLinkExtraCall',
    patched: 'paymentLinkExtraCallPatched',
  },
  {
    file: 'paymentLinkWorkflow/activated-and-paid.local-steps.json',
    unchanged: 'paymentLinkUnchanged',
    bare: 'paymentLinkExtraCall',
    patched: 'paymentLinkExtraCallPatched',
  },
  {
    file: 'paymentLinkWorkflow/reminded-then-expired.local-steps.json',
    unchanged: 'paymentLinkUnchanged',
    bare: 'paymentLinkExtraCall',
    patched: 'paymentLinkExtraCallPatched',
  },
];

/** Stored history `file`, its workflow type renamed to the fixture workflow `as` (replay runs the type the history names). */
function storedAs(file: string, as: Changed) {
  const history = historyFromProtoJson(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  expect(started.workflowType!.name).toBe(file.split('/')[0]);
  started.workflowType!.name = as;
  return history;
}

let bundle: ReturnType<typeof bundleWorkflowCode> | null = null;
/** The bundle of the fixture workflows (built once for this file). */
function fixtureBundle(): ReturnType<typeof bundleWorkflowCode> {
  try {
    // Core's warnings of the failing replays (expected here) stay quiet.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
    });
  } catch {
    /* already installed */
  }
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('./fixtures/replay-changed-workflows'),
    logger: new DefaultLogger('WARN'),
  });
  return bundle;
}

/** Replays `file` as fixture workflow `as`; the replay error, or null when it replayed cleanly. */
async function replay(file: string, as: Changed): Promise<Error | null> {
  expect(typeof changed[as]).toBe('function');
  try {
    await Worker.runReplayHistory({ workflowBundle: await fixtureBundle(), replayName: `changed-${as}` }, storedAs(file, as), file);
    return null;
  } catch (e) {
    return e as Error;
  }
}

describe.each(CASES)('$file', ({ file, unchanged, bare, patched }) => {
  test(`replays cleanly on the unchanged copy (${unchanged})`, async () => {
    expect(await replay(file, unchanged)).toBeNull();
  }, 120_000);

  test(`fails with a DeterminismViolationError when an activity call is added without patched() (${bare})`, async () => {
    const error = await replay(file, bare);
    expect(error?.name).toBe('DeterminismViolationError');
    // Core names the recorded activity and the one the changed code scheduled in its place.
    expect(error?.message).toMatch(/Nondeterminism error: Activity type of (scheduled event|recorded marker) '\w+' does not match/);
  }, 120_000);

  test(`replays cleanly when the same call is behind patched() (${patched})`, async () => {
    expect(await replay(file, patched)).toBeNull();
  }, 120_000);
});
