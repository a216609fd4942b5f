// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { createPay } from '../activities/pay/commands';
import { paymentView } from '../views/payment';
export const route = [createPay, paymentView];
