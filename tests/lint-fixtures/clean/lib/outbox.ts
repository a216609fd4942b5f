// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { paymentView } from '../views/payment';
import { chain } from '../providers/chain';
export const emit = paymentView;
export const outboxChain = chain;
