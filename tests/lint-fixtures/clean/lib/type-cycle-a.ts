// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules. (a cycle through a type-only import is allowed)
import type { B } from './type-cycle-b';
export type A = { b?: B };
export const makeA = (): A => ({});
