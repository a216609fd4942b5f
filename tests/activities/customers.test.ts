/**
 * Activity tier, customers (activities/customers, `customerWorkflowActivities.syncCustomerVerification`):
 * the customer workflow's one step, run in MockActivityEnvironment on real PostgreSQL with the
 * sandbox KYC provider. Proves what it applies from the provider's record (state through the
 * verification table, `verified_at`, requirements, rejection outcome) with exactly its
 * `customer.*` events, that a repeated step writes nothing, and that the table refuses a move it
 * forbids (non-retryable IllegalTransition, nothing written).
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { customerWorkflowActivities } from '../../activities/customers/activities';
import { createCustomer } from '../../activities/customers/commands';
import { db } from '../../lib/db';
import { kycProvider } from '../../providers/kyc';
import { KYC_REJECTION_OUTCOMES } from '../../providers/sandbox-values';
import { scopeOf } from '../../activities/scope';
import { describeWithDb, eventTypes, keyCaller, rejection, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';

/** The step as the worker registers it. */
const { syncCustomerVerification } = customerWorkflowActivities;

/** A business customer of a fresh account (`not_started` at the provider and here). */
async function customer() {
  const creds = await provisionAccount();
  const [owner] = await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [creds.account_id]);
  const owns = scopeOf({ ...keyCaller(creds.account_id), kind: 'dashboard_session', userId: owner.user_id, role: 'owner' }, testRequest);
  const c = await createCustomer(owns, { customer_type: 'business', country: 'US', legal_name: 'Acme Ltd' });
  return c.id;
}

describeWithDb('customer activities', () => {
  useActivityTier();

  test('nothing decided at the provider: the step changes nothing and writes no event', async () => {
    const id = await customer();
    expect(await runActivity(syncCustomerVerification, id)).toBe('not_started');
    expect(await eventTypes(id)).toEqual([]);
  });

  test('the provider approves: approved, verified_at, endorsements, one verification_state_changed; a repeated step writes nothing', async () => {
    const id = await customer();
    await kycProvider().setDecision(id, { state: 'approved', requirements_due: [], endorsements: ['base'] });
    expect(await runActivity(syncCustomerVerification, id)).toBe('approved');
    const c = await row('customers', id);
    expect(c).toMatchObject({ verification_state: 'approved', endorsements: ['base'], rejection_outcome: null });
    expect(c.verified_at).toBeInstanceOf(Date);
    const types = await eventTypes(id);
    expect(types.filter((t) => t === 'customer.verification_state_changed')).toHaveLength(1);
    expect(await runActivity(syncCustomerVerification, id)).toBe('approved');
    expect(await eventTypes(id)).toEqual(types);
  });

  test('the provider rejects: rejected with its outcome, customer.rejected after the state change', async () => {
    const id = await customer();
    await kycProvider().setDecision(id, { state: 'rejected', rejection_outcome: KYC_REJECTION_OUTCOMES[0] });
    expect(await runActivity(syncCustomerVerification, id)).toBe('rejected');
    expect((await row('customers', id)).rejection_outcome).toBe(KYC_REJECTION_OUTCOMES[0]);
    const types = await eventTypes(id);
    expect(types.indexOf('customer.rejected')).toBe(types.indexOf('customer.verification_state_changed') + 1);
  });

  test('a provider state the verification table forbids (approved -> pending) is refused: IllegalTransition, nothing written', async () => {
    const id = await customer();
    await kycProvider().setDecision(id, { state: 'approved', requirements_due: [] });
    await runActivity(syncCustomerVerification, id);
    const before = await eventTypes(id);
    await kycProvider().setDecision(id, { state: 'pending', requirements_due: ['proof_of_address'] });
    const e = await rejection(runActivity(syncCustomerVerification, id));
    expect(e.name).toBe('IllegalTransition');
    expect(await row('customers', id)).toMatchObject({ verification_state: 'approved', requirements_due: [] });
    expect(await eventTypes(id)).toEqual(before);
  });

  test('the customer is gone: non-retryable NotFound', async () => {
    expect(await rejection(runActivity(syncCustomerVerification, 'cus_missing'))).toMatchObject({ type: 'NotFound', nonRetryable: true });
  });
});
