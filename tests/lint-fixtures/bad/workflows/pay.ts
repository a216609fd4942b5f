// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. workflows-through-contracts: a value import of an activity
import { payWorkflowActivities } from '../activities/pay/activities';
export async function payWorkflow(): Promise<string> { return payWorkflowActivities.loadPay(); }
