// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. activities-through-contracts
import { payWorkflow } from '../../workflows/pay';
export const startPay = payWorkflow;
