/**
 * Workflow starts and signals that follow a commit durably (ARCHITECTURE.md "The
 * cost of a journey" and "Data flow" 4; docs/decisions/0091-a-journey-at-the-cost-of-its-work.md).
 *
 * A command or activity that must start or signal an object's workflow records that in its own
 * transaction (`startAfterCommit(m, contract, ref, signal?, ...args)`: one `workflow_intents` row).
 * Once the transaction commits, this process performs the row in the background (signalWithStart,
 * or a start by workflow id when no signal is named) and deletes it: the request that committed it
 * answers without waiting on Temporal. A row the process could not perform (a crash between commit
 * and start, a Temporal outage) is performed by the workers' sweep (`performDueIntents`, every
 * second, rows older than INTENT_GRACE_MS, `FOR UPDATE SKIP LOCKED` so several workers share it).
 * Before performing its row the writing process leases it (`claimed_until`, INTENT_LEASE_MS): the
 * sweep skips a leased row, so a process slower than the grace period and the sweep never both
 * perform it (a signal performed twice could start a second run of a workflow the first had let
 * end). A row whose lease ran out (its process died) is the sweep's. Should a row still be performed
 * twice, that is harmless for money: a start is idempotent by workflow id and every signal handler
 * is idempotent (a deposit id is queued once; `update` means "re-read the row").
 *
 * The row keeps the starting request's id, so a start the sweep makes still carries memo
 * `request_id` and search attribute `RequestId` (temporal/client.ts `startTags`).
 */
import type { EntityManager } from 'typeorm';
import type { SignalDefinition } from '@temporalio/common';
import { CONTRACTS } from '../contracts';
import type { QuerySet, SignalSet, WorkflowContract } from '../contracts/contract';
import { loadConfig } from '../lib/config';
import { afterCommit, db, transaction } from '../lib/db';
import { logger } from '../lib/logger';
import { currentRequest } from '../lib/request-context';
import { signalIfRunning, startIfAbsent, startOrSignal, undeferred, type ObjectRef } from './client';

/** Any workflow contract (contracts/contract.ts). */
type AnyContract = WorkflowContract<object, SignalSet, QuerySet, unknown>;

/** A recorded start or signal (a `workflow_intents` row). */
interface IntentRow {
  id: string;
  workflow_type: string;
  workflow_id: string;
  account_id: string;
  signal: string | null;
  signal_args: unknown[];
  only_if_running: boolean;
  request_id: string | null;
}

/**
 * How old (ms) a row must be before the sweep performs it: the writing process performs its own
 * rows well within this, also on a loaded machine (a row made twice is harmless, but costs a call).
 */
export const INTENT_GRACE_MS = 5000;

/**
 * How long (ms) the writing process holds its lease on a row while it performs it: far longer than a
 * start or signal takes, short enough that a row its dead process held is soon the sweep's.
 */
export const INTENT_LEASE_MS = 30_000;

/** Performances started after a commit and not yet finished (graceful shutdown and tests wait for them). */
const inFlight = new Set<Promise<void>>();

/**
 * Records in `m`'s transaction that the workflow of `contract` for object `ref` must be signalled
 * with `signal` (one of `contract.signals`, with `args`; JSON values) and started first if no run is
 * open, or, without `signal`, started unless a run is open. After commit the row is performed in the
 * background (module doc); a failure is logged and left to the sweep. Throws (a programming error)
 * when `signal` is not one of the contract's signals.
 */
export async function startAfterCommit<A extends unknown[]>(
  manager: EntityManager,
  contract: AnyContract,
  ref: ObjectRef,
  signal?: SignalDefinition<A>,
  ...args: A
): Promise<void> {
  await record(manager, contract, ref, signal ?? null, args, false);
}

/**
 * Records in `m`'s transaction a `signal` (one of `contract.signals`, with `args`) to the open run of
 * object `ref`'s workflow, never starting one (a run that ended has nothing left to do: e.g. a link
 * whose payment ended it). Performed after commit like `startAfterCommit`.
 */
export async function signalRunningAfterCommit<A extends unknown[]>(
  manager: EntityManager,
  contract: AnyContract,
  ref: ObjectRef,
  signal: SignalDefinition<A>,
  ...args: A
): Promise<void> {
  await record(manager, contract, ref, signal, args, true);
}

/** Inserts the row in `m` and schedules its performance after commit (startAfterCommit, signalRunningAfterCommit). */
async function record(
  m: EntityManager,
  contract: AnyContract,
  ref: ObjectRef,
  signal: SignalDefinition<any[]> | null,
  args: unknown[],
  onlyIfRunning: boolean,
): Promise<void> {
  if (signal && !Object.values(contract.signals).some((s) => s.name === signal.name)) {
    throw new Error(`signal ${signal.name} is not a signal of ${contract.workflowType} (contracts/)`);
  }
  const requestId = ref.requestId ?? currentRequest()?.requestId ?? null;
  const rows: Array<{ id: string }> = await m.query(
    `INSERT INTO workflow_intents(workflow_type, workflow_id, account_id, signal, signal_args, only_if_running, request_id, task_queue)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) RETURNING id`,
    [
      contract.workflowType,
      ref.id,
      ref.accountId,
      signal?.name ?? null,
      JSON.stringify(args),
      onlyIfRunning,
      requestId,
      loadConfig().temporalTaskQueue,
    ],
  );
  const row: IntentRow = {
    id: String(rows[0].id),
    workflow_type: contract.workflowType,
    workflow_id: ref.id,
    account_id: ref.accountId,
    signal: signal?.name ?? null,
    signal_args: args,
    only_if_running: onlyIfRunning,
    request_id: requestId,
  };
  afterCommit(m, () => {
    const p = performAndDelete(row).finally(() => inFlight.delete(p));
    inFlight.add(p);
    return p;
  });
}

