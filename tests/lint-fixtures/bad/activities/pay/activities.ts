// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report.
export async function loadPay(): Promise<string> { return 'pay'; }
export const payWorkflowActivities = { loadPay };
export type PayWorkflowActivities = typeof payWorkflowActivities;
