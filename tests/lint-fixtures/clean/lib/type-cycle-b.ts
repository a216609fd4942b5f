// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules. (a cycle through a type-only import is allowed)
import { makeA, type A } from './type-cycle-a';
export type B = { a: A };
export const makeB = (): B => ({ a: makeA() });
