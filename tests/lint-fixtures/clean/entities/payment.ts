// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { zero, type Money } from '../domain/money';
export class Payment { amount: Money = zero; }
