// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. temporal-dev-is-tooling
import { boot } from '../temporal/dev/boot';
export const usesDev = boot;
