/**
 * Activity tier, legal (activities/legal/terms.ts; no workflow activities: the terms gate and the
 * acceptance run directly on real PostgreSQL). The gate is switched on for the test's account
 * only (its cohort flag), never globally. Proves the gate's decisions (open while off, 409
 * `terms_acceptance_required` until the owner accepts, `personal` needs the acting person) and
 * the acceptance rules (owner only for the account scope, idempotent).
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { acceptTerms, accountAcceptance, checkTerms, TERMS_SWITCH } from '../../activities/legal/terms';
import { setSwitch } from '../../lib/switches';
import { count, describeWithDb, ownerOf, rejection, useActivityTier } from '../helpers/activity-env';
import { memberSession } from '../helpers/api';
import { db } from '../../lib/db';

describeWithDb('terms acceptance', () => {
  useActivityTier();

  test('with the gate off for the account every caller passes', async () => {
    const creds = await provisionAccount();
    await expect(checkTerms('account', { accountId: creds.account_id })).resolves.toBeUndefined();
  });

  test('gate on: refused (409 terms_acceptance_required) until the owner accepts; the owner accepts once (a repeat returns the same acceptance)', async () => {
    const creds = await provisionAccount();
    await setSwitch(TERMS_SWITCH, true, creds.account_id);
    expect(await rejection(checkTerms('account', { accountId: creds.account_id }))).toMatchObject({ code: 'terms_acceptance_required' });
    const first = await acceptTerms({ accountId: creds.account_id, scope: 'account' });
    const again = await acceptTerms({ accountId: creds.account_id, scope: 'account' });
    expect(again.id).toBe(first.id);
    expect(await count('terms_acceptances', 'account_id = $1', [creds.account_id])).toBe(1);
    expect(await accountAcceptance(creds.account_id)).toMatchObject({ user_id: await ownerOf(creds.account_id), revision: first.revision });
    await expect(checkTerms('account', { accountId: creds.account_id })).resolves.toBeUndefined();
  });

  test('another member cannot accept for the account (409 terms_acceptance_owner_only); the personal gate needs the acting person\'s own acceptance', async () => {
    const creds = await provisionAccount();
    await setSwitch(TERMS_SWITCH, true, creds.account_id);
    await memberSession(creds.account_id, 'admin');
    const [admin] = await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'admin'`, [creds.account_id]);
    expect(await rejection(acceptTerms({ accountId: creds.account_id, userId: admin.user_id, scope: 'account' }))).toMatchObject({ code: 'terms_acceptance_owner_only' });
    expect(await rejection(checkTerms('personal', { accountId: creds.account_id, userId: null }))).toMatchObject({ code: 'terms_acceptance_required' });
    await acceptTerms({ accountId: creds.account_id, userId: admin.user_id, scope: 'personal' });
    await expect(checkTerms('personal', { accountId: creds.account_id, userId: admin.user_id })).resolves.toBeUndefined();
    expect(await rejection(checkTerms('personal', { accountId: creds.account_id, userId: await ownerOf(creds.account_id) }))).toMatchObject({ code: 'terms_acceptance_required' });
  });
});
