/* global module */
/**
 * dependency-cruiser: the one direction of dependencies (docs/architecture.md, "Layout").
 *
 *   domain <- entities <- views <- lib, providers, temporal runtime <- activities <- workflows (types only), api
 *
 * Paths are relative to the repository root (or to `baseDir` when cruising the lint fixtures in
 * tests/lint-fixtures/, see tests/unit/layers.test.ts). "Ours" is any import that resolves to a
 * local file (`dependencyTypes: ['local']`); npm packages and node builtins are not layers.
 * Composition roots (scripts/, bench/, worker.ts) may import every layer except api/.
 */

/** The layers below the activities, as a path regex: what lib/, providers/ and the Temporal runtime may import. */
const RUNTIME = '^(domain|entities|views|lib|providers)/|^temporal/(?!dev/)';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure rules: it imports nothing of ours but domain/.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['local'], pathNot: '^domain/' },
    },
    {
      name: 'entities-on-domain',
      comment: 'entities/ imports only domain/ and entities/. Migrations (entities/migrations/) run inside the process and may use lib/ (a data migration re-encrypts with lib/secrets.ts).',
      severity: 'error',
      from: { path: '^entities/', pathNot: '^entities/migrations/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|entities)/' },
    },
    {
      name: 'views-on-entities',
      comment: 'views/ (wire projections, no I/O) imports only domain/, entities/ and views/.',
      severity: 'error',
      from: { path: '^views/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|entities|views)/' },
    },
    {
      name: 'migrations-on-lib',
      comment: 'entities/migrations/ imports only domain/, entities/ and lib/.',
      severity: 'error',
      from: { path: '^entities/migrations/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|entities|lib)/' },
    },
    {
      name: 'runtime-on-views',
      comment: 'lib/, providers/ and the Temporal runtime (temporal/ outside temporal/dev/) import only domain/, entities/, views/ and each other.',
      severity: 'error',
      from: { path: '^(lib|providers)/|^temporal/(?!dev/)' },
      to: { dependencyTypes: ['local'], pathNot: RUNTIME },
    },
    {
      name: 'activities-on-runtime',
      comment: 'activities/ imports only the layers below it and activities/ (and workflows/ from signals.ts, next rule).',
      severity: 'error',
      from: { path: '^activities/' },
      to: { dependencyTypes: ['local'], pathNot: `${RUNTIME}|^activities/|^workflows/` },
    },
    {
      name: 'workflows-only-from-signals',
      comment: 'Only activities/<area>/signals.ts starts and signals workflows: no other activities file imports workflows/.',
      severity: 'error',
      from: { path: '^activities/', pathNot: '^activities/[^/]+/signals\\.ts$' },
      to: { path: '^workflows/' },
    },
    {
      name: 'workflows-deterministic',
      comment: 'workflows/ imports only domain/ and workflows/ (plus activity types, next rule).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|workflows|activities)/' },
    },
    {
      name: 'workflows-activity-types-only',
      comment: 'workflows/ imports activities/ with `import type` only (proxyActivities<...>); activity code never enters the workflow bundle.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'api-is-the-top',
      comment: 'Nothing outside api/ imports api/ (tests/ excepted).',
      severity: 'error',
      from: { pathNot: '^(api|tests)/' },
      to: { path: '^api/' },
    },
    {
      name: 'no-tests-in-product',
      comment: 'Only tests/ imports tests/.',
      severity: 'error',
      from: { pathNot: '^tests/' },
      to: { path: '^tests/' },
    },
    {
      name: 'no-bench-in-product',
      comment: 'Only bench/ imports bench/.',
      severity: 'error',
      from: { pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'no-scripts-in-product',
      comment: 'scripts/ is dev tooling (the throwaway stack, the SSE client, the schemathesis installer, npm start): only scripts/, tests/ and bench/ import it, never the product.',
      severity: 'error',
      from: { pathNot: '^(scripts|tests|bench)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'temporal-dev-is-tooling',
      comment: 'temporal/dev/ (dev-server and test-server bootstrap) is imported only by scripts/, tests/, bench/ and temporal/dev/.',
      severity: 'error',
      from: { pathNot: '^(scripts|tests|bench|temporal/dev)/' },
      to: { path: '^temporal/dev/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles (cycles made only of type-only imports are harmless and allowed).',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|tests/lint-fixtures)/' },
    // Keep `import type` edges (erased by tsc) so the type-only rules can see them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
