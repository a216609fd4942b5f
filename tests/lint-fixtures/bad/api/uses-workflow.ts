// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. workflows-from-roots: the product reaches a workflow through its contract
import { payWorkflow } from '../workflows/pay';
export const apiWorkflow = payWorkflow;
