/**
 * The layer lint (.dependency-cruiser.cjs, `npm run lint:layers`) catches wrong imports: the
 * project's rules, run through dependency-cruiser's `cruise` API on two small fake trees in
 * tests/lint-fixtures/: `bad/` (each file breaks one rule, named in its first line) and `clean/`
 * (every layer importing what it may, a type-only import cycle included).
 * dependency-cruiser is ESM-only, which jest's module system cannot load, so the cruise runs in a
 * child Node process and prints its violations as JSON.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

interface Violation { rule: string; from: string; to: string }

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
    const found = cruiseFixture('bad').map((v) => `${v.rule}: ${v.from} -> ${v.to}`).sort();
    const expected = [
      'domain-is-pure: domain/money.ts -> lib/db.ts',
      'entities-on-domain: entities/payment.ts -> views/payment.ts',
      'views-on-entities: views/payment.ts -> lib/db.ts',
      'runtime-on-views: lib/uses-api.ts -> api/routes.ts',
      'api-is-the-top: lib/uses-api.ts -> api/routes.ts',
      'api-is-the-top: scripts/up.ts -> api/routes.ts',
      'activities-on-runtime: activities/pay/uses-api.ts -> api/routes.ts',
      'api-is-the-top: activities/pay/uses-api.ts -> api/routes.ts',
      'workflows-activity-types-only: workflows/pay.ts -> activities/pay/activities.ts',
      'workflows-deterministic: workflows/uses-lib.ts -> lib/db.ts',
      'workflows-only-from-signals: activities/pay/commands.ts -> workflows/pay.ts',
      'temporal-dev-is-tooling: lib/uses-dev.ts -> temporal/dev/boot.ts',
      'no-bench-in-product: lib/uses-bench.ts -> bench/harness.ts',
      'runtime-on-views: lib/uses-bench.ts -> bench/harness.ts',
      'no-scripts-in-product: lib/uses-scripts.ts -> scripts/stack.ts',
      'runtime-on-views: lib/uses-scripts.ts -> scripts/stack.ts',
      'runtime-on-views: lib/uses-dev.ts -> temporal/dev/boot.ts',
    ].sort();
    for (const e of expected) expect(found).toContain(e);
    expect(found.filter((f) => f.startsWith('no-circular: ')).length).toBeGreaterThan(0);
    expect(found.filter((f) => f.startsWith('no-circular: ')).every((f) => f.includes('lib/cycle-'))).toBe(true);
  });

  it('report nothing on the clean fixture (every layer importing what it may; a type-only cycle)', () => {
    expect(cruiseFixture('clean')).toEqual([]);
  });
});
