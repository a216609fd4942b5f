// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-area-cycles: area a imports area b, which imports area a (no module circle)
import { b } from '../b/leaf';
export const aUsesB = b;
