/**
 * The customer workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.8, 4.7; issue 15): a link makes the provider's record `pending`; the daily
 * re-read picks up a decision made without a notification (still `pending` a minute before the
 * day of workflow time is up, `approved` at it); `approved` and `rejected` end the workflow and a
 * later decision starts it again; `waiting_for`; replay.
 */
import { customerContract } from '../../contracts/customer';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createCustomer, createVerificationLink } from '../../activities/customers/commands';
import { notifyCustomerDecision } from '../../activities/customers/signals';
import { scopeOf } from '../../activities/scope';
import { db } from '../../lib/db';
import { kycProvider } from '../../providers/kyc';
import { eventually, newAccount } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';
import { BEFORE_DEADLINE_MS, runElapsedMs, skipToRunOffset } from '../helpers/time-skipping';
import { deadline } from '../fixtures/deadlines';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const state = async (id: string) =>
  (await db().query('SELECT verification_state FROM customers WHERE id = $1', [id]))[0].verification_state as string;

test('pending after a link; a silent decision found by the daily re-read; approved ends it; a later rejection starts it again; replay', async () => {
  const acct = await newAccount();
  const owner = (await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [acct.account_id]))[0]
    .user_id;
  const owns = scopeOf(
    {
      kind: 'dashboard_session',
      accountId: acct.account_id,
      livemode: true,
      keyId: null,
      userId: owner,
      role: 'owner',
      scopes: ['*'],
      defaultVersion: null,
    },
    null,
  );
  const c = await createCustomer(owns, { customer_type: 'individual' });
  await createVerificationLink(owns, { id: c.id, kind: 'tos' });
  await eventually(async () => (await state(c.id)) === 'pending', 'pending');
  // The row is `pending` once the activity commits; waiting_for follows when the workflow's next task runs.
  await eventually(
    async () => (await env.client.workflow.getHandle(c.id).query(customerContract.queries.waitingFor)).includes('re-read daily'),
    'waiting_for the daily re-read',
  );
  // The provider approves without telling us: the daily re-read finds it, a day of workflow time after the run's read of `pending`, not before.
  await kycProvider().setDecision(c.id, { state: 'approved', endorsements: ['base'] });
  await skipToRunOffset(env, c.id, deadline('customer_recheck').ms - BEFORE_DEADLINE_MS);
  expect(await state(c.id)).toBe('pending');
  expect((await env.client.workflow.getHandle(c.id).describe()).status.name).toBe('RUNNING');
  const first = await env.client.workflow.getHandle(c.id).result();
  expect(first).toBe('approved');
  expect(await state(c.id)).toBe('approved');
  const elapsed = await runElapsedMs(env, c.id);
  expect(elapsed).toBeGreaterThanOrEqual(deadline('customer_recheck').ms);
  expect(elapsed).toBeLessThanOrEqual(deadline('customer_recheck').ms + deadline('customer_recheck').slackMs);
  const history1 = await env.client.workflow.getHandle(c.id).fetchHistory();

  await kycProvider().setDecision(c.id, { state: 'rejected', rejection_outcome: 'final' });
  await notifyCustomerDecision(c.id);
  expect(await env.client.workflow.getHandle(c.id).result()).toBe('rejected');
  const events = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [c.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(events).toEqual([
    'customer.verification_state_changed',
    'customer.verification_state_changed',
    'customer.verification_state_changed',
    'customer.rejected',
  ]);
  let n = 0;
  for await (const r of Worker.runReplayHistories({ workflowsPath: require.resolve('../../workflows'), replayName: 'customer-replay' }, [
    { workflowId: c.id, history: history1 },
  ])) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(1);
}, 120_000);
