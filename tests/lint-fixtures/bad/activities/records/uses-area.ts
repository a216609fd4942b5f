// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. records-import-no-area
import { startPay } from '../pay/commands';
export const recordsUseArea = startPay;