/** The contract of workflow type `type`, or null (a row of a type this build no longer knows). */
function contractOf(type: string): AnyContract | null {
  return (CONTRACTS as readonly AnyContract[]).find((c) => c.workflowType === type) ?? null;
}

/**
 * Performs one row's start or signal (temporal/client.ts); throws what Temporal throws, a Temporal
 * outage included (`undeferred`: the row is the durable record, kept until the call succeeds).
 */
function perform(row: IntentRow): Promise<void> {
  return undeferred(() => performNow(row));
}

async function performNow(row: IntentRow): Promise<void> {
  const contract = contractOf(row.workflow_type);
  if (!contract) {
    logger.error({ workflow_type: row.workflow_type, workflow_id: row.workflow_id }, 'workflow intent of an unknown workflow type dropped');
    return;
  }
  const ref = { id: row.workflow_id, accountId: row.account_id, requestId: row.request_id ?? undefined };
  if (!row.signal) return startIfAbsent(contract, ref);
  const signal = Object.values(contract.signals).find((s) => s.name === row.signal);
  if (!signal) {
    logger.error({ workflow_type: row.workflow_type, signal: row.signal }, 'workflow intent of an unknown signal dropped');
    return;
  }
  if (row.only_if_running) await signalIfRunning(contract, row.workflow_id, signal, ...(row.signal_args ?? []));
  else await startOrSignal(contract, ref, signal, ...(row.signal_args ?? []));
}

/**
 * After commit: leases `row` (INTENT_LEASE_MS), performs it and deletes it; on failure logs,
 * releases the lease and leaves the row to the sweep. Never throws. A row the sweep holds or has performed already (this process
 * was slower than the grace period) is left to the sweep: the lease skips a locked row rather than
 * wait for the sweep's Temporal calls, and the row is not performed here.
 */
async function performAndDelete(row: IntentRow): Promise<void> {
  try {
    const leased: unknown[] = await db().query(
      `UPDATE workflow_intents SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = (SELECT id FROM workflow_intents WHERE id = $1 FOR UPDATE SKIP LOCKED) RETURNING id`,
      [row.id, INTENT_LEASE_MS],
    );
    if (!leased.length) return;
    await perform(row);
    await db().query('DELETE FROM workflow_intents WHERE id = (SELECT id FROM workflow_intents WHERE id = $1 FOR UPDATE SKIP LOCKED)', [
      row.id,
    ]);
  } catch (e) {
    logger.warn({ err: e, workflow_id: row.workflow_id, signal: row.signal }, 'workflow start after commit failed: left to the sweep');
    // Give the row back at once: the sweep retries it after the grace period, not after the lease.
    await db()
      .query('UPDATE workflow_intents SET claimed_until = NULL WHERE id = $1', [row.id])
      .catch((err: unknown) =>
        logger.warn({ err, workflow_id: row.workflow_id }, 'workflow intent lease not released: the sweep takes it when it runs out'),
      );
  }
}

/**
 * The sweep (workers, every second): performs the rows older than `o.graceMs` (default
 * INTENT_GRACE_MS), oldest first, at most `o.batch` (200), each in the order recorded; rows another
 * worker holds, and rows their writing process has leased (until the lease runs out), are skipped;
 * `o.accountId` narrows it to one account (an operator's pass). Rows
 * performed are deleted in the same transaction; a row whose performance fails stays for the next
 * pass (the first failure ends this pass: Temporal is likely out); a row of a type or signal this
 * build does not know is logged and deleted. Only rows recorded for this process's task queue
 * (`TEMPORAL_TASK_QUEUE`; or recorded before queues were kept) are performed: a worker starts
 * workflows on the queue it serves, never another deployment's. Returns how many rows were performed.
 */
export async function performDueIntents(options: { graceMs?: number; batch?: number; accountId?: string } = {}): Promise<number> {
  return transaction(async (m) => {
    const rows: IntentRow[] = await m.query(
      `SELECT id::text AS id, workflow_type, workflow_id, account_id, signal, signal_args, only_if_running, request_id FROM workflow_intents
        WHERE created_at < now() - make_interval(secs => $1::double precision / 1000) AND ($3::text IS NULL OR account_id = $3)
          AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
          AND (task_queue IS NULL OR task_queue = $4)
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [options.graceMs ?? INTENT_GRACE_MS, options.batch ?? 200, options.accountId ?? null, loadConfig().temporalTaskQueue],
    );
    const done: string[] = [];
    for (const row of rows) {
      try {
        await perform(row);
        done.push(row.id);
      } catch (e) {
        logger.warn(
          { err: e, workflow_id: row.workflow_id, signal: row.signal, pending: rows.length - done.length },
          'workflow intent sweep: start failed, retried on the next pass',
        );
        break;
      }
    }
    if (done.length) await m.query('DELETE FROM workflow_intents WHERE id = ANY($1::bigint[])', [done]);
    return done.length;
  });
}

/**
 * Runs `performDueIntents` every `everyMs` (default 1000) until the returned function is called
 * (which resolves once a pass in progress has ended). Logs failures; never throws.
 */
export function startIntentSweep(everyMs = 1000): () => Promise<void> {
  let stopped = false;
  let busy = false;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = true;
    running = performDueIntents()
      .catch((e) => logger.error({ err: e }, 'workflow intent sweep failed'))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/** Resolves when every start or signal this process began after a commit has finished (graceful shutdown, tests). */
export async function intentsSettled(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}
