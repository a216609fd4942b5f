/**
 * Jest, fast tiers only: domain unit tests and the layer lint test (tests/unit), workflow logic with
 * stub activities (tests/workflows/logic) and activity tests under MockActivityEnvironment
 * (tests/activities). No global setup (no PostgreSQL, no dev server, no product):
 * `npm run test:logic`. `npm test` (jest.config.js) runs these files too.
 */
const base = require('./jest.config');

module.exports = {
  testEnvironment: base.testEnvironment,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  roots: ['<rootDir>/tests/unit', '<rootDir>/tests/workflows/logic', '<rootDir>/tests/activities'],
  testMatch: ['**/*.test.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
  forceExit: true,
};
