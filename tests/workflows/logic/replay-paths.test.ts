/**
 * The table of terminal and parked paths in docs/workflow-versioning.md ("The paths of each
 * workflow") against the stored histories: every path listed as recorded has its history under
 * tests/workflows/histories/ (a missing one fails, naming it), every stored history is listed,
 * every workflow type exported by workflows/index.ts has a row, and every path kind the table
 * names is one of the kinds it defines. The paths listed as not recorded yet have no history (once
 * recorded, the row moves to the recorded table). Offline and fast: no bundle, no replay (that is
 * replay-stored.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as workflows from '../../../workflows';

const ROOT = path.resolve(__dirname, '../../..');
const DIR = path.join(ROOT, 'tests/workflows/histories');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/workflow-versioning.md'), 'utf8');

/** The kinds of path a row names (the list: paid, expired, cancelled, failed, returned, parked then retried, continued as new). */
const KINDS = ['paid', 'expired', 'cancelled', 'failed', 'returned', 'parked-then-retried', 'continued-as-new', 'running'];

/** The rows of the markdown table between `<!-- name:start -->` and `<!-- name:end -->`, cells trimmed, without header and rule. */
function table(name: string): string[][] {
  const m = DOC.match(new RegExp(`<!-- ${name}:start -->([\\s\\S]*?)<!-- ${name}:end -->`));
  if (!m) throw new Error(`docs/workflow-versioning.md has no table ${name}`);
  return m[1]
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim().replace(/^`|`$/g, '')),
    );
}

/** `| type | path | kind | how |`: one row per stored history. */
const recorded = table('paths').map(([type, p, kind]) => ({ type, path: p, kind, file: `${type}/${p}.json` }));
/** `| type | path | kind | why not yet |`. */
const pending = table('paths-pending').map(([type, p, kind]) => ({ type, path: p, kind, file: `${type}/${p}.json` }));

const stored = fs
  .readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    fs
      .readdirSync(path.join(DIR, d.name))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `${d.name}/${f}`),
  )
  .sort();

const workflowTypes = Object.entries(workflows)
  .filter(([name, v]) => typeof v === 'function' && /Workflow$/.test(name))
  .map(([name]) => name)
  .sort();

test('every path the table lists as recorded has its stored history', () => {
  expect(recorded.length).toBeGreaterThan(0);
  const missing = recorded.filter((r) => !fs.existsSync(path.join(DIR, r.file))).map((r) => r.file);
  if (missing.length)
    throw new Error(
      `no stored history for ${missing.join(', ')}: record it (npm run histories:record -- --missing; docs/workflow-versioning.md)`,
    );
});

test('every stored history is a row of the table, once', () => {
  expect(recorded.map((r) => r.file).sort()).toEqual(stored);
});

test('every workflow type has recorded paths, of known kinds, and one that ends it or parks it', () => {
  expect([...new Set(recorded.map((r) => r.type))].sort()).toEqual(workflowTypes);
  for (const r of [...recorded, ...pending]) expect(KINDS).toContain(r.kind);
  for (const t of workflowTypes) expect(recorded.some((r) => r.type === t && r.kind !== 'running')).toBe(true);
});

test('the paths not recorded yet have no stored history and name a workflow type', () => {
  for (const p of pending) {
    expect(workflowTypes).toContain(p.type);
    expect(stored).not.toContain(p.file);
    expect(recorded.some((r) => r.file === p.file)).toBe(false);
  }
});
