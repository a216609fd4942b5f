// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { emit } from '../lib/outbox';
export const client = emit;
