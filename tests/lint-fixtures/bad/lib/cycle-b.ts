// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. no-circular: a runtime cycle
import { a } from './cycle-a';
export const b = (): string => (a.length > 0 ? 'b' : 'a');
