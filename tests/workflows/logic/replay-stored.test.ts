/**
 * Stored histories (issue 25; docs/workflow-versioning.md): every history under
 * tests/workflows/histories/ (recorded from a released build by `npm run histories:record`)
 * replays against the current workflows/ code. A change that would break a workflow running in
 * production (an activity call reordered, added or removed, a timer moved, without `patched()`)
 * fails here with a DeterminismViolationError naming the file. Replay is offline: no server, no
 * database, only the workflow bundle. Also fails when a workflow type exported by
 * workflows/index.ts has no stored history, so a new workflow records one. And, per patch, that the
 * histories recorded before it keep their old shape and replay (webhookEndpointWorkflow's idle wait,
 * issue 36).
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromProtoJson } from '../../../temporal/dev/history-json';
import * as workflows from '../../../workflows';
import { ENDPOINT_IDLE_MS, ENDPOINT_IDLE_WAIT_PATCH } from '../../../workflows/webhook-endpoint';

const DIR = path.resolve(__dirname, '../histories');

interface Entry {
  file: string;
  workflow_type: string;
  path: string;
  workflow_id: string;
  commit: string;
  tag: string | null;
  recorded_at: string;
}

/** Every stored history file, as `<workflowType>/<path>.json`. */
function storedFiles(): string[] {
  return fs
    .readdirSync(DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      fs
        .readdirSync(path.join(DIR, d.name))
        .filter((f) => f.endsWith('.json'))
        .map((f) => `${d.name}/${f}`),
    )
    .sort();
}

/** The workflow functions workflows/index.ts exports (what the worker registers by name). */
const workflowTypes = Object.entries(workflows)
  .filter(([name, v]) => typeof v === 'function' && /Workflow$/.test(name))
  .map(([name]) => name)
  .sort();

const manifest: { histories: Entry[] } = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));
const files = storedFiles();

/** Stored history `file` (`<workflowType>/<path>.json`). */
const stored = (file: string) => historyFromProtoJson(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));

let bundle: ReturnType<typeof bundleWorkflowCode> | null = null;
/** The workflow bundle of the current workflows/ (built once per file). */
function workflowBundle(): ReturnType<typeof bundleWorkflowCode> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* already installed */
  }
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../../workflows'), logger: new DefaultLogger('WARN') });
  return bundle;
}

/** The patch ids a history's markers carry (the SDK's `core_patch` markers). */
function patchIds(history: ReturnType<typeof stored>): string[] {
  return (history.events ?? []).flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (!m) return [];
    const values = Object.values(m.details ?? {})
      .flatMap((p) => p.payloads ?? [])
      .map((p) => defaultPayloadConverter.fromPayload<unknown>(p));
    return values.flatMap((v) =>
      v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? [(v as { id: string }).id] : [],
    );
  });
}

/**
 * A history's event types (`TIMER_STARTED`, ...: named from each event's attributes field), without
 * the workflow-task events (scheduled, started, completed).
 */
function shape(history: ReturnType<typeof stored>): string[] {
  return (history.events ?? [])
    .map((e) => {
      const field =
        Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]) ?? 'unknownEventAttributes';
      return field
        .replace(/EventAttributes$/, '')
        .replace(/([A-Z])/g, '_$1')
        .toUpperCase();
    })
    .filter((t) => !t.startsWith('WORKFLOW_TASK_'));
}

test('every stored history is in the manifest, and every manifest entry is stored', () => {
  expect(manifest.histories.map((e) => e.file).sort()).toEqual(files);
  for (const e of manifest.histories) {
    expect(e.file).toBe(`${e.workflow_type}/${e.path}.json`);
    expect(e.commit).toMatch(/^[0-9a-f]{40}/);
  }
});

test('every workflow type exported by workflows/index.ts has at least one stored history', () => {
  const stored = new Set(files.map((f) => f.split('/')[0]));
  const missing = workflowTypes.filter((t) => !stored.has(t));
  if (missing.length)
    throw new Error(
      `no stored history for ${missing.join(', ')}: record one (npm run histories:record -- --only <type>; docs/workflow-versioning.md)`,
    );
  expect(workflowTypes.length).toBeGreaterThan(0);
});

