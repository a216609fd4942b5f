/**
 * Activity tier, workflow starts after commit (temporal/intents.ts; issue 36 item 2): a start or
 * signal recorded in a transaction is made once the transaction commits and its row deleted; a
 * rolled-back transaction makes none; a row whose process died before making it (or met Temporal
 * out) is made by the sweep, with the starting request's id, and stays until it succeeds; a signal
 * to an open run never starts one; a sweep performs only its own task queue's rows and leaves a row
 * its writing process has leased until the lease runs out. The recording Temporal client of the
 * activity tier stands in for the server.
 */
import type { Client } from '@temporalio/client';
import { paymentContract } from '../../contracts/payment';
import { paymentLinkContract } from '../../contracts/payment-link';
import { loadConfig } from '../../lib/config';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { deferStartsToSweep, setTemporalClient } from '../../temporal/client';
import { performDueIntents, signalRunningAfterCommit, startAfterCommit } from '../../temporal/intents';
import { callsFor, describeWithDb, restoreRecordingClient, useActivityTier, workflowCalls } from '../helpers/activity-env';

/** This file's account (rows of other files' accounts are left to their own processes). */
const ACCOUNT = newId('acct_');

/** The rows still recorded for workflow id `id`. */
async function rowsFor(id: string): Promise<number> {
  return Number((await db().query('SELECT count(*)::int AS n FROM workflow_intents WHERE workflow_id = $1', [id]))[0].n);
}

