/**
 * The layer lint (.dependency-cruiser.cjs, `npm run lint:layers`) catches wrong imports: the
 * project's rules, run through dependency-cruiser's `cruise` API on two small fake trees in
 * tests/lint-fixtures/: `bad/` (each file breaks one rule, named in its first line) and `clean/`
 * (every layer importing what it may: a workflow and its activities meeting in their contract).
 * dependency-cruiser is ESM-only, which jest's module system cannot load, so the cruise runs in a
 * child Node process and prints its violations as JSON.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Cruises the fixture tree `name` with the project's rule set; returns its violations. */
function cruiseFixture(name: string): Violation[] {
  const script = `
    import { cruise } from 'dependency-cruiser';
    import { createRequire } from 'node:module';
    const config = createRequire(import.meta.url)(${JSON.stringify(path.join(root, '.dependency-cruiser.cjs'))});
    const { tsConfig, exclude, ...options } = config.options;
    const result = await cruise(['.'], {
      ...options,
      baseDir: ${JSON.stringify(path.join(root, 'tests/lint-fixtures', name))},
      ruleSet: { forbidden: config.forbidden },
      validate: true,
    }, { extensions: ['.ts', '.js'] });
    const out = result.output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
    process.stdout.write(JSON.stringify(out));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out) as Violation[];
}

describe('layer rules (.dependency-cruiser.cjs)', () => {
  it('report every wrong import of the bad fixture by rule name', () => {
    const found = cruiseFixture('bad')
      .map((v) => `${v.rule}: ${v.from} -> ${v.to}`)
      .sort();
    const expected = [
      'domain-is-pure: domain/money.ts -> lib/db.ts',
      'entities-on-domain: entities/payment.ts -> views/payment.ts',
      'views-on-entities: views/payment.ts -> lib/db.ts',
      'runtime-on-views: lib/uses-api.ts -> api/routes.ts',
      'api-is-the-top: lib/uses-api.ts -> api/routes.ts',
      'api-is-the-top: scripts/up.ts -> api/routes.ts',
      'activities-on-runtime: activities/pay/uses-api.ts -> api/routes.ts',
      'api-is-the-top: activities/pay/uses-api.ts -> api/routes.ts',
      'workflows-through-contracts: workflows/pay.ts -> activities/pay/activities.ts',
      'workflows-through-contracts: workflows/activity-types.ts -> activities/pay/activities.ts',
      'workflows-deterministic: workflows/uses-lib.ts -> lib/db.ts',
      'activities-through-contracts: activities/pay/commands.ts -> workflows/pay.ts',
      'workflows-from-roots: activities/pay/commands.ts -> workflows/pay.ts',
      'workflows-from-roots: api/uses-workflow.ts -> workflows/pay.ts',
      'contracts-on-domain: contracts/pay.ts -> activities/pay/activities.ts',
      'contracts-on-domain: contracts/pay.ts -> workflows/pay.ts',
      'records-import-no-area: activities/records/uses-area.ts -> activities/pay/commands.ts',
      'simulator-through-intake: api/routes/simulator.ts -> activities/pay/commands.ts',
      'intake-is-an-entry: activities/pay/uses-intake.ts -> activities/intake/chain.ts',
      'no-area-cycles: activities/a -> activities/b',
      'no-area-cycles: activities/b -> activities/a',
      'temporal-dev-is-tooling: lib/uses-dev.ts -> temporal/dev/boot.ts',
      'no-bench-in-product: lib/uses-bench.ts -> bench/harness.ts',
      'runtime-on-views: lib/uses-bench.ts -> bench/harness.ts',
      'no-scripts-in-product: lib/uses-scripts.ts -> scripts/stack.ts',
      'runtime-on-views: lib/uses-scripts.ts -> scripts/stack.ts',
      'runtime-on-views: lib/uses-dev.ts -> temporal/dev/boot.ts',
    ].sort();
    for (const e of expected) expect(found).toContain(e);
    // A runtime cycle and a cycle made only of type imports: both are circles (no exception for types).
    const circles = found.filter((f) => f.startsWith('no-circular: '));
    expect(circles.some((f) => f.includes('lib/cycle-'))).toBe(true);
    expect(circles.some((f) => f.includes('lib/type-cycle-'))).toBe(true);
    expect(circles.every((f) => /lib\/(type-)?cycle-/.test(f))).toBe(true);
  });

  it('report nothing on the clean fixture (every layer importing what it may; workflow and activities through their contract)', () => {
    expect(cruiseFixture('clean')).toEqual([]);
  });
});
