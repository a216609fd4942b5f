// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { payContract } from '../../contracts/pay';
import { startOrSignal } from '../../temporal/client';
export const startPay = (id: string): string => startOrSignal(payContract.workflowType, id);
