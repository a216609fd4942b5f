// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { payWorkflowActivities } from './activities/pay/activities';
import { payWorkflow } from './workflows/pay';
export const worker = [payWorkflowActivities, payWorkflow];
