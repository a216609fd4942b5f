// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { emit } from '../../lib/outbox';
import { client } from '../../temporal/client';
export async function loadPay(): Promise<string> { return typeof emit + typeof client; }
export const payWorkflowActivities = { loadPay };
export type PayWorkflowActivities = typeof payWorkflowActivities;
