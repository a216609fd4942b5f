// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. workflows-only-from-signals
import { payWorkflow } from '../../workflows/pay';
export const startPay = payWorkflow;
