// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { payEvent } from '../records/pay';
import { startPay } from './signals';
export const createPay = [startPay, payEvent];
