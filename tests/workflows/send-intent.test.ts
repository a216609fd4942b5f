/**
 * The send-intent workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.5, 4.5, part 6 `send_intent.*`; issue 14): every terminal state: `settled`
 * (direct), `expired` (never signed: still `created` a minute before its 30 minutes, expired at
 * them, in workflow time), `failed` `source_tx_not_found` (a hash never seen on chain: still looked
 * for a minute before the hour after its recording, failed at it), `failed` `bridge_failed` (the
 * bridge fails while carrying a cross-chain send: the undelivered funds return to the wallet),
 * `settled` through the bridge after a delay; the `waiting_for` query; and a replay of every
 * completed history.
 */
import { sendIntentContract } from '../../contracts/send-intent';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import crypto from 'node:crypto';
import { createSendIntent, recordSendSourceTx } from '../../activities/send-intents/commands';
import { notifySendIntentBridgeUpdate } from '../../activities/send-intents/signals';
import { systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { signTransaction } from '../../providers/wallet-sends';
import { eventually, newAccount } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { BEFORE_DEADLINE_MS, runElapsedMs, skipToRunOffset, TURN_SLACK_MS } from '../helpers/time-skipping';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const completed = new Set<string>();
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
const req = { id: 'req_test', idempotency_key: null };

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};
const row = async (id: string) =>
  (
    await db().query(
      'SELECT status, failure_reason, delivery_tx_hash, created_at, expires_at, source_tx_recorded_at FROM wallet_send_intents WHERE id = $1',
      [id],
    )
  )[0];

/** Checks intent `id` still `created` at BEFORE_DEADLINE_MS before `deadline` (workflow time after its run's start), then that it ends `status` at the deadline. */
async function endsAtDeadline(id: string, deadlineMs: number, status: string) {
  await skipToRunOffset(env, id, deadlineMs - BEFORE_DEADLINE_MS);
  expect((await row(id)).status).toBe('created');
  expect(await result(id)).toBe(status);
  const elapsed = await runElapsedMs(env, id);
  expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
  expect(elapsed).toBeLessThanOrEqual(deadlineMs + TURN_SLACK_MS);
}

/** A holder with `funds` minor units in its wallet; returns a builder of send intents. */
async function holder(funds: bigint) {
  const acct = await newAccount();
  const chain = chainAdapter();
  const w = (await db().query('SELECT address FROM wallets WHERE account_id = $1', [acct.account_id]))[0];
  await chain.inject({
    chain: chain.chain,
    asset: chain.stablecoin,
    to_address: w.address,
    amount: funds,
    decimals: 6,
    from_address: OTHER,
  });
  const send = (destinationChain: string, amount: bigint) =>
    createSendIntent(systemScope(acct.account_id, true, req), {
      destinationChain,
      destinationAddress: OTHER,
      amount: { amount: amount.toString(), currency: chain.stablecoin, decimals: 6 },
      note: null,
    });
  return { acct, address: w.address as string, send, balance: () => chain.balanceOf(w.address, chain.stablecoin) };
}

test('settled: a direct send signed and recorded', async () => {
  const hd = await holder(3_000_000n);
  const si = await hd.send(chainAdapter().chain, 1_000_000n);
  const t = await signTransaction(si.unsigned_transaction);
  await recordSendSourceTx(systemScope(hd.acct.account_id, true), { id: si.id, tx_hash: t.tx_hash });
  expect(await result(si.id)).toBe('settled');
  expect(await row(si.id)).toMatchObject({ status: 'settled', delivery_tx_hash: t.tx_hash });
  expect(await hd.balance()).toBe(2_000_000n);
});

