// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { payWorkflow } from '../../workflows/pay';
export const startPay = payWorkflow;
