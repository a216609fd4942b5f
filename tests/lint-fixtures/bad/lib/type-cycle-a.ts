// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-circular: a cycle made only of type imports
import type { B } from './type-cycle-b';
export type A = { b?: B };
