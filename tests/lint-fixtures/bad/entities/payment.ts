// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. entities-on-domain
import { paymentView } from '../views/payment';
export const payment = paymentView;
