// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-area-cycles: area b imports area a, which imports area b (no module circle)
import { a } from '../a/leaf';
export const bUsesA = a;
