// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. workflows-through-contracts: even a type import of an activity (the contract holds the interface)
import type { PayWorkflowActivities } from '../activities/pay/activities';
export type Acts = PayWorkflowActivities;
