/**
 * Jest for mutation testing (stryker.config.mjs): the domain unit tests of tests/unit, DB-free like
 * the fast tier, without the files that check documents and tooling rather than domain behaviour
 * (the OpenAPI document and its wire types, the docs' examples, comment and layer lints, the metrics
 * server). Each mutant runs only the tests that cover it (coverageAnalysis perTest).
 */
const logic = require('./jest.logic.config');

module.exports = {
  testEnvironment: logic.testEnvironment,
  transform: logic.transform,
  transformIgnorePatterns: logic.transformIgnorePatterns,
  roots: ['<rootDir>/tests/unit'],
  testMatch: ['**/tests/unit/**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/tests/unit/(wire-types|history-comments|document-examples|document-fidelity|openapi|layers|metrics-server|descriptive-params-rule|go-build-progress|temporal-connect)\\.test\\.ts$',
  ],
  testTimeout: 60000,
  forceExit: true,
};
