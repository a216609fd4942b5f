// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import type { PayActivities } from '../../contracts/pay';
import { emit } from '../../lib/outbox';
import { client } from '../../temporal/client';
export async function loadPay(): Promise<string> { return typeof emit + typeof client; }
export async function feeOf(amount: { amount: bigint }): Promise<{ amount: bigint }> { return amount; }
export const payWorkflowActivities = { loadPay, feeOf } satisfies PayActivities;
