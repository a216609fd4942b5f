/**
 * Temporal client factory and the one way the API and activities start or signal an object's
 * workflow, from its contract alone (contracts/<object>.ts: workflow type, start arguments,
 * signals): signalWithStart by object id (idempotent by workflow id; ARCHITECTURE.md "Data flow" 4),
 * tagged with the AccountId search attribute so operators find workflows by account, and with the
 * starting API request's id (memo `request_id`, search attribute RequestId) so an operator goes from
 * a merchant's support ticket to the workflow.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, Connection } from '@temporalio/client';
import type { SearchAttributePair, SignalDefinition } from '@temporalio/common';
import { isSignalOf, type QuerySet, type SignalSet, type WorkflowContract } from '../contracts/contract';
import { ACCOUNT_KEY, MEMO_REQUEST_ID, REQUEST_KEY } from '../contracts/search-attributes';
import { loadConfig } from '../lib/config';
import { isTemporalUnavailable } from '../lib/dependency-errors';
import { logger } from '../lib/logger';
import { currentRequest } from '../lib/request-context';
import { temporalClientTracing } from '../lib/tracing';
import { temporalConnectConfig } from './connect';

/** Typed keys of the AccountId and RequestId search attributes (Keyword; contracts/search-attributes.ts). */
export { ACCOUNT_KEY, REQUEST_KEY };

let client: Client | null = null;
let connection: Connection | null = null;

let connecting: Promise<Client> | null = null;

/**
 * Connects once (temporal/connect.ts: address, TLS or API key, namespace) and returns the shared
 * client. With `deferStartsToSweep` on (API processes), a server that does not answer yet (a first
 * `npm start` still building the Temporal CLI, a cluster still starting) is not fatal: the client
 * connects lazily, each call fails as unavailable until the server answers, and starts are left to
 * the sweep. Otherwise throws when the server does not answer.
 */
export async function temporalClient(): Promise<Client> {
  if (client) return client;
  connecting ??= (async () => {
    const { connectionOptions, namespace } = temporalConnectConfig();
    const options = {
      address: connectionOptions.address,
      tls: connectionOptions.tls,
      apiKey: connectionOptions.apiKey,
      metadata: connectionOptions.metadata,
    };
    let conn: Connection;
    try {
      conn = await Connection.connect(deferToSweep ? { ...options, connectTimeout: '3s' } : options);
    } catch (e) {
      // Any failure: grpc-js's own deadline error is not a ServiceError; `/readyz` names what fails.
      if (!deferToSweep) throw e;
      logger.warn(
        { err: e, address: options.address },
        'Temporal does not answer yet: serving without it; workflow starts are recorded and made once it answers',
      );
      conn = Connection.lazy(options);
    }
    connection = conn;
    client = new Client({ connection: conn, namespace, ...temporalClientTracing() });
    return client;
  })().finally(() => {
    connecting = null;
  });
  return connecting;
}

let eagerCapable = false;

/**
 * Uses an existing client (tests, the worker process). `eager`: the client rides the connection of
 * a worker polling the task queue in this process, so starts may request eager execution.
 */
export function setTemporalClient(input: Client, opts: { eager?: boolean } = {}): void {
  client = input;
  eagerCapable = opts.eager ?? false;
}

/** Closes the shared connection. */
export async function closeTemporalClient(): Promise<void> {
  await connection?.close();
  connection = null;
  client = null;
  eagerCapable = false;
}

let deferToSweep = false;

/** Set while `undeferred` runs its function: a Temporal outage is thrown, never left to the sweep. */
const mustReach = new AsyncLocalStorage<true>();

/**
 * Runs `fn` with its starts and signals never deferred to the sweep, also in an API process: a
 * Temporal outage throws. For a caller that holds the durable record of the start itself (a
 * `workflow_intents` row, temporal/intents.ts): it must see the failure to keep its row.
 */
export function undeferred<T>(fn: () => Promise<T>): Promise<T> {
  return mustReach.run(true, fn);
}

/**
 * API processes: a start or signal (`startOrSignal`, `startIfAbsent`) that meets the
 * Temporal server out is logged and left to the worker's recovery sweep, which runs again when the
 * server is back (temporal/outage.ts): the command's intent is committed in PostgreSQL, so the
 * request that committed it succeeds instead of failing after its effect. Workers keep failing the
 * activity (Temporal retries it).
 */
export function deferStartsToSweep(on = true): void {
  deferToSweep = on;
}

/** Runs the start or signal `fn` for `ref`; with `deferStartsToSweep`, a Temporal outage is logged and left to the sweep. */
async function orDeferred(what: string, ref: ObjectRef, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!deferToSweep || mustReach.getStore() || !isTemporalUnavailable(e)) throw e;
    logger.warn({ err: e, workflow_id: ref.id, what }, 'Temporal unavailable: left to the recovery sweep');
  }
}