describeWithDb('workflow starts after commit', () => {
  useActivityTier();

  test('a start and a signal recorded in a transaction are made after the commit, in order, and their rows deleted', async () => {
    const id = newId('pay_');
    await transaction(async (m) => {
      await startAfterCommit(m, paymentContract, { id, accountId: ACCOUNT });
      await startAfterCommit(m, paymentContract, { id, accountId: ACCOUNT }, paymentContract.signals.deposit, { depositId: 'dep_1' });
      // Nothing is sent before the commit.
      expect(callsFor(id)).toEqual([]);
    });
    expect(callsFor(id)).toEqual(['start:-', 'signalWithStart:deposit']);
    expect(workflowCalls.find((c) => c.workflowId === id && c.signal === 'deposit')?.signalArgs).toEqual([{ depositId: 'dep_1' }]);
    expect(await rowsFor(id)).toBe(0);
  });

  test('a rolled-back transaction starts nothing and leaves no row', async () => {
    const id = newId('pay_');
    await expect(
      transaction(async (m) => {
        await startAfterCommit(m, paymentContract, { id, accountId: ACCOUNT });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(callsFor(id)).toEqual([]);
    expect(await rowsFor(id)).toBe(0);
  });

  test('a signal to an open run never starts one', async () => {
    const id = newId('pl_');
    await transaction((m) =>
      signalRunningAfterCommit(m, paymentLinkContract, { id, accountId: ACCOUNT }, paymentLinkContract.signals.update),
    );
    expect(callsFor(id)).toEqual(['signal:linkChanged']);
  });

  // The rows below are fresh and the sweeps run with no grace, on this file's own account: the shared
  // stack's worker sweeps rows older than INTENT_GRACE_MS only, so it never takes them first.
  test('a row its process never made (a crash after commit) is made by the sweep once it is older than the grace period, then deleted', async () => {
    const id = newId('pl_');
    await db().query(
      `INSERT INTO workflow_intents(workflow_type, workflow_id, account_id, signal, signal_args, request_id)
       VALUES ('paymentLinkWorkflow', $1, $2, 'linkChanged', '[]', 'req_sweep')`,
      [id, ACCOUNT],
    );
    // Younger rows are the writing process's own: a sweep with a long grace leaves it alone.
    expect(await performDueIntents({ graceMs: 60_000, accountId: ACCOUNT })).toBe(0);
    expect(callsFor(id)).toEqual([]);
    expect(await performDueIntents({ graceMs: 0, accountId: ACCOUNT })).toBe(1);
    expect(callsFor(id)).toEqual(['signalWithStart:linkChanged']);
    expect(await rowsFor(id)).toBe(0);
  });

  test('a row its writing process has leased is left to that process until the lease runs out, then the sweep makes it once', async () => {
    const id = newId('pl_');
    await db().query(
      `INSERT INTO workflow_intents(workflow_type, workflow_id, account_id, signal, signal_args, claimed_until)
       VALUES ('paymentLinkWorkflow', $1, $2, 'linkChanged', '[]', now() + interval '30 seconds')`,
      [id, ACCOUNT],
    );
    // The writer is slower than the grace period (a loaded machine): the sweep must not make it a second time.
    expect(await performDueIntents({ graceMs: 0, accountId: ACCOUNT })).toBe(0);
    expect(callsFor(id)).toEqual([]);
    expect(await rowsFor(id)).toBe(1);
    // The writer died holding the lease: once it runs out the row is the sweep's.
    await db().query(`UPDATE workflow_intents SET claimed_until = now() - interval '1 second' WHERE workflow_id = $1`, [id]);
    expect(await performDueIntents({ graceMs: 0, accountId: ACCOUNT })).toBe(1);
    expect(callsFor(id)).toEqual(['signalWithStart:linkChanged']);
    expect(await rowsFor(id)).toBe(0);
  });

  test('in an API process (starts deferred to the sweep), a row whose start meets Temporal out is kept, unleased, for the sweep', async () => {
    const id = newId('pl_');
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { name: 'ConnectionError' });
    const failing = { workflow: { signalWithStart: () => Promise.reject(unavailable), start: () => Promise.reject(unavailable) } };
    deferStartsToSweep(true);
    setTemporalClient(failing as unknown as Client);
    try {
      await transaction((m) => startAfterCommit(m, paymentLinkContract, { id, accountId: ACCOUNT }, paymentLinkContract.signals.update));
    } finally {
      deferStartsToSweep(false);
      restoreRecordingClient();
    }
    // A deferred start is only logged; the row is what makes it durable, so the failure keeps it.
    expect(callsFor(id)).toEqual([]);
    expect(await db().query('SELECT claimed_until FROM workflow_intents WHERE workflow_id = $1', [id])).toEqual([{ claimed_until: null }]);
    expect(await performDueIntents({ graceMs: 0, accountId: ACCOUNT })).toBe(1);
    expect(callsFor(id)).toEqual(['signalWithStart:linkChanged']);
    expect(await rowsFor(id)).toBe(0);
  });

  test("a sweep performs only the rows of the task queue its process serves (another deployment's or a test's private queue is left alone)", async () => {
    const mine = newId('pl_');
    const theirs = newId('pl_');
    await db().query(
      `INSERT INTO workflow_intents(workflow_type, workflow_id, account_id, signal, task_queue)
       VALUES ('paymentLinkWorkflow', $1, $3, NULL, $4), ('paymentLinkWorkflow', $2, $3, NULL, 'another-deployment')`,
      [mine, theirs, ACCOUNT, loadConfig().temporalTaskQueue],
    );
    expect(await performDueIntents({ graceMs: 0, accountId: ACCOUNT })).toBe(1);
    expect(callsFor(mine)).toEqual(['start:-']);
    expect(callsFor(theirs)).toEqual([]);
    expect(await rowsFor(theirs)).toBe(1);
    await db().query('DELETE FROM workflow_intents WHERE workflow_id = $1', [theirs]);
  });

  test('a row recorded after commit keeps the task queue of the process that recorded it', async () => {
    const id = newId('pay_');
    await transaction(async (m) => {
      await startAfterCommit(m, paymentContract, { id, accountId: ACCOUNT });
      expect((await m.query('SELECT task_queue FROM workflow_intents WHERE workflow_id = $1', [id]))[0]?.task_queue).toBe(
        loadConfig().temporalTaskQueue,
      );
    });
    expect(callsFor(id)).toEqual(['start:-']);
  });

  test('a row of an unknown signal is dropped with a log line, not retried forever; other rows are still made', async () => {
    const bad = newId('pl_');
    const good = newId('pl_');
    await db().query(
      `INSERT INTO workflow_intents(workflow_type, workflow_id, account_id, signal)
       VALUES ('paymentLinkWorkflow', $1, $3, 'noSuchSignal'), ('paymentLinkWorkflow', $2, $3, NULL)`,
      [bad, good, ACCOUNT],
    );
    await performDueIntents({ graceMs: 0, accountId: ACCOUNT });
    expect(callsFor(bad)).toEqual([]);
    expect(callsFor(good)).toEqual(['start:-']);
    expect(await rowsFor(bad)).toBe(0);
    expect(await rowsFor(good)).toBe(0);
  });

  test("a signal that is not one of the contract's is refused when recorded (a programming error)", async () => {
    await expect(
      transaction((m) =>
        startAfterCommit(m, paymentLinkContract, { id: newId('pl_'), accountId: ACCOUNT }, paymentContract.signals.deposit, {
          depositId: 'x',
        }),
      ),
    ).rejects.toThrow(/not a signal of paymentLinkWorkflow/);
  });
});
