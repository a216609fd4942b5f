// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { startPay } from './signals';
export const createPay = startPay;
