// ESLint flat config: typescript-eslint recommended rules over the TypeScript sources.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');
const globals = require('globals');
const local = require('./lint/eslint-local.js');

const DATE_NOW = { object: 'Date', property: 'now', message: 'Workflow time: use workflowNowMs() from workflows/convention.ts.' };
const MATH_RANDOM = {
  object: 'Math',
  property: 'random',
  message: 'Workflows are deterministic: no randomness (use an activity or uuid4() from @temporalio/workflow).',
};

module.exports = tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'examples/generated/**',
      'eslint.config.js',
      'jest.config.js',
      'jest.logic.config.js',
      'jest.mutation.config.js',
      '.stryker-tmp/**',
      'reports/**',
      'lint/eslint-local.js',
    ],
  },
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
    // Parameters of exported functions and of exported classes' methods are named for what they hold (lint/eslint-local.js).
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['tests/lint-fixtures/**'],
    plugins: { local },
    rules: { 'local/descriptive-params': 'error' },
  },
  {
    // Pages (api/pages/): templates escape by default; raw HTML never enters a page.
    files: ['api/pages/**/*.tsx', 'api/docs/**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']",
          message: 'Pages never insert raw HTML: render components (escaped by default).',
        },
      ],
    },
  },
  {
    // The pages' own script (api/pages/assets/): plain browser JavaScript, served as is.
    files: ['api/pages/assets/**/*.js', 'api/docs/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    // Deterministic workflow code (bundled by webpack into the workflow sandbox), and the contracts
    // it shares with the activities (contracts/, in the same bundle): time only through
    // workflows/convention.ts, never randomness, and imports only from @temporalio/workflow, pure
    // domain/ modules, contracts/ and workflows/; never activities/, not even types (a workflow
    // proxies its contract's activity interface).
    files: ['workflows/**/*.ts', 'contracts/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', DATE_NOW, MATH_RANDOM],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date']",
          message: 'Workflow time: use isoAt() / workflowNowMs() from workflows/convention.ts.',
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules
            .filter((m) => !m.startsWith('_'))
            .map((name) => ({ name, message: 'Workflows are deterministic and sandboxed: no Node built-ins (use an activity).' })),
          patterns: [
            { group: ['node:*'], message: 'Workflows are deterministic and sandboxed: no Node built-ins (use an activity).' },
            {
              group: [
                '**/lib',
                '**/lib/**',
                '**/entities',
                '**/entities/**',
                '**/providers',
                '**/providers/**',
                '**/temporal/client',
                '**/api/**',
                '**/views/**',
              ],
              message: 'Workflows do no I/O: call an activity instead.',
            },
            {
              group: ['**/activities', '**/activities/**'],
              message:
                'Workflows never import activities/, not even types: proxy the activity interface of the contract (contracts/<object>.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // A contract is imported by both sides: it imports neither (no workflow implementation, no activity).
    files: ['contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules
            .filter((m) => !m.startsWith('_'))
            .map((name) => ({ name, message: 'Contracts are part of the workflow bundle: no Node built-ins.' })),
          patterns: [
            { group: ['node:*'], message: 'Contracts are part of the workflow bundle: no Node built-ins.' },
            {
              group: [
                '**/lib',
                '**/lib/**',
                '**/entities',
                '**/entities/**',
                '**/providers',
                '**/providers/**',
                '**/temporal/**',
                '**/api/**',
                '**/views/**',
              ],
              message: 'Contracts hold definitions and types only: @temporalio/workflow and domain/ types.',
            },
            {
              group: ['**/activities', '**/activities/**', '**/workflows', '**/workflows/**'],
              message: 'A contract imports neither side: no workflows/, no activities/ (docs/architecture.md "Contracts").',
            },
          ],
        },
      ],
    },
  },
  {
    // The convention module is the one place that reads the workflow clock.
    files: ['workflows/convention.ts'],
    rules: {
      'no-restricted-properties': ['error', MATH_RANDOM],
      'no-restricted-syntax': 'off',
    },
  },
);
