// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-circular: a runtime cycle
import { b } from './cycle-b';
export const a = (): string => b();
