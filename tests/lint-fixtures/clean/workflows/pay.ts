// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import type { PayWorkflowActivities } from '../activities/pay/activities';
import { zero } from '../domain/money';
export async function payWorkflow(acts: PayWorkflowActivities): Promise<string> { return (await acts.loadPay()) + String(zero.amount); }
