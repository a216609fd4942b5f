// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { zero } from '../domain/money';
export const chain = zero;
