// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-circular: a cycle made only of type imports
import type { A } from './type-cycle-a';
export type B = { a?: A };
