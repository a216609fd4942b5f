/**
 * Activity tier, account setup (activities/account-setup/queries.ts; no workflow activities: its
 * readiness and setup-guide reads run directly on real PostgreSQL). Proves what each check reads:
 * a fresh account's required checks, the support contact, the terms check becoming required when
 * the gate is on for the account and complete once the owner accepts, and the setup guide's steps.
 */
import { provisionAccount, updateAccount } from '../../activities/accounts/commands';
import { loadReadiness, loadSetupGuide } from '../../activities/account-setup/queries';
import { acceptTerms, TERMS_SWITCH } from '../../activities/legal/terms';
import { Account } from '../../entities';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { systemScope } from '../../activities/scope';
import { describeWithDb, keyCaller, useActivityTier } from '../helpers/activity-env';

const account = (id: string) => db().getRepository(Account).findOneByOrFail({ id });
const check = (r: { checks: Array<{ code: string }> }, code: string) => r.checks.find((c) => c.code === code);

describeWithDb('account setup reads', () => {
  useActivityTier();

  test('a fresh account: active with its service wallet (required checks complete); no support contact or webhook endpoint yet; terms not required', async () => {
    const creds = await provisionAccount();
    const r = await loadReadiness(keyCaller(creds.account_id), { account: await account(creds.account_id) });
    expect(check(r, 'account_active')).toMatchObject({ required: true, status: 'complete' });
    expect(check(r, 'service_wallet')).toMatchObject({ required: true, status: 'complete' });
    expect(check(r, 'support_contact')).toMatchObject({ required: false, status: 'action_required' });
    expect(check(r, 'webhook_endpoint')).toMatchObject({ status: 'action_required' });
    expect(check(r, 'terms_accepted')).toMatchObject({ required: false });
    expect(r.ready).toBe(true);

    await updateAccount(systemScope(creds.account_id, true), { support_contact: { email: 'help@merchant.example' } });
    expect(
      check(await loadReadiness(keyCaller(creds.account_id), { account: await account(creds.account_id) }), 'support_contact'),
    ).toMatchObject({ status: 'complete' });
  });

  test('the terms gate on for the account: terms_accepted required and not ready until the owner accepts', async () => {
    const creds = await provisionAccount();
    await setSwitch(TERMS_SWITCH, true, creds.account_id);
    const before = await loadReadiness(keyCaller(creds.account_id), { account: await account(creds.account_id) });
    expect(check(before, 'terms_accepted')).toMatchObject({ required: true, status: 'action_required' });
    expect(before.ready).toBe(false);
    await acceptTerms(systemScope(creds.account_id, true), { terms: 'account' });
    const after = await loadReadiness(keyCaller(creds.account_id), { account: await account(creds.account_id) });
    expect(check(after, 'terms_accepted')).toMatchObject({ required: true, status: 'complete' });
    expect(after.ready).toBe(true);
  });

  test('setup guide: the API key step is complete from provisioning, the payment link steps come next', async () => {
    const creds = await provisionAccount();
    const g = await loadSetupGuide(keyCaller(creds.account_id), { account: await account(creds.account_id) });
    expect(g.steps[0]).toMatchObject({ key: 'create_api_key', completed: true });
    expect(g.steps.find((s) => s.key === 'create_payment_link')).toMatchObject({ completed: false, completed_at: null });
    expect(g.nextStep).toBe('create_payment_link');
    expect(g.completedCount).toBe(1);
  });
});
