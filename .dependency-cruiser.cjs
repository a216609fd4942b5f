/* global module */
/**
 * dependency-cruiser: the one direction of dependencies (docs/architecture.md, "Layout").
 *
 *   domain <- contracts <- entities <- views <- lib, providers, temporal runtime <- activities, api
 *   domain, contracts <- workflows <- worker.ts, scripts, bench, tests (the workflow bundle)
 *
 * A workflow and the activities it calls meet only in their contract (contracts/<object>.ts):
 * neither side imports the other, so no import circle exists, not even through types.
 *
 * Paths are relative to the repository root (or to `baseDir` when cruising the lint fixtures in
 * tests/lint-fixtures/, see tests/unit/layers.test.ts). "Ours" is any import that resolves to a
 * local file (`dependencyTypes: ['local']`); npm packages and node builtins are not layers.
 * Composition roots (scripts/, bench/, worker.ts) may import every layer except api/.
 */

/** The layers below the activities, as a path regex: what lib/, providers/ and the Temporal runtime may import. */
const RUNTIME = '^(domain|contracts|entities|views|lib|providers)/|^temporal/(?!dev/)';

/** The folders that must not import each other in a circle: each activities area, workflows/ and contracts/. */
const AREAS = '^(activities/[^/]+|workflows|contracts)$';

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
      name: 'contracts-on-domain',
      comment:
        'contracts/ (one module per long-lived object: signals, queries, workflow name and start arguments, the activity interface) imports only domain/ and contracts/ (and @temporalio/workflow): never workflows/ nor activities/, so both sides can import it and it is part of the workflow bundle.',
      severity: 'error',
      from: { path: '^contracts/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|contracts)/' },
    },
    {
      name: 'entities-on-domain',
      comment:
        'entities/ imports only domain/ and entities/. Migrations (entities/migrations/) run inside the process and may use lib/ (a data migration re-encrypts with lib/secrets.ts).',
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
      comment:
        'lib/, providers/ and the Temporal runtime (temporal/ outside temporal/dev/) import only domain/, entities/, views/ and each other.',
      severity: 'error',
      from: { path: '^(lib|providers)/|^temporal/(?!dev/)' },
      to: { dependencyTypes: ['local'], pathNot: RUNTIME },
    },
    {
      name: 'activities-on-runtime',
      comment: 'activities/ imports only the layers below it (contracts/ included) and activities/ (workflows/: next rule).',
      severity: 'error',
      from: { path: '^activities/' },
      to: { dependencyTypes: ['local'], pathNot: `${RUNTIME}|^activities/|^workflows/` },
    },
    {
      name: 'records-import-no-area',
      comment:
        "activities/records/ holds the records of an object that several areas write (a link's events, subscription and invoice rows): it imports no area, so every area may import it without a circle.",
      severity: 'error',
      from: { path: '^activities/records/' },
      to: { path: '^activities/(?!records/)' },
    },
    {
      name: 'simulator-through-intake',
      comment:
        'The simulator (api/routes/simulator.ts, api/sim-actions.ts) plays the providers (providers/) and hands each report to activities/intake/, the call a real provider callback makes (docs/architecture.md "How a provider report reaches its object"): it reaches activities/ only through intake/ and activities/scope.ts, and, where it acts as a person rather than a provider, through that person\'s command (accepting the terms: activities/legal/terms.ts; signing a wallet send with a passkey: activities/payouts/wallet-sends.ts).',
      severity: 'error',
      from: { path: '^api/(routes/simulator|sim-actions)\\.ts$' },
      to: { path: '^activities/', pathNot: '^activities/(intake/|scope\\.ts$|legal/terms\\.ts$|payouts/wallet-sends\\.ts$)' },
    },
    {
      name: 'intake-is-an-entry',
      comment:
        "activities/intake/ is called by a provider's callback (api/, the simulator) and nothing in activities/ imports it: a report enters through intake once, never from another area.",
      severity: 'error',
      from: { path: '^activities/', pathNot: '^activities/intake/' },
      to: { path: '^activities/intake/' },
    },
    {
      name: 'activities-through-contracts',
      comment:
        "activities/ never imports workflows/: signals.ts starts and signals a workflow from its contract (temporal/client.ts startOrSignal), activities.ts satisfies the contract's activity interface.",
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^workflows/' },
    },
    {
      name: 'workflows-deterministic',
      comment: 'workflows/ imports only domain/, contracts/ and workflows/ (activities/: next rule).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['local'], pathNot: '^(domain|contracts|workflows|activities)/' },
    },
    {
      name: 'workflows-through-contracts',
      comment:
        'workflows/ never imports activities/, not even types: it proxies the activity interface of its contract (contracts/<object>.ts); activity code never enters the workflow bundle.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/' },
    },
    {
      name: 'workflows-from-roots',
      comment:
        'Only the composition roots (worker.ts, scripts/, bench/) and tests/ import workflows/ (the worker bundles it by path); the product reaches a workflow through its contract.',
      severity: 'error',
      from: { pathNot: '^(workflows|scripts|bench|tests)/|^worker\\.ts$' },
      to: { path: '^workflows/' },
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
      comment: 'Only bench/ and its tests (tests/unit/chaos-*.test.ts) import bench/.',
      severity: 'error',
      from: { pathNot: '^(bench|tests)/' },
      to: { path: '^bench/' },
    },
    {
      name: 'no-scripts-in-product',
      comment:
        'scripts/ is dev tooling (the throwaway stack, the SSE client, the schemathesis installer, npm start): only scripts/, tests/ and bench/ import it, never the product.',
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
      comment:
        'No import cycles, type-only imports included (a circle of types still ties the modules together: move the shared piece to a contract, a domain type or a lower module).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-area-cycles',
      comment:
        'No circle between the folders of AREAS (activities/<area>, workflows/, contracts/), even when the modules form none: the areas stand in one order (e.g. payment-links and subscriptions above payments).',
      severity: 'error',
      scope: 'folder',
      from: { path: AREAS },
      to: { path: AREAS, circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|tests/lint-fixtures)/' },
    // Keep `import type` edges (erased by tsc) so the rules (no-circular above all) see them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
