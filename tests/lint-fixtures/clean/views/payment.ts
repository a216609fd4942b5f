// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { Payment } from '../entities/payment';
export const paymentView = (p: Payment): { amount: string } => ({ amount: p.amount.amount.toString() });
