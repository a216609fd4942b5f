/**
 * The conversion workflow under the time-skipping test server with real activities on real
 * PostgreSQL (spec 2.5, 4.5, 6; issue 14): every terminal status: `settled` (the signed transfer
 * matches; the router pays the other asset to the wallet once), `failed` `source_tx_mismatch`
 * (another amount), `failed` `expired` (never submitted: built a minute before `signable_until`,
 * failed at it, 15 minutes of workflow time), `failed` `source_tx_not_found` (the hash never
 * appears on the chain: submitted a minute before the 30-minute confirmation deadline, failed at
 * it); the `waiting_for` query; the events of each; a replay of every history. The holder's
 * signature is played by a chain transfer from the wallet.
 */
import { conversionContract } from '../../contracts/conversion';
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createConversion, submitConversionSourceTx } from '../../activities/conversions/commands';
import { walletConversionPairs } from '../../activities/conversions/queries';
import { activeWallet } from '../../activities/records/wallets';
import { systemScope } from '../../activities/scope';
import type { Wallet } from '../../entities';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { eventually, newAccount } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { BEFORE_DEADLINE_MS, runElapsedMs, skipToRunOffset, TURN_SLACK_MS } from '../helpers/time-skipping';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
let accountId: string;
let wallet: Wallet;

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
  accountId = (await newAccount()).account_id;
  wallet = await activeWallet(systemScope(accountId, true));
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);
const row = async (id: string) => (await db().query('SELECT * FROM wallet_conversions WHERE id = $1', [id]))[0];
const completed = new Set<string>();
const result = async (id: string) => {
  const r = await env.client.workflow.getHandle(id).result();
  completed.add(id);
  return r;
};
const build = async (amount: string) => {
  const chain = chainAdapter();
  const pair = walletConversionPairs().find((p) => p.from === chain.stablecoin)!;
  return createConversion(systemScope(accountId, true), {
    from_asset: pair.from,
    to_asset: pair.to,
    amount: { amount, currency: pair.from, decimals: 6 },
  });
};
const sign = async (c: { unsigned_tx: Record<string, unknown>; from_asset: string }, amount: bigint) =>
  (
    await chainAdapter().inject({
      chain: chainAdapter().chain,
      asset: c.from_asset,
      from_address: wallet.address,
      to_address: c.unsigned_tx.to as string,
      amount,
      decimals: 6,
      tx_hash: hash(),
    })
  ).tx_hash;

test('settled: the signed transaction matches; the router pays the other asset to the wallet once', async () => {
  const c = await build('4000000');
  await eventually(
    async () =>
      (await env.client.workflow.getHandle(c.id).query(conversionContract.queries.waitingFor)).startsWith(
        "the holder's signed transaction hash",
      ),
    'waiting for the hash',
  );
  const tx = await sign(c, 4_000_000n);
  await submitConversionSourceTx(systemScope(accountId, true), { id: c.id, tx_hash: tx });
  expect(await result(c.id)).toBe('settled');
  const r = await row(c.id);
  const paid = await db().query('SELECT asset, amount_minor, to_address FROM sandbox_chain_transfers WHERE idempotency_key = $1', [
    `conversion:${c.id}`,
  ]);
  expect(paid).toEqual([{ asset: c.to_asset, amount_minor: '3998000', to_address: wallet.address }]);
  expect(r.settlement_tx_hash).toBeTruthy();
  expect(await types(c.id)).toEqual(['conversion.built', 'conversion.submitted', 'conversion.settled']);
});

test('failed source_tx_mismatch: the signed transfer is for another amount', async () => {
  const c = await build('4000000');
  const tx = await sign(c, 3_000_000n);
  await submitConversionSourceTx(systemScope(accountId, true), { id: c.id, tx_hash: tx });
  expect(await result(c.id)).toBe('failed');
  expect(await row(c.id)).toMatchObject({ failure_reason: 'source_tx_mismatch', settlement_tx_hash: null });
  expect(await types(c.id)).toEqual(['conversion.built', 'conversion.submitted', 'conversion.failed']);
});

/** Checks conversion `id` still `status` at BEFORE_DEADLINE_MS before `deadline` (workflow time after its run's start), then that it ends `failed` at the deadline. */
async function failsAtDeadline(id: string, status: string, deadlineMs: number) {
  await skipToRunOffset(env, id, deadlineMs - BEFORE_DEADLINE_MS);
  expect((await row(id)).status).toBe(status);
  expect(await result(id)).toBe('failed');
  const elapsed = await runElapsedMs(env, id);
  expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
  expect(elapsed).toBeLessThanOrEqual(deadlineMs + TURN_SLACK_MS);
}

test('failed expired: never submitted; built a minute before signable_until (15 minutes), failed at it', async () => {
  const c = await build('1000000');
  const r = await row(c.id);
  // The deadline as workflow time after the run's start: signable_until less created_at (the workflow's object clock).
  const deadlineMs = r.signable_until.getTime() - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('conversion_signable').ms)).toBeLessThan(5_000);
  await eventually(
    async () =>
      (await env.client.workflow.getHandle(c.id).query(conversionContract.queries.waitingFor)).endsWith(
        `until ${r.signable_until.toISOString()}`,
      ),
    'waiting for the hash until signable_until',
  );
  await failsAtDeadline(c.id, 'built', deadlineMs);
  expect(await row(c.id)).toMatchObject({ failure_reason: 'expired' });
  expect(await types(c.id)).toEqual(['conversion.built', 'conversion.failed']);
});

test('failed source_tx_not_found: the recorded hash never appears on the chain; submitted a minute before the 30-minute confirmation deadline, failed at it', async () => {
  const c = await build('1000000');
  await submitConversionSourceTx(systemScope(accountId, true), { id: c.id, tx_hash: hash() });
  const r = await row(c.id);
  // Confirmation deadline: submitted_at + 30 minutes, as workflow time after the run's start.
  const deadlineMs = r.submitted_at.getTime() + deadline('conversion_confirmation').ms - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('conversion_confirmation').ms)).toBeLessThan(5_000);
  await failsAtDeadline(c.id, 'submitted', deadlineMs);
  expect(await row(c.id)).toMatchObject({ failure_reason: 'source_tx_not_found' });
  expect(await types(c.id)).toEqual(['conversion.built', 'conversion.submitted', 'conversion.failed']);
});

test('replay: every completed history replays against the current workflow code without nondeterminism', async () => {
  expect(completed.size).toBe(4);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'conversion-replay' },
    histories,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(4);
}, 120_000);
