// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import type { Money } from '../domain/money';
export interface PayActivities { loadPay(): Promise<string>; feeOf(amount: Money): Promise<Money> }
export const payContract = { workflowType: 'payWorkflow', idPrefix: 'pay_', signals: { retry: { type: 'signal', name: 'retry' } } } as const;
