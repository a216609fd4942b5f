// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. simulator-through-intake
import { startPay } from '../../activities/pay/commands';
export const simulator = startPay;
