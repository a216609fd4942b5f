/**
 * The operations' summaries (issue 38 point 6; api/operation/summaries.ts): every operation of the
 * served document has a one-line summary in the spec's words, never its operationId, and every
 * operation the specification lists (tests/fixtures/spec/operations.tsv, the spec's copy inside the checkout) is served with one. The
 * operationIds stay as they were: the summary moved nothing else. The document's version is the
 * date a client pins with `Service-Version`, and it names no licence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { OPERATION_SUMMARIES } from '../../api/operation/summaries';
import { CONTRACT_VERSION, LATEST_VERSION } from '../../domain/versioning';

type Op = { operationId: string; summary?: string; description?: string };
const doc = documentOfThisBuild() as { info: Record<string, unknown>; paths: Record<string, Record<string, Op>> };
const ops = Object.entries(doc.paths).flatMap(([p, methods]) =>
  Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })),
);

test('every operation has a one-line summary from the table, not its id', () => {
  expect(ops.length).toBeGreaterThan(150);
  for (const { key, op } of ops) {
    const s = op.summary ?? '';
    expect([key, s]).toEqual([key, OPERATION_SUMMARIES[op.operationId]]);
    expect([key, s.includes(op.operationId), /\n/.test(s), s.length <= 80, /^[A-Z]/.test(s), /\.$/.test(s)]).toEqual([
      key,
      false,
      false,
      true,
      true,
      false,
    ]);
  }
  // No summary is left over from an operation that no longer exists.
  expect(Object.keys(OPERATION_SUMMARIES).sort()).toEqual(ops.map((o) => o.op.operationId).sort());
  // One operation, one line: no two operations read the same.
  expect(new Set(Object.values(OPERATION_SUMMARIES)).size).toBe(Object.keys(OPERATION_SUMMARIES).length);
});

test("the longer text of a route is kept as the operation's description", () => {
  const create = doc.paths['/quotes'].post;
  expect(create.summary).toBe('Price a buy, sell or swap across providers');
  expect(create.description).toMatch(/each under its own deadline/);
});

test('every operation the specification lists is served with a summary (operations.tsv)', () => {
  const tsv = path.resolve(__dirname, '../fixtures/spec/operations.tsv');
  const rows = fs
    .readFileSync(tsv, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  expect(rows.length).toBeGreaterThan(150);
  // The spec writes `{short_code}` where the served path names the parameter `{code}`.
  const served = new Map(ops.map((o) => [o.key.replace(/\{[^}]+\}/g, '{}'), o.op]));
  for (const [, method, p] of rows) {
    const key = `${method} ${p}`;
    const op = served.get(key.replace(/\{[^}]+\}/g, '{}'));
    expect([key, typeof op?.summary]).toEqual([key, 'string']);
  }
});

test('the version is the date a client pins; no licence is stated', () => {
  expect(doc.info.version).toBe(LATEST_VERSION);
  expect(doc.info.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(doc.info.description).toContain(`Service-Version: ${LATEST_VERSION}`);
  expect(doc.info.description).toContain(CONTRACT_VERSION);
  expect(doc.info.license).toBeUndefined();
});
