/**
 * Every status write goes through its transition table (issue 26 item 3): in memory through
 * `table.move(row, to)` (domain/transitions.ts), in SQL through `moveRows` (lib/status-writes.ts).
 * This test reads the product's sources and fails on any other write of a status: an assignment to
 * `.status`, an SQL `SET status =` / `, status =`, or a TypeORM `update(...)` carrying `status:`.
 * Creating a row in its first status is not a transition and is not matched. Providers never write
 * product tables: a provider module that writes a status at all fails here too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { moveRows } from '../../lib/status-writes';
import { transitionTable } from '../../domain/transitions';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED = ['activities', 'api', 'lib', 'providers', 'scripts', 'bench', 'worker.ts'];
/**
 * The two places a status may be written, and one benchmark: bench/bulk-counters.ts times the
 * counter triggers under one statement moving 1,000 to 100,000 rows of its own throwaway account
 * (issue 36 item 5), the raw bulk UPDATE a data migration would run; it is measurement, not product.
 */
const HOMES = new Set(['domain/transitions.ts', 'lib/status-writes.ts', 'bench/bulk-counters.ts']);

function sources(p: string): string[] {
  const abs = path.join(ROOT, p);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [p];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(p, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Raw status writes: `x.status = ...` (not `==`), SQL `SET status =` or `, status = <value>` in an UPDATE, `update(..., { status: ... })`. */
const RAW = [
  // A TypeScript statement assigning `<row>.status` (not an HTTP `ctx.status`, not a comparison inside SQL text).
  { kind: 'assignment', re: /(?:^|[;{}]|\)[ \t])[ \t]*(?!ctx\.)[\w$]+(?:\.[\w$]+)*\.status[ \t]*=(?![=>])/m },
  { kind: 'sql', re: /\bSET\s+status\s*=/i },
  { kind: 'sql', re: /UPDATE\s+\w+\s+SET\b[^;`]*?,\s*status\s*=\s*(\$\d|'|\w+\.status)/is },
  { kind: 'typeorm update', re: /\.update\([^)]*\{[^}]*\bstatus\s*:/s },
];

function rawWrites(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const { kind, re } of RAW) {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(g)) {
      const line = text.slice(0, m.index).split('\n').length;
      const src = text.split('\n')[line - 1].trim();
      if (src.startsWith('*') || src.startsWith('//')) continue;
      found.push(`${file}:${line} (${kind}): ${src.slice(0, 120)}`);
    }
  }
  return found;
}

describe('status writes (issue 26 item 3)', () => {
  it('no status is written except through a transition table', () => {
    const offenders = SCANNED.flatMap(sources).filter((f) => !HOMES.has(f)).flatMap(rawWrites);
    expect(offenders).toEqual([]);
  });

  it('the scan finds what it looks for (a planted raw write of each kind is reported)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'tests', '.status-scan-'));
    try {
      const f = path.join(dir, 'planted.ts');
      fs.writeFileSync(f, [
        "row.status = 'paid';",
        "await m.query(`UPDATE payouts SET status = 'failed' WHERE id = $1`, [id]);",
        "await m.query(`UPDATE wallet_sends SET signed_at = now(), status = $2 WHERE id = $1`, [id, s]);",
        "await m.update(Payout, { id }, { status: 'failed' });",
        "if (row.status === 'paid') {}",
        "ctx.status = 201;",
        "await m.query(`SELECT 1 FROM x WHERE a = 1 AND x.status = 'open'`);",
      ].join('\n'));
      const found = rawWrites(path.relative(ROOT, f));
      expect(rawWrites(path.relative(ROOT, f)).join('\n')).not.toMatch(/===/);
      expect(found.map((x) => x.split(' (')[1].split(')')[0])).toEqual(['assignment', 'sql', 'sql', 'typeorm update']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('table.move and moveRows refuse what the table refuses', async () => {
    const t = transitionTable<'a' | 'b' | 'c'>('thing', { a: ['b'], b: ['c'], c: [] });
    expect(t.move({ status: 'a' }, 'b').status).toBe('b');
    expect(() => t.move({ status: 'a' }, 'c')).toThrow(/cannot become c/);
    expect(t.sources('c')).toEqual(['b']);
    expect(t.open).toEqual(['a', 'b']);
    const sent: unknown[][] = [];
    const m = { query: async (_sql: string, params: unknown[]) => { sent.push(params); return [[{ id: 'x1' }], 1]; } };
    await expect(moveRows(m as never, t, { sqlTable: 'things', where: 'id = $1', params: ['x1'], to: 'c' })).resolves.toEqual(['x1']);
    expect(sent[0]).toEqual(['x1', 'c', ['b']]);
    await expect(moveRows(m as never, t, { sqlTable: 'things', where: 'id = $1', params: ['x1'], to: 'c', from: ['a'] })).rejects.toThrow(/a -> c/);
  });
});
