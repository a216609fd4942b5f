// ESLint flat config: typescript-eslint recommended rules over the TypeScript sources.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');
const globals = require('globals');

const DATE_NOW = { object: 'Date', property: 'now', message: 'Workflow time: use workflowNowMs() from workflows/convention.ts.' };
const MATH_RANDOM = { object: 'Math', property: 'random', message: 'Workflows are deterministic: no randomness (use an activity or uuid4() from @temporalio/workflow).' };

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'examples/generated/**', 'eslint.config.js', 'jest.config.js', 'jest.logic.config.js'] },
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
    // Pages (api/pages/): templates escape by default; raw HTML never enters a page.
    files: ['api/pages/**/*.tsx', 'api/docs/**/*.tsx'],
    rules: { 'no-restricted-syntax': ['error', { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Pages never insert raw HTML: render components (escaped by default).' }] },
  },
  {
    // The pages' own script (api/pages/assets/): plain browser JavaScript, served as is.
    files: ['api/pages/assets/**/*.js', 'api/docs/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    // Deterministic workflow code (bundled by webpack into the workflow sandbox): time only through
    // workflows/convention.ts, never randomness, and imports only from @temporalio/workflow, pure
    // domain/ modules, workflows/ and activity TYPES (`import type`).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', DATE_NOW, MATH_RANDOM],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'Workflow time: use isoAt() / workflowNowMs() from workflows/convention.ts.' }],
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message: 'Workflows are deterministic and sandboxed: no Node built-ins (use an activity).' })),
        patterns: [
          { group: ['node:*'], message: 'Workflows are deterministic and sandboxed: no Node built-ins (use an activity).' },
          { group: ['**/lib', '**/lib/**', '**/entities', '**/entities/**', '**/providers', '**/providers/**', '**/temporal/client', '**/api/**', '**/views/**'], message: 'Workflows do no I/O: call an activity instead.' },
          { group: ['**/activities', '**/activities/**'], allowTypeImports: true, message: 'Workflows import activity TYPES only (`import type`); the worker registers the functions.' },
        ],
      }],
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