test('failed source_tx_not_found: a recorded hash never seen on chain; looked for a minute before the hour after its recording, failed at it', async () => {
  const hd = await holder(3_000_000n);
  const si = await hd.send(chainAdapter().chain, 1_000_000n);
  await recordSendSourceTx(systemScope(hd.acct.account_id, true), { id: si.id, tx_hash: `0x${crypto.randomBytes(32).toString('hex')}` });
  const r = await row(si.id);
  // The search deadline (an hour after the recording) as workflow time after the run's start (the object clock: created_at is its origin).
  const deadlineMs = r.source_tx_recorded_at.getTime() + deadline('send_intent_source_tx_search').ms - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('send_intent_source_tx_search').ms)).toBeLessThan(5_000);
  await endsAtDeadline(si.id, deadlineMs, 'failed');
  expect((await row(si.id)).failure_reason).toBe('source_tx_not_found');
});

test('failed bridge_failed: the bridge fails a cross-chain send and returns the funds to the wallet', async () => {
  const hd = await holder(3_000_000n);
  const si = await hd.send('base', 2_000_000n);
  await payInBridgeAdapter().simulate(si.id, 'delayed', null);
  const t = await signTransaction(si.unsigned_transaction);
  await recordSendSourceTx(systemScope(hd.acct.account_id, true), { id: si.id, tx_hash: t.tx_hash });
  await eventually(async () => (await row(si.id)).status === 'bridging_started', 'bridging');
  expect(await hd.balance()).toBe(1_000_000n);
  await payInBridgeAdapter().simulate(si.id, 'failed', null);
  await notifySendIntentBridgeUpdate(si.id);
  expect(await result(si.id)).toBe('failed');
  expect((await row(si.id)).failure_reason).toBe('bridge_failed');
  expect(await hd.balance()).toBe(3_000_000n);
});

test('settled through the bridge after a delay: the poll finds the delivery', async () => {
  const hd = await holder(3_000_000n);
  const si = await hd.send('arbitrum', 2_000_000n);
  await payInBridgeAdapter().simulate(si.id, 'delayed', null);
  const t = await signTransaction(si.unsigned_transaction);
  await recordSendSourceTx(systemScope(hd.acct.account_id, true), { id: si.id, tx_hash: t.tx_hash });
  await eventually(async () => (await row(si.id)).status === 'bridging_started', 'bridging');
  // Released without a notification: the workflow's own poll sees it.
  await db().query(`UPDATE sandbox_bridge_transfers SET sim_state = 'auto' WHERE client_reference = $1`, [si.id]);
  expect(await result(si.id)).toBe('settled');
  const r = await row(si.id);
  const delivered = (
    await db().query('SELECT chain, amount_minor FROM sandbox_chain_transfers WHERE tx_hash = $1', [r.delivery_tx_hash])
  )[0];
  expect(delivered).toEqual({ chain: 'arbitrum', amount_minor: '1850000' });
});

// Last, on purpose: other tests have skipped the test server's clock hours ahead by now; deadlines still hold (domain/object-clock.ts).
test('expired: never signed; still created a minute before the 30 minutes, expired at them; waiting_for names the deadline', async () => {
  const hd = await holder(3_000_000n);
  const si = await hd.send(chainAdapter().chain, 1_000_000n);
  const waiting = await eventually(async () => {
    const w = await env.client.workflow.getHandle(si.id).query(sendIntentContract.queries.waitingFor);
    return w.startsWith('the holder to sign') ? w : null;
  }, 'waiting for the signature');
  expect(waiting).toContain(si.expires_at.toISOString());
  const r = await row(si.id);
  const deadlineMs = r.expires_at.getTime() - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('send_intent_unsigned').ms)).toBeLessThan(5_000);
  await endsAtDeadline(si.id, deadlineMs, 'expired');
  expect((await row(si.id)).status).toBe('expired');
  const types = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [si.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(types).toEqual(['send_intent.created', 'send_intent.expired']);
});

test('replay: every completed send-intent history replays against the current workflow code', async () => {
  expect(completed.size).toBe(5);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'send-intent-replay' },
    histories,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(5);
}, 120_000);
