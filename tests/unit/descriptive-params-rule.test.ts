/**
 * The lint rule `local/descriptive-params` (lint/eslint-local.js): a parameter of an exported
 * function, or of a method of an exported class, is named for what it holds, never one letter
 * (`_` allowed). Unexported functions, callbacks and destructured parameters are not its business.
 */
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const plugin = require('../../lint/eslint-local.js');

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });

tester.run('descriptive-params', plugin.rules['descriptive-params'], {
  valid: [
    'export function pay(manager: EntityManager, payment: Payment) {}',
    'export function ignore(_: unknown, _x: string) {}',
    'function local(m: EntityManager) {}',
    'export function outer(manager: EntityManager) { return [1].map((x) => x + 1); }',
    'export const read = ({ a, b }: Input) => a + b;',
    'export class Store { private put(k: string) {} #take(v: string) {} get(key: string) {} }',
    'class Hidden { get(k: string) {} }',
    'const helper = (s: string) => s; export const other = (value: string) => value;',
  ],
  invalid: [
    { code: 'export function pay(m: EntityManager, p: Payment) {}', errors: [{ messageId: 'oneLetter' }, { messageId: 'oneLetter' }] },
    { code: 'export default function (s: Scope) {}', errors: [{ messageId: 'oneLetter' }] },
    { code: 'export const move = (m: EntityManager, status = 1) => status;', errors: [{ messageId: 'oneLetter' }] },
    {
      code: 'export const move = function (m: EntityManager, ...r: string[]) {};',
      errors: [{ messageId: 'oneLetter' }, { messageId: 'oneLetter' }],
    },
    { code: 'function later(c: Scope) {} export { later };', errors: [{ messageId: 'oneLetter' }] },
    { code: 'const later = (c: Scope) => c; export default later;', errors: [{ messageId: 'oneLetter' }] },
    {
      code: 'export class Store { constructor(private readonly p: Pool) {} get(k: string = "") {} }',
      errors: [{ messageId: 'oneLetter' }, { messageId: 'oneLetter' }],
    },
  ],
});
