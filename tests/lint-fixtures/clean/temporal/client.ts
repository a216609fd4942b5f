// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import type { PayActivities } from '../contracts/pay';
import { emit } from '../lib/outbox';
export const client = emit;
export const startOrSignal = (workflowType: string, id: string): string => `${workflowType}:${id}`;
export type Typed = PayActivities;