test('every stored history replays against the current workflow code', async () => {
  // The workflow id of each replay is the file name, so a failure names the file it came from.
  const histories = files.map((file) => {
    const h = stored(file);
    const started = h.events![0].workflowExecutionStartedEventAttributes;
    expect(started?.workflowType?.name).toBe(file.split('/')[0]);
    return { workflowId: file, history: h };
  });
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundle(), replayName: 'stored-histories' }, histories)) {
    replayed += 1;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message}`);
  }
  if (failures.length)
    throw new Error(
      `${failures.length} stored histor${failures.length === 1 ? 'y does' : 'ies do'} not replay (docs/workflow-versioning.md):\n${failures.join('\n')}`,
    );
  expect(replayed).toBe(files.length);
  // About 75 histories, the longest 2,000+ events (a run continued as new): a minute on a loaded 2-core machine.
}, 300_000);

describe(`webhookEndpointWorkflow before and after the idle wait (patch ${ENDPOINT_IDLE_WAIT_PATCH}, issue 36)`, () => {
  /** Recorded before the idle wait: the run ended `idle` right after the drain that left nothing live. */
  const BEFORE = {
    'webhookEndpointWorkflow/delivered-then-idle.json': [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'ACTIVITY_TASK_SCHEDULED',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ],
    'webhookEndpointWorkflow/retried-then-delivered.json': [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'ACTIVITY_TASK_SCHEDULED',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      'TIMER_STARTED',
      'TIMER_FIRED',
      'ACTIVITY_TASK_SCHEDULED',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ],
  };
  /** Recorded with the idle wait: a delivery, the wait, a second delivery's `deliver` waking the same run, the wait again, the end. */
  const AFTER = 'webhookEndpointWorkflow/woken-while-waiting-then-idle.json';

  test.each(Object.entries(BEFORE))(
    '%s keeps the shape recorded before the patch (no marker, ended idle after its last drain) and replays on the current code',
    async (file, events) => {
      const history = stored(file);
      // Running workflows look like this until drained (docs/workflow-versioning.md): never re-record it with the new shape.
      expect(shape(history)).toEqual(events);
      expect(patchIds(history)).toEqual([]);
      const result = history.events!.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0];
      expect(defaultPayloadConverter.fromPayload(result)).toBe('idle');
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), replayName: 'webhook-before-idle-wait' }, history, file);
    },
    120_000,
  );

  test(`${AFTER} waits for new deliveries behind the patch, is woken in the same run, ends idle after ENDPOINT_IDLE_MS, and replays`, async () => {
    const history = stored(AFTER);
    expect(patchIds(history)).toEqual([ENDPOINT_IDLE_WAIT_PATCH]);
    const s = shape(history);
    expect(s[0]).toBe('WORKFLOW_EXECUTION_STARTED');
    expect(s.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');
    expect(s.filter((t) => t === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(2);
    // The second delivery's signal cancelled the first idle timer; the second one fired and the run ended.
    expect(s.filter((t) => t === 'TIMER_CANCELED')).toHaveLength(1);
    expect(s.slice(-3)).toEqual(['TIMER_STARTED', 'TIMER_FIRED', 'WORKFLOW_EXECUTION_COMPLETED']);
    const timers = history.events!.flatMap((e) => {
      const d = e.timerStartedEventAttributes?.startToFireTimeout as { seconds?: unknown; nanos?: number | null } | undefined;
      return d ? [Number(String(d.seconds ?? 0)) * 1000 + Math.round((d.nanos ?? 0) / 1e6)] : [];
    });
    expect(timers).toEqual([ENDPOINT_IDLE_MS, ENDPOINT_IDLE_MS]);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), replayName: 'webhook-idle-wait' }, history, AFTER);
  }, 120_000);
});
