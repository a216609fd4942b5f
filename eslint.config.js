// ESLint flat config: typescript-eslint recommended rules over the TypeScript sources.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'eslint.config.js', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Deterministic workflow code: time only through workflows/clock.ts, never randomness.
    files: ['workflows/payout.ts'],
    rules: {
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'Workflow time: use workflowNowMs() from workflows/clock.ts.' },
        { object: 'Math', property: 'random', message: 'Workflows are deterministic: no randomness (use an activity or uuid4() from @temporalio/workflow).' }],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'Workflow time: use workflows/clock.ts.' }],
    },
  },
);
