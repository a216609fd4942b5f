/**
 * Temporal client factory and the one way the API and activities start or signal an object's
 * workflow: signalWithStart by object id (idempotent by workflow id; ARCHITECTURE.md "Data flow" 4),
 * tagged with the AccountId search attribute so operators find workflows by account.
 */
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { loadConfig } from '../lib/config';
import { SEARCH_ATTRIBUTE_ACCOUNT } from './config';

/** Typed key of the AccountId search attribute (Keyword). */
export const ACCOUNT_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTE_ACCOUNT, SearchAttributeType.KEYWORD);

let client: Client | null = null;
let connection: Connection | null = null;

/** Connects once to TEMPORAL_ADDRESS (default 127.0.0.1:7233) and returns the shared client. */
export async function temporalClient(): Promise<Client> {
  if (client) return client;
  const cfg = loadConfig();
  connection = await Connection.connect({ address: cfg.temporalAddress ?? '127.0.0.1:7233' });
  client = new Client({ connection, namespace: cfg.temporalNamespace });
  return client;
}

let eagerCapable = false;

/**
 * Uses an existing client (tests, the worker process). `eager`: the client rides the connection of
 * a worker polling the task queue in this process, so starts may request eager execution.
 */
export function setTemporalClient(c: Client, opts: { eager?: boolean } = {}): void {
  client = c;
  eagerCapable = opts.eager ?? false;
}

/** Closes the shared connection. */
export async function closeTemporalClient(): Promise<void> {
  await connection?.close();
  connection = null;
  client = null;
  eagerCapable = false;
}

export interface StartSpec {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  accountId: string;
  signal: string;
  signalArgs?: unknown[];
}

/**
 * Signals the workflow `workflowId`, starting it with `args` first if it is not running.
 * Safe to repeat: a running workflow only receives the signal again (handlers are idempotent).
 */
export async function signalWithStart(spec: StartSpec): Promise<void> {
  const c = await temporalClient();
  const cfg = loadConfig();
  await c.workflow.signalWithStart(spec.workflowType, {
    taskQueue: cfg.temporalTaskQueue,
    workflowId: spec.workflowId,
    args: spec.args,
    signal: spec.signal,
    signalArgs: spec.signalArgs ?? [],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    ...(cfg.temporalSearchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_KEY, value: spec.accountId }] } : {}),
  });
}

/** Starts `workflowType` with id `workflowId` unless a run with that id is already open (idempotent). */
export async function startIfAbsent(spec: Omit<StartSpec, 'signal' | 'signalArgs'>, opts: { eager?: boolean } = {}): Promise<void> {
  const c = await temporalClient();
  const cfg = loadConfig();
  try {
    await c.workflow.start(spec.workflowType, {
      taskQueue: cfg.temporalTaskQueue,
      // Eager start: the server hands the first workflow task straight back to this process's worker
      // (only when the shared client rides the worker's NativeConnection, see worker.ts).
      ...(opts.eager && eagerCapable ? { requestEagerStart: true } : {}),
      workflowId: spec.workflowId,
      args: spec.args,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      ...(cfg.temporalSearchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_KEY, value: spec.accountId }] } : {}),
    });
  } catch (e) {
    if ((e as { name?: string }).name !== 'WorkflowExecutionAlreadyStartedError') throw e;
  }
}
