/**
 * Every status change is written by its object's record module (activities/records/<object>.ts),
 * one named function per transition, through the object's transition table: in memory through
 * `table.move(row, to)` (domain/transitions.ts), in SQL through `moveRows` / `moveRowsEach`
 * (lib/status-writes.ts). This test reads the product's sources and fails, outside the record
 * modules and those two files, on:
 * - a raw status write: an assignment to `.status`, an SQL `SET status =` / `, status =`, or a
 *   TypeORM `update(...)` carrying `status:`;
 * - a raw write of a state column that is not called `status` (STATE_COLUMNS: `funding_state`,
 *   `latest_attempt_status`) in the same three forms;
 * - a call of `.move(`, `moveRows(` or `moveRowsEach(`, and a `.assert(` whose answer is assigned
 *   (`row.x = table.assert(from, to)`): the transition itself belongs in the record module.
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
 * the raw bulk UPDATE a data migration would run; it is measurement, not product.
 */
const HOMES = new Set(['domain/transitions.ts', 'lib/status-writes.ts', 'bench/bulk-counters.ts']);
/** The record modules: the one place outside HOMES where an object's status and state columns move. */
const RECORDS = 'activities/records/';

/**
 * A sandbox provider's own state, which is not the product's: the sandbox checkout provider moves its
 * `sandbox_checkout_sessions` rows through their table with `moveRows` (providers/ may not import a
 * record module, and no product object lives in that table).
 */
const PROVIDER_STATE = new Set<string>(['providers/checkout.ts']);

/** State columns that are not called `status` and follow the same rule. */
const STATE_COLUMNS = ['funding_state', 'latest_attempt_status'];

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
  // The same three forms for each state column.
  ...STATE_COLUMNS.flatMap((col) => [
    { kind: 'state assignment', re: new RegExp(`(?:^|[;{}]|\\)[ \\t])[ \\t]*[\\w$]+(?:\\.[\\w$]+)*\\.${col}[ \\t]*=(?![=>])`, 'm') },
    { kind: 'state sql', re: new RegExp(`\\bUPDATE\\s+\\w+\\s+(?:\\w+\\s+)?SET\\b[^;\`]*?\\b${col}\\s*=`, 'is') },
    { kind: 'state typeorm update', re: new RegExp(`\\.update\\([^)]*\\{[^}]*\\b${col}\\s*:`, 's') },
  ]),
  // A transition made outside the record module: `table.move(row, to)`, `moveRows(`, `moveRowsEach(`,
  // and a checked status assigned by hand (`row.x = table.assert(from, to)`).
  { kind: 'move', re: /[\w$)\]]\.move\(/ },
  { kind: 'moveRows', re: /\bmoveRows\(/ },
  { kind: 'moveRowsEach', re: /\bmoveRowsEach\(/ },
  { kind: 'assert assignment', re: /[\w$]+(?:\.[\w$]+)*[ \t]*=[ \t]*[\w$.]+\.assert\(/ },
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

/** Whether `file` is where statuses may be written (a record module, or a home). */
const isHome = (file: string) => HOMES.has(file) || file.startsWith(RECORDS) || PROVIDER_STATE.has(file);

describe('status writes', () => {
  it('no status or state column is written except by its record module', () => {
    const offenders = SCANNED.flatMap(sources)
      .filter((f) => !isHome(f))
      .flatMap(rawWrites);
    expect(offenders).toEqual([]);
  });

  it('the sandbox provider state exception still moves a status (the exception does not outlive its case)', () => {
    expect([...PROVIDER_STATE].filter((f) => rawWrites(f).length === 0)).toEqual([]);
  });

  it('the scan finds what it looks for (a planted raw write of each kind is reported)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'tests', '.status-scan-'));
    try {
      const f = path.join(dir, 'planted.ts');
      fs.writeFileSync(
        f,
        [
          "row.status = 'paid';",
          "await m.query(`UPDATE payouts SET status = 'failed' WHERE id = $1`, [id]);",
          'await m.query(`UPDATE wallet_sends SET signed_at = now(), status = $2 WHERE id = $1`, [id, s]);',
          "await m.update(Payout, { id }, { status: 'failed' });",
          "if (row.status === 'paid') {}",
          'ctx.status = 201;',
          "await m.query(`SELECT 1 FROM x WHERE a = 1 AND x.status = 'open'`);",
          "run.funding_state = 'funded';",
          'await m.query(`UPDATE payroll_runs SET needs_attention = true, funding_state = $2 WHERE id = $1`, [id, s]);',
          "await m.update(PaymentLink, { id }, { latest_attempt_status: 'paid' });",
          "if (run.funding_state === 'funded') {}",
          "PAYOUT_TRANSITIONS.move(p, 'cancelled');",
          "await moveRows(m, walletSendTransitions, { sqlTable: 'wallet_sends', where: 'id = $1', params: [id], to: 'expired' });",
          "await moveRowsEach(m, deliveryTransitions, { sqlTable: 'webhook_deliveries', alias: 'd', rows: 'x', params: [], to: ['ok'] });",
          "item.destination_status = PAYROLL_DESTINATION_TRANSITIONS.assert(item.destination_status, 'ready');",
          "PAYOUT_TRANSITIONS.assert(p.status, 'paid');",
          'const moved = true; // a remove(), not a move',
        ].join('\n'),
      );
      const found = rawWrites(path.relative(ROOT, f));
      expect(rawWrites(path.relative(ROOT, f)).join('\n')).not.toMatch(/===/);
      expect(found.map((x) => x.split(' (')[1].split(')')[0]).sort()).toEqual([
        'assert assignment',
        'assignment',
        'move',
        'moveRows',
        'moveRowsEach',
        'sql',
        'sql',
        'state assignment',
        'state sql',
        'state typeorm update',
        'typeorm update',
      ]);
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
    const m = {
      query: async (_sql: string, params: unknown[]) => {
        sent.push(params);
        return [[{ id: 'x1' }], 1];
      },
    };
    await expect(moveRows(m as never, t, { sqlTable: 'things', where: 'id = $1', params: ['x1'], to: 'c' })).resolves.toEqual(['x1']);
    expect(sent[0]).toEqual(['x1', 'c', ['b']]);
    await expect(moveRows(m as never, t, { sqlTable: 'things', where: 'id = $1', params: ['x1'], to: 'c', from: ['a'] })).rejects.toThrow(
      /a -> c/,
    );
  });
});
