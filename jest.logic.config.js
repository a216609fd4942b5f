/**
 * Jest, fast tiers only: domain unit tests and the layer lint test (tests/unit), workflow logic with
 * stub activities (tests/workflows/logic) and the activity tests under MockActivityEnvironment that
 * need no database (tests/activities/webhook-http.test.ts; the other activity files run each area's
 * steps against PostgreSQL, in `npm test`). No global setup (no PostgreSQL, no dev server, no product):
 * `npm run test:logic`. `npm test` (jest.config.js) runs these files too.
 */
const base = require('./jest.config');

module.exports = {
  testEnvironment: base.testEnvironment,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  roots: ['<rootDir>/tests/unit', '<rootDir>/tests/workflows/logic', '<rootDir>/tests/activities'],
  testMatch: ['**/tests/unit/**/*.test.ts', '**/tests/workflows/logic/**/*.test.ts', '**/tests/activities/webhook-http.test.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
  forceExit: true,
};
