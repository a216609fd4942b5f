// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-bench-in-product
import { harness } from '../bench/harness';
export const usesBench = harness;
