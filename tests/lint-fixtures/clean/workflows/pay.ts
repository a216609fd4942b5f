// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { payContract, type PayActivities } from '../contracts/pay';
import { zero } from '../domain/money';
export async function payWorkflow(acts: PayActivities): Promise<string> { return (await acts.loadPay()) + String(zero.amount) + payContract.signals.retry.name; }
