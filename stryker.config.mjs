/**
 * StrykerJS: mutation testing of the pure code (docs/testing/mutation.md). Run with
 * `npm run test:mutation` (scripts/mutation.ts), which prints the score per folder and writes the
 * survivors to reports/mutation/survivors.txt. Tests: jest.mutation.config.js (no database, no
 * Temporal); mutants that do not compile are dropped by the TypeScript checker.
 */
export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // Mutants in code that runs only while a module loads (the registries' tables) would each need
  // every test: they are reported as ignored (docs/testing/mutation.md).
  ignoreStatic: true,
  mutate: ['domain/**/*.ts'],
  concurrency: 2,
  timeoutMS: 60000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', '.data', '.artifacts', 'coverage', 'reports', 'examples/generated', 'bench/out'],
  cleanTempDir: 'always',
};
