/**
 * The off-ramp workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.5, 3, part 6 `offramp_intent.*`; issue 14), every terminal state: `failed`
 * (nothing arrived before the funding deadline), `refunded` (short funds at the deadline, given
 * back): both still `awaiting_funds` a minute before the hour's funding deadline and closed at it,
 * in workflow time; `payment_processed` (paid once), `refunded` after a failed bank payment, `refund_failed`
 * (the refund cannot be sent: sandbox fault), `canceled`; `waiting_for`; and a replay of every
 * completed history.
 */
import { offrampIntentContract } from '../../contracts/offramp-intent';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createExternalAccount } from '../../activities/wallet/commands';
import { cancelOfframpIntent, createOfframpIntent } from '../../activities/offramp-intents/commands';
import { transitTransaction } from '../../activities/offramp-intents/queries';
import { systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { setFault } from '../../providers/sandbox-faults';
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
      'SELECT status, failure_reason, settled_amount_minor, refund_tx_hash, created_at, funding_deadline FROM wallet_offramp_intents WHERE id = $1',
      [id],
    )
  )[0];

/**
 * The funding deadline of intent `id` (funding_deadline less created_at: workflow time after its
 * run's start, the object clock; the spec's hour): still `awaiting_funds` BEFORE_DEADLINE_MS before
 * it, then closed `status` at it.
 */
async function closesAtFundingDeadline(id: string, status: string) {
  const r = await row(id);
  const deadlineMs = r.funding_deadline.getTime() - r.created_at.getTime();
  expect(Math.abs(deadlineMs - deadline('offramp_funding').ms)).toBeLessThan(5_000);
  await skipToRunOffset(env, id, deadlineMs - BEFORE_DEADLINE_MS);
  expect((await row(id)).status).toBe('awaiting_funds');
  // The skip may wake the workflow for a poll whose step runs in real time: wait until it rests again.
  await eventually(
    async () =>
      (await env.client.workflow.getHandle(id).query(offrampIntentContract.queries.waitingFor)).includes(
        `until ${r.funding_deadline.toISOString()}`,
      ),
    'the intent to wait for its funding deadline',
  );
  expect(await result(id)).toBe(status);
  const elapsed = await runElapsedMs(env, id);
  expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
  expect(elapsed).toBeLessThanOrEqual(deadlineMs + TURN_SLACK_MS);
}

/** A holder with 100 USDC and a US bank account ending `account` (suffix 1116 fails on the sandbox rail). */
async function holder(account = '000123456789') {
  const acct = await newAccount();
  const chain = chainAdapter();
  const w = (await db().query('SELECT address FROM wallets WHERE account_id = $1', [acct.account_id]))[0].address as string;
  await chain.inject({
    chain: chain.chain,
    asset: chain.stablecoin,
    to_address: w,
    amount: 100_000_000n,
    decimals: 6,
    from_address: OTHER,
  });
  const ba = await createExternalAccount(systemScope(acct.account_id, true), {
    account_owner_type: 'business',
    account_holder_name: 'Acme Ltd',
    rail: 'ach',
    account_number: account,
    routing_number: '021000021',
  });
  const intent = () =>
    createOfframpIntent(systemScope(acct.account_id, true, req), {
      external_account_id: ba.id,
      terms: {
        destinationCurrency: 'USD',
        destinationRail: 'ach',
        amount: { amount: '10000000', currency: chain.stablecoin, decimals: 6 },
      },
    });
  return { acct, wallet: w, intent, balance: () => chain.balanceOf(w, chain.stablecoin) };
}

test('refunded: a short transit deposit is given back at the funding deadline, not before', async () => {
  const hd = await holder();
  const ofr = await hd.intent();
  const chain = chainAdapter();
  await chain.inject({
    chain: chain.chain,
    asset: chain.stablecoin,
    from_address: hd.wallet,
    to_address: ofr.transit_address,
    amount: 4_000_000n,
    decimals: 6,
  });
  await closesAtFundingDeadline(ofr.id, 'refunded');
  expect(await row(ofr.id)).toMatchObject({ failure_reason: 'funding_expired' });
  expect(await hd.balance()).toBe(100_000_000n);
});

test('payment_processed: the holder signs, the bank is paid once', async () => {
  const hd = await holder();
  const ofr = await hd.intent();
  await signTransaction(transitTransaction(ofr));
  expect(await result(ofr.id)).toBe('payment_processed');
  expect((await row(ofr.id)).settled_amount_minor).toBe('990');
  expect(Number((await db().query('SELECT count(*) FROM sandbox_rail_payments WHERE client_reference = $1', [ofr.id]))[0].count)).toBe(1);
});

test('refunded after the bank payment fails', async () => {
  const hd = await holder('000111111116');
  const ofr = await hd.intent();
  await signTransaction(transitTransaction(ofr));
  expect(await result(ofr.id)).toBe('refunded');
  expect(await row(ofr.id)).toMatchObject({ failure_reason: 'payment_failed' });
  expect(await hd.balance()).toBe(100_000_000n);
});

test('refund_failed: the refund cannot be sent', async () => {
  const hd = await holder('000111111116');
  await setFault(hd.acct.account_id, 'offramp.refund_fails', 'true');
  const ofr = await hd.intent();
  await signTransaction(transitTransaction(ofr));
  expect(await result(ofr.id)).toBe('refund_failed');
  expect((await row(ofr.id)).refund_tx_hash).toBeNull();
  expect(await hd.balance()).toBe(90_000_000n);
});

test('canceled while awaiting funds', async () => {
  const hd = await holder();
  const ofr = await hd.intent();
  await cancelOfframpIntent(systemScope(hd.acct.account_id, true, req), { id: ofr.id });
  expect(await result(ofr.id)).toBe('canceled');
});

// Last, on purpose: the test server's clock is hours ahead by now; the funding deadline still holds (domain/object-clock.ts).
test('failed: nothing arrives; awaiting a minute before the funding deadline, failed at it; waiting_for names the transit deposit', async () => {
  const hd = await holder();
  const ofr = await hd.intent();
  const w = await eventually(async () => {
    const s = await env.client.workflow.getHandle(ofr.id).query(offrampIntentContract.queries.waitingFor);
    return s.startsWith('the transit deposit') ? s : null;
  }, 'waiting for the deposit');
  expect(w).toContain(ofr.transit_address);
  await closesAtFundingDeadline(ofr.id, 'failed');
  expect((await row(ofr.id)).failure_reason).toBe('funding_expired');
});

test('replay: every completed off-ramp history replays against the current workflow code', async () => {
  expect(completed.size).toBe(6);
  const histories = await Promise.all(
    [...completed].map(async (workflowId) => ({ workflowId, history: await env.client.workflow.getHandle(workflowId).fetchHistory() })),
  );
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'offramp-replay' },
    histories,
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(6);
}, 120_000);
