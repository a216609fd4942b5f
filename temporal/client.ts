/**
 * Temporal client factory and the one way the API and activities start or signal an object's
 * workflow: signalWithStart by object id (idempotent by workflow id; ARCHITECTURE.md "Data flow" 4),
 * tagged with the AccountId search attribute so operators find workflows by account.
 */
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, type SignalDefinition, type Workflow } from '@temporalio/common';
import { loadConfig } from '../lib/config';
import { SEARCH_ATTRIBUTE_ACCOUNT } from './config';
import { temporalConnectConfig } from './connect';

/** Typed key of the AccountId search attribute (Keyword). */
export const ACCOUNT_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTE_ACCOUNT, SearchAttributeType.KEYWORD);

let client: Client | null = null;
let connection: Connection | null = null;

/** Connects once (temporal/connect.ts: address, TLS or API key, namespace) and returns the shared client. */
export async function temporalClient(): Promise<Client> {
  if (client) return client;
  const { connectionOptions, namespace } = temporalConnectConfig();
  connection = await Connection.connect({ address: connectionOptions.address, tls: connectionOptions.tls, apiKey: connectionOptions.apiKey, metadata: connectionOptions.metadata });
  client = new Client({ connection, namespace });
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

/** What starting an object's workflow needs: its id (= the object id), its arguments and its account. */
export interface StartSpec<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  accountId: string;
}

/**
 * Signals the workflow `workflowId` with `signal` (a definition exported by the workflow file),
 * starting `workflow` with `args` first if it is not running. Safe to repeat: a running workflow
 * only receives the signal again (handlers are idempotent).
 */
export async function signalWithStart<W extends Workflow, A extends unknown[]>(
  workflow: W,
  spec: StartSpec<W> & { signal: SignalDefinition<A>; signalArgs: A },
): Promise<void> {
  const c = await temporalClient();
  const cfg = loadConfig();
  await c.workflow.signalWithStart<W, A>(workflow, {
    taskQueue: cfg.temporalTaskQueue,
    workflowId: spec.workflowId,
    args: spec.args,
    signal: spec.signal,
    signalArgs: spec.signalArgs,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    ...(cfg.temporalSearchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_KEY, value: spec.accountId }] } : {}),
  } as never);
}

/** Starts `workflow` with id `workflowId` unless a run with that id is already open (idempotent). */
export async function startIfAbsent<W extends Workflow>(workflow: W, spec: StartSpec<W>, opts: { eager?: boolean } = {}): Promise<void> {
  const c = await temporalClient();
  const cfg = loadConfig();
  try {
    await c.workflow.start(workflow, {
      taskQueue: cfg.temporalTaskQueue,
      // Eager start: the server hands the first workflow task straight back to this process's worker
      // (only when the shared client rides the worker's NativeConnection, see worker.ts).
      ...(opts.eager && eagerCapable ? { requestEagerStart: true } : {}),
      workflowId: spec.workflowId,
      args: spec.args,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      ...(cfg.temporalSearchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_KEY, value: spec.accountId }] } : {}),
    } as never);
  } catch (e) {
    if ((e as { name?: string }).name !== 'WorkflowExecutionAlreadyStartedError') throw e;
  }
}
