/**
 * Stored histories (issue 25; docs/workflow-versioning.md): every history under
 * tests/workflows/histories/ (recorded from a released build by `npm run histories:record`)
 * replays against the current workflows/ code. A change that would break a workflow running in
 * production (an activity call reordered, added or removed, a timer moved, without `patched()`)
 * fails here with a DeterminismViolationError naming the file. Replay is offline: no server, no
 * database, only the workflow bundle. Also fails when a workflow type exported by
 * workflows/index.ts has no stored history, so a new workflow records one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyFromProtoJson } from '../../../temporal/dev/history-json';
import * as workflows from '../../../workflows';

const DIR = path.resolve(__dirname, '../histories');

interface Entry { file: string; workflow_type: string; path: string; workflow_id: string; commit: string; tag: string | null; recorded_at: string }

/** Every stored history file, as `<workflowType>/<path>.json`. */
function storedFiles(): string[] {
  return fs.readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(DIR, d.name)).filter((f) => f.endsWith('.json')).map((f) => `${d.name}/${f}`))
    .sort();
}

/** The workflow functions workflows/index.ts exports (what the worker registers by name). */
const workflowTypes = Object.entries(workflows).filter(([name, v]) => typeof v === 'function' && /Workflow$/.test(name)).map(([name]) => name).sort();

const manifest: { histories: Entry[] } = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));
const files = storedFiles();

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
  if (missing.length) throw new Error(`no stored history for ${missing.join(', ')}: record one (npm run histories:record -- --only <type>; docs/workflow-versioning.md)`);
  expect(workflowTypes.length).toBeGreaterThan(0);
});

test('every stored history replays against the current workflow code', async () => {
  try { Runtime.install({ logger: new DefaultLogger('ERROR') }); } catch { /* already installed */ }
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../../workflows'), logger: new DefaultLogger('WARN') });
  // The workflow id of each replay is the file name, so a failure names the file it came from.
  const histories = files.map((file) => {
    const h = historyFromProtoJson(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
    const started = h.events![0].workflowExecutionStartedEventAttributes;
    expect(started?.workflowType?.name).toBe(file.split('/')[0]);
    return { workflowId: file, history: h };
  });
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'stored-histories' }, histories)) {
    replayed += 1;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message}`);
  }
  if (failures.length) throw new Error(`${failures.length} stored histor${failures.length === 1 ? 'y does' : 'ies do'} not replay (docs/workflow-versioning.md):\n${failures.join('\n')}`);
  expect(replayed).toBe(files.length);
}, 120_000);
