/**
 * The activity tier (tests/activities/): a workflow's activities run one at a time inside
 * `MockActivityEnvironment` (@temporalio/testing) against the PostgreSQL of the jest global setup,
 * with the providers' sandbox implementations (their state is rows of the same database).
 *
 * No workflow runs. The Temporal client the activities and commands use is replaced by a recorder
 * (`workflowCalls`): a signal or start is written down instead of sent, so the shared stack's worker
 * never picks up the objects a test file creates and races the activity under test. Events are
 * checked against their documented schemas as the product's are (EVENT_SCHEMA_CHECK).
 *
 * The files need the database, so they run in the real tier (`npm test`, jest.config.js). The fast
 * tier's config (jest.logic.config.js) also lists tests/activities/ and has no database: there
 * `describeWithDb` skips them (the stack's TEST_API_URL is absent).
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import { DefaultLogger } from '@temporalio/worker';
import type { Caller } from '../../domain/caller';
import { awaitAfterCommitHooks, db } from '../../lib/db';
import { resetConfig } from '../../lib/config';
import { setTemporalClient } from '../../temporal/client';
import { connectDb } from './api';

/** One start or signal an activity or command sent to Temporal (recorded, never sent). */
export interface WorkflowCall {
  kind: 'signalWithStart' | 'start' | 'signal';
  workflowId: string;
  /** Workflow function name (signalWithStart, start). */
  workflowType: string | null;
  /** Signal name (signalWithStart, signal). */
  signal: string | null;
  signalArgs: unknown[];
}

/** Every workflow call recorded since the file started (tests filter by workflow id). */
export const workflowCalls: WorkflowCall[] = [];

const nameOf = (x: unknown): string | null => (typeof x === 'string' ? x : ((x as { name?: string } | null)?.name ?? null));

/** A Temporal client that records instead of sending (only the calls temporal/client.ts and the signals modules make). */
function recordingClient(): Client {
  const workflow = {
    async signalWithStart(wf: unknown, o: { workflowId: string; signal: unknown; signalArgs?: unknown[] }) {
      workflowCalls.push({
        kind: 'signalWithStart',
        workflowId: o.workflowId,
        workflowType: nameOf(wf),
        signal: nameOf(o.signal),
        signalArgs: o.signalArgs ?? [],
      });
      return { workflowId: o.workflowId };
    },
    async start(wf: unknown, o: { workflowId: string }) {
      workflowCalls.push({ kind: 'start', workflowId: o.workflowId, workflowType: nameOf(wf), signal: null, signalArgs: [] });
      return { workflowId: o.workflowId };
    },
    getHandle(workflowId: string) {
      return {
        workflowId,
        async signal(def: unknown, ...args: unknown[]) {
          workflowCalls.push({ kind: 'signal', workflowId, workflowType: null, signal: nameOf(def), signalArgs: args });
        },
      };
    },
  };
  return { workflow } as unknown as Client;
}

/** Installs the recording Temporal client again (after a test swapped in a client of its own). */
export function restoreRecordingClient(): void {
  setTemporalClient(recordingClient());
}

/** The recorded calls for workflow id `id`, as `kind:signal` strings (`start:-` for a plain start). */
export function callsFor(id: string): string[] {
  return workflowCalls.filter((c) => c.workflowId === id).map((c) => `${c.kind}:${c.signal ?? '-'}`);
}

/** `describe` when the global setup's stack is there (real tier), else `describe.skip` (fast tier). */
export const describeWithDb: jest.Describe = process.env.TEST_API_URL ? describe : describe.skip;

/** Connects to the test database and installs the recording Temporal client before the file's tests. */
export function useActivityTier(): void {
  beforeAll(async () => {
    process.env.EVENT_SCHEMA_CHECK = 'true';
    resetConfig();
    await connectDb();
    setTemporalClient(recordingClient());
    // Starts and signals recorded with a commit (temporal/intents.ts) are made before the command returns.
    awaitAfterCommitHooks(true);
  });
}

/** A MockActivityEnvironment whose logger keeps quiet about the failures a test provokes on purpose. */
export function activityEnv(): MockActivityEnvironment {
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

/** Runs activity `fn` with `args` in a fresh MockActivityEnvironment (its own Context, as each attempt has). */
export function runActivity<P extends unknown[], R>(fn: (...args: P) => Promise<R>, ...args: P): Promise<R> {
  return activityEnv().run(fn, ...args);
}

/** Runs `fn` in `env` and also collects its heartbeats. */
export async function runWithHeartbeats<P extends unknown[], R>(
  env: MockActivityEnvironment,
  fn: (...args: P) => Promise<R>,
  ...args: P
): Promise<{ result: R; heartbeats: unknown[] }> {
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => heartbeats.push(d));
  const result = (await env.run(fn, ...args)) as R;
  return { result, heartbeats };
}

/** Event types written for object `id` (its own events, not related ones), oldest first. */
export async function eventTypes(id: string): Promise<string[]> {
  const rows: Array<{ type: string }> = await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id]);
  return rows.map((r) => r.type);
}

/** One column of one row, read fresh: `row('payouts', id)`. */
export async function row<T = Record<string, any>>(table: string, id: string): Promise<T> {
  const rows = await db().query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  if (!rows[0]) throw new Error(`no ${table} row ${id}`);
  return rows[0] as T;
}

/** The number of rows of `table` matching `where` (SQL with $1.. params). */
export async function count(table: string, where: string, params: unknown[]): Promise<number> {
  const rows: Array<{ n: number }> = await db().query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
  return rows[0].n;
}

/** The error `p` rejects with (fails the test when it resolves). */
export async function rejection(
  value: Promise<unknown>,
): Promise<Error & { name: string; code?: string; type?: string; nonRetryable?: boolean }> {
  try {
    await value;
  } catch (e) {
    return e as Error & { name: string };
  }
  throw new Error('expected a rejection, the call resolved');
}

/** A business-key caller of `accountId` (what the area's queries take), with every scope. */
export function keyCaller(accountId: string, livemode = true): Caller {
  return { kind: 'business_key', accountId, livemode, keyId: null, userId: null, role: null, scopes: ['*'], defaultVersion: null };
}

/** The owner's user id of `accountId`. */
export async function ownerOf(accountId: string): Promise<string> {
  const rows: Array<{ user_id: string }> = await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [
    accountId,
  ]);
  return rows[0].user_id;
}

/** A request reference for commands run by a test. */
export const testRequest = { id: 'req_activity_tier', idempotency_key: null };
