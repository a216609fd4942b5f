// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-scripts-in-product
import { stack } from '../scripts/stack';
export const usesScripts = stack;
