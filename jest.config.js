/** Jest: unit, workflow (time-skipping) and API tests; servers are started by tests/setup/global-setup.ts. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // ESM-only dependencies (@scure/base 2, eventsource 5 and its eventsource-parser, preact 11's jsx runtime, csv-stringify's
  // browser/esm/sync build that domain/payroll-rows.ts imports) are compiled to CommonJS like our sources:
  // jest's module system cannot require() an ES module (Node 24 itself can: dist/ loads them natively).
  transformIgnorePatterns: ['/node_modules/(?!(@scure/base|eventsource|eventsource-parser|preact|preact-render-to-string|csv-stringify)/)'],
  transform: {
    // Pages (api/pages/) are TSX rendered by preact (tsconfig `jsxImportSource`).
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic', importSource: 'preact' } },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    '^.+\\.[cm]?[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  globalSetup: '<rootDir>/tests/setup/global-setup.ts',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/tests/setup/after-env.ts'],
  testTimeout: 120000,
  maxWorkers: 2,
  // The default reporter, and the slowest files with their times (tests/setup/slowest-reporter.js).
  reporters: ['default', '<rootDir>/tests/setup/slowest-reporter.js'],
  forceExit: true,
};
