/**
 * Sandbox values in one place (issue 23 part 4): README.md carries exactly the table
 * providers/sandbox-values.ts generates, between its markers; the `/sim` document carries it too;
 * the providers and the simulator use the values from there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSimOpenApi } from '../../api/sim-openapi';
import { kycDecisionBody } from '../../api/schemas/simulator';
import { classifyRisk } from '../../providers/screening';
import { QUOTE_PROVIDERS } from '../../providers/quote-providers';
import {
  FAULT_NAMES,
  KYC_DECISION_STATES,
  QUOTE_PROVIDER_SANDBOX,
  SANDBOX_VALUES,
  SCREENING_RISK_BANDS,
  sandboxValuesMarkdown,
} from '../../providers/sandbox-values';
import { readmeSandboxTable, SANDBOX_VALUES_END, SANDBOX_VALUES_START, withSandboxTable } from '../../scripts/sandbox-values-readme';

const table = sandboxValuesMarkdown();

test('README.md contains exactly the generated table between its markers', () => {
  const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
  const copy = readmeSandboxTable(readme);
  if (copy === null) {
    throw new Error(
      `README.md lacks the ${SANDBOX_VALUES_START} / ${SANDBOX_VALUES_END} markers: run \`npm run build && npm run sandbox:values -- --write\``,
    );
  }
  if (copy !== table)
    throw new Error("README.md's sandbox values table is out of date: run `npm run build && npm run sandbox:values -- --write`");
});

test('--write replaces the section in place, or inserts it before the cross-network heading', () => {
  const bare = 'A\n\n### Paying from another network\n\nB\n';
  const first = withSandboxTable(bare, table);
  expect(readmeSandboxTable(first)).toBe(table);
  expect(first.indexOf(SANDBOX_VALUES_END)).toBeLessThan(first.indexOf('### Paying from another network'));
  expect(withSandboxTable(first, table)).toBe(first);
  expect(readmeSandboxTable(withSandboxTable(first, '| x |\n'))).toBe('| x |\n');
  expect(() => withSandboxTable('no anchor', table)).toThrow(/markers/);
});

test('one row per value, every row three cells; the /sim document carries the same table', () => {
  const rows = table.trimEnd().split('\n');
  expect(rows.length).toBe(SANDBOX_VALUES.length + 2);
  for (const r of rows) expect(r.split(/(?<!\\)\|/).length).toBe(5);
  expect(String(buildSimOpenApi().info && (buildSimOpenApi().info as { description: string }).description)).toContain(table);
  for (const v of ['`1116`', '`1113`', '`RETURN_ME`', '`harbor`', '`bridge.create_delay_ms`', '`stale_mapping`'])
    expect(table).toContain(v);
});

test('the providers and the simulator take their values from sandbox-values', () => {
  for (const p of QUOTE_PROVIDERS)
    expect([p.id, p.paused, p.defaultLatencyMs]).toEqual([
      p.id,
      QUOTE_PROVIDER_SANDBOX[p.id as keyof typeof QUOTE_PROVIDER_SANDBOX].paused,
      QUOTE_PROVIDER_SANDBOX[p.id as keyof typeof QUOTE_PROVIDER_SANDBOX].defaultLatencyMs,
    ]);
  expect(FAULT_NAMES).toEqual(expect.arrayContaining(['quotes.harbor.latency_ms', 'orders.native_fiat.unavailable', 'buy_sell.coverage']));
  for (const s of KYC_DECISION_STATES) expect(kycDecisionBody.validate({ customer_id: 'cus_1', state: s }).error).toBeUndefined();
  for (const b of SCREENING_RISK_BANDS) expect(classifyRisk(b.below - 1).risk_level).toBe(b.risk_level);
});
