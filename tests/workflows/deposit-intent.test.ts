/**
 * The deposit intent workflow under the time-skipping test server with real activities on real
 * PostgreSQL (spec 2.5, 4.5, 6; issue 14): every terminal status: `settled` (USDC seen on base,
 * bridged into the wallet), `failed` (the bridge fails, funds returned to the sender),
 * `manual_recovery_required` (failed with no address to return to), `expired` (nothing came
 * within the hour: still awaiting a minute before, expired at the hour of workflow time); the
 * `waiting_for` query; the events of each; a replay of every history.
 */
import { depositIntentContract } from '../../contracts/deposit-intent';
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDepositIntent } from '../../activities/deposit-intents/commands';
import { signalDepositIntent } from '../../activities/deposit-intents/signals';
import { systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { eventually, newAccount } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { BEFORE_DEADLINE_MS, runElapsedMs, skipToRunOffset, TURN_SLACK_MS } from '../helpers/time-skipping';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
let accountId: string;

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
  accountId = (await newAccount()).account_id;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const SENDER = '0x52908400098527886E0F7030069857D2E4169EE7';
const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);
const row = async (id: string) => (await db().query('SELECT * FROM wallet_deposit_intents WHERE id = $1', [id]))[0];
const open = (body: { source_chain: string; refund_address?: string }) => createDepositIntent(systemScope(accountId, true), body);
const pay = (chain: string, to: string, amount: bigint, from: string | null = SENDER) =>
  chainAdapter().inject({ chain, asset: 'USDC', to_address: to, amount, decimals: 6, from_address: from, tx_hash: hash() });
const completed = new Set<string>();
const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};

test('settled: the source transfer on base is seen, bridged less the fee and lands in the wallet', async () => {
  const d = await open({ source_chain: 'base' });
  await eventually(
    async () => (await env.client.workflow.getHandle(d.id).query(depositIntentContract.queries.waitingFor)).startsWith('USDC on base'),
    'waiting for funds',
  );
  await pay('base', d.deposit_address, 5_000_000n);
  await signalDepositIntent(d.id, accountId);
  expect(await result(d.id)).toBe('settled');
  const r = await row(d.id);
  expect(r).toMatchObject({ status: 'settled', received_minor: '5000000', delivered_minor: '4900000', source_from_address: SENDER });
  const landed = await db().query('SELECT amount_minor, to_address FROM sandbox_chain_transfers WHERE tx_hash = $1', [r.delivery_tx_hash]);
  expect(landed).toEqual([{ amount_minor: '4900000', to_address: r.destination_address }]);
  expect(await types(d.id)).toEqual([
    'deposit_intent.created',
    'deposit_intent.source_detected',
    'deposit_intent.bridging_started',
    'deposit_intent.settled',
  ]);
});

test('failed: the bridge fails after the funds arrived (found by the poll); they go back to the sender', async () => {
  const d = await open({ source_chain: 'arbitrum' });
  await payInBridgeAdapter().simulate(d.id, 'failed', null);
  await pay('arbitrum', d.deposit_address, 2_000_000n);
  expect(await result(d.id)).toBe('failed');
  const r = await row(d.id);
  expect(r).toMatchObject({ failure_reason: 'bridge_failed' });
  const back = await db().query('SELECT amount_minor, to_address FROM sandbox_chain_transfers WHERE tx_hash = $1', [r.recovery_tx_hash]);
  expect(back).toEqual([{ amount_minor: '2000000', to_address: SENDER }]);
  expect(await types(d.id)).toEqual([
    'deposit_intent.created',
    'deposit_intent.source_detected',
    'deposit_intent.recovery_started',
    'deposit_intent.failed',
  ]);
});

test('manual_recovery_required: the bridge fails and there is no address to return the funds to', async () => {
  const d = await open({ source_chain: 'optimism' });
  await payInBridgeAdapter().simulate(d.id, 'failed', null);
  await pay('optimism', d.deposit_address, 1_000_000n, null);
  expect(await result(d.id)).toBe('manual_recovery_required');
  expect(await row(d.id)).toMatchObject({ failure_reason: 'no_refund_address', recovery_tx_hash: null });
  expect(await types(d.id)).toEqual([
    'deposit_intent.created',
    'deposit_intent.source_detected',
    'deposit_intent.manual_recovery_required',
  ]);
});

test('expired: nothing reaches the address within the hour; awaiting a minute before, expired at the hour of workflow time', async () => {
  const d = await open({ source_chain: 'polygon' });
  const r = await row(d.id);
  // The deadline as workflow time after the run's start: expires_at less created_at (the workflow's object clock), the spec's hour.
  const deadlineMs = r.expires_at.getTime() - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('deposit_intent_window').ms)).toBeLessThan(5_000);
  await skipToRunOffset(env, d.id, deadlineMs - BEFORE_DEADLINE_MS);
  expect((await row(d.id)).status).toBe('awaiting_funds');
  // The skip may wake the workflow for a poll whose step runs in real time: wait until it rests again.
  await eventually(
    async () =>
      (await env.client.workflow.getHandle(d.id).query(depositIntentContract.queries.waitingFor)).includes(
        `until ${r.expires_at.toISOString()}`,
      ),
    'the intent to wait for its deadline',
  );
  expect(await result(d.id)).toBe('expired');
  const elapsed = await runElapsedMs(env, d.id);
  expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
  expect(elapsed).toBeLessThanOrEqual(deadlineMs + TURN_SLACK_MS);
  expect(await types(d.id)).toEqual(['deposit_intent.created', 'deposit_intent.expired']);
});

test('replay: every completed history replays against the current workflow code without nondeterminism', async () => {
  expect(completed.size).toBe(4);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'deposit-intent-replay' },
    histories,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(4);
}, 120_000);
