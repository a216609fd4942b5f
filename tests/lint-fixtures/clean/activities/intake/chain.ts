// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { startPay } from '../pay/signals';
export const receiveChainTransfer = startPay;
