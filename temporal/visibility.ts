/**
 * Operator views over Temporal visibility: how many workflows wait for an operator, per
 * workflow type, for the sampled gauge `payments_workflows_parked{workflow_type}`.
 */
import type { Client } from '@temporalio/client';
import { CONTRACTS } from '../contracts';
import { SEARCH_ATTRIBUTE_PARKED } from '../contracts/search-attributes';
import { loadConfig } from '../lib/config';

/** The visibility query of the running workflows of `workflowType` parked for an operator. */
export function parkedQuery(workflowType: string): string {
  return `${SEARCH_ATTRIBUTE_PARKED} = true AND ExecutionStatus = 'Running' AND WorkflowType = '${workflowType}'`;
}

/**
 * Counts running workflows parked for an operator (search attribute `Parked = true`, upserted by
 * workflows/convention.ts parkForOperator), per workflow type: one visibility count per workflow type
 * of contracts/ (the dev server's SQLite visibility only groups by ExecutionStatus, so no GROUP BY
 * WorkflowType). Every type appears, with 0 when none is parked. `{}` when search attributes are off
 * (TEMPORAL_SEARCH_ATTRIBUTES=false: no workflow is marked). Needs a server with visibility (the dev
 * server or a cluster; the Java test server cannot count).
 */
export async function countParkedWorkflows(client: Client): Promise<Record<string, number>> {
  if (!loadConfig().temporalSearchAttributes) return {};
  const counts = await Promise.all(
    CONTRACTS.map(async (c) => [c.workflowType, (await client.workflow.count(parkedQuery(c.workflowType))).count] as const),
  );
  return Object.fromEntries(counts);
}