/**
 * The object a workflow runs for: its id (= the workflow id) and its account (the AccountId search
 * attribute); `requestId`: the request that asked for the start when it is not the current one (a
 * start recorded after commit and made by the sweep, temporal/intents.ts).
 */
export interface ObjectRef {
  id: string;
  accountId: string;
  requestId?: string;
}

/**
 * What a start records about its origin: search attribute AccountId (and RequestId inside an API
 * request) when `searchAttributes` (TEMPORAL_SEARCH_ATTRIBUTES), and memo `request_id` inside an API
 * request (lib/request-context.ts). Starts outside a request (recovery sweeps, the outbox dispatcher,
 * activities) carry no request id. A signalWithStart that only signals a running workflow changes
 * neither: the workflow keeps its starting request's id.
 */
export function startTags(
  ref: ObjectRef,
  searchAttributes: boolean,
): { memo?: Record<string, string>; typedSearchAttributes?: SearchAttributePair[] } {
  const requestId = ref.requestId ?? currentRequest()?.requestId;
  const attrs: SearchAttributePair[] = [{ key: ACCOUNT_KEY, value: ref.accountId }];
  if (requestId) attrs.push({ key: REQUEST_KEY, value: requestId });
  return {
    ...(requestId ? { memo: { [MEMO_REQUEST_ID]: requestId } } : {}),
    ...(searchAttributes ? { typedSearchAttributes: attrs } : {}),
  };
}

/** Any workflow contract (contracts/contract.ts). */
type AnyContract = WorkflowContract<object, SignalSet, QuerySet, unknown>;

/** Throws when `signal` is not one of `contract`'s signals (a programming error: another object's definition). */
function assertOwnSignal(contract: AnyContract, signal: SignalDefinition<any[]>): void {
  if (!isSignalOf(contract, signal)) throw new Error(`signal ${signal.name} is not a signal of ${contract.workflowType} (contracts/)`);
}

/**
 * Signals the workflow of object `ref.id` with `signal` (one of `contract.signals`), starting it
 * first with `contract.startArgs(ref.id)` if no run is open. Safe to repeat: a running workflow only
 * receives the signal again (handlers are idempotent).
 */
export async function startOrSignal<A extends unknown[]>(
  contract: AnyContract,
  ref: ObjectRef,
  signal: SignalDefinition<A>,
  ...signalArgs: A
): Promise<void> {
  assertOwnSignal(contract, signal);
  const c = await temporalClient();
  const cfg = loadConfig();
  const call = () =>
    c.workflow.signalWithStart(contract.workflowType, {
      taskQueue: cfg.temporalTaskQueue,
      workflowId: ref.id,
      args: contract.startArgs(ref.id),
      signal,
      signalArgs,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      ...startTags(ref, cfg.temporalSearchAttributes),
    } as never);
  // A start of the same id racing this call (a start made after commit, temporal/intents.ts) can make
  // a server (the Java test server) refuse signalWithStart as already started: the run exists now,
  // so the same call signals it.
  await orDeferred(`signalWithStart ${signal.name}`, ref, () =>
    call().catch((e: { name?: string }) => {
      if (e?.name !== 'WorkflowExecutionAlreadyStartedError') throw e;
      return call();
    }),
  );
}

/** Starts the workflow of object `ref.id` (`contract.startArgs(ref.id)`) unless a run with that id is already open (idempotent). */
export async function startIfAbsent(contract: AnyContract, ref: ObjectRef, opts: { eager?: boolean } = {}): Promise<void> {
  const c = await temporalClient();
  const cfg = loadConfig();
  try {
    await orDeferred('start', ref, () =>
      c.workflow.start(contract.workflowType, {
        taskQueue: cfg.temporalTaskQueue,
        // Eager start: the server hands the first workflow task straight back to this process's worker
        // (only when the shared client rides the worker's NativeConnection, see worker.ts).
        ...(opts.eager && eagerCapable ? { requestEagerStart: true } : {}),
        workflowId: ref.id,
        args: contract.startArgs(ref.id),
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        ...startTags(ref, cfg.temporalSearchAttributes),
      } as never),
    );
  } catch (e) {
    if ((e as { name?: string }).name !== 'WorkflowExecutionAlreadyStartedError') throw e;
  }
}

/**
 * Signals the open run of workflow `workflowId` (never starts one) with `signal` (one of
 * `contract.signals`). False when no run is open (WorkflowNotFoundError); other failures throw.
 */
export async function signalIfRunning<A extends unknown[]>(
  contract: AnyContract,
  workflowId: string,
  signal: SignalDefinition<A>,
  ...signalArgs: A
): Promise<boolean> {
  assertOwnSignal(contract, signal);
  try {
    await (await temporalClient()).workflow.getHandle(workflowId).signal(signal, ...signalArgs);
    return true;
  } catch (e) {
    if ((e as { name?: string }).name === 'WorkflowNotFoundError') return false;
    throw e;
  }
}
