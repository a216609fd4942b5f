// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. contracts-on-domain: a contract imports neither side
import type { PayWorkflowActivities } from '../activities/pay/activities';
import { payWorkflow } from '../workflows/pay';
export const payContract = { workflowType: payWorkflow.name };
export type PayActivities = PayWorkflowActivities;
