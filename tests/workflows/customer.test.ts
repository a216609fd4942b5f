/**
 * The customer workflow under the Java time-skipping test server with real activities on real
 * PostgreSQL (spec 2.8, 4.7; issue 15): a link makes the provider's record `pending`; the daily
 * re-read picks up a decision made without a notification; `approved` and `rejected` end the
 * workflow and a later decision starts it again; `waiting_for`; replay.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createCustomer, createVerificationLink } from '../../activities/customers/commands';
import { notifyCustomerDecision } from '../../activities/customers/signals';
import { db } from '../../lib/db';
import { kycProvider } from '../../providers/kyc';
import { customerWaitingForQuery } from '../../workflows/customer';
import { eventually, newAccount } from '../helpers/api';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => { await h?.stop(); });

const state = async (id: string) => (await db().query('SELECT verification_state FROM customers WHERE id = $1', [id]))[0].verification_state as string;

test('pending after a link; a silent decision found by the daily re-read; approved ends it; a later rejection starts it again; replay', async () => {
  const acct = await newAccount();
  const owner = (await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [acct.account_id]))[0].user_id;
  const c = await createCustomer({ accountId: acct.account_id, userId: owner, livemode: true, customerType: 'individual' });
  await createVerificationLink(acct.account_id, true, c.id, 'tos');
  await eventually(async () => (await state(c.id)) === 'pending', 'pending');
  expect(await env.client.workflow.getHandle(c.id).query(customerWaitingForQuery)).toContain('re-read daily');
  // The provider approves without telling us: the daily re-read finds it.
  await kycProvider().setDecision(c.id, { state: 'approved', endorsements: ['base'] });
  const first = await env.client.workflow.getHandle(c.id).result();
  expect(first).toBe('approved');
  expect(await state(c.id)).toBe('approved');
  const history1 = await env.client.workflow.getHandle(c.id).fetchHistory();

  await kycProvider().setDecision(c.id, { state: 'rejected', rejection_outcome: 'final' });
  await notifyCustomerDecision(c.id);
  expect(await env.client.workflow.getHandle(c.id).result()).toBe('rejected');
  const events = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [c.id])).map((r: { type: string }) => r.type);
  expect(events).toEqual(['customer.verification_state_changed', 'customer.verification_state_changed', 'customer.verification_state_changed', 'customer.rejected']);
  let n = 0;
  for await (const r of Worker.runReplayHistories({ workflowsPath: require.resolve('../../workflows'), replayName: 'customer-replay' }, [{ workflowId: c.id, history: history1 }])) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(1);
}, 120_000);
