/**
 * Activity tier, legal (activities/legal/terms.ts; no workflow activities: the terms gate and the
 * acceptance run directly on real PostgreSQL). The gate is switched on for the test's account
 * only (its cohort flag), never globally. Proves the gate's decisions (open while off, 409
 * `terms_acceptance_required` until the owner accepts, `personal` needs the acting person) and
 * the acceptance rules (owner only for the account scope, idempotent).
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { acceptTerms, accountAcceptance, checkTerms, TERMS_SWITCH } from '../../activities/legal/terms';
import { scopeOf, systemScope } from '../../activities/scope';
import { setSwitch } from '../../lib/switches';
import { count, describeWithDb, keyCaller, ownerOf, rejection, useActivityTier } from '../helpers/activity-env';
import { memberSession } from '../helpers/api';
import { db } from '../../lib/db';

/** The scope of `userId` acting in `accountId` through a dashboard session (no user: a system scope). */
const actingAs = (accountId: string, userId: string | null = null) =>
  userId ? scopeOf({ ...keyCaller(accountId), kind: 'dashboard_session', userId }, null) : systemScope(accountId, true);

describeWithDb('terms acceptance', () => {
  useActivityTier();

  test('with the gate off for the account every caller passes', async () => {
    const creds = await provisionAccount();
    await expect(checkTerms(actingAs(creds.account_id), { terms: 'account' })).resolves.toBeUndefined();
  });

  test('gate on: refused (409 terms_acceptance_required) until the owner accepts; the owner accepts once (a repeat returns the same acceptance)', async () => {
    const creds = await provisionAccount();
    await setSwitch(TERMS_SWITCH, true, creds.account_id);
    expect(await rejection(checkTerms(actingAs(creds.account_id), { terms: 'account' }))).toMatchObject({
      code: 'terms_acceptance_required',
    });
    const first = await acceptTerms(systemScope(creds.account_id, true), { terms: 'account' });
    const again = await acceptTerms(systemScope(creds.account_id, true), { terms: 'account' });
    expect(again.id).toBe(first.id);
    expect(await count('terms_acceptances', 'account_id = $1', [creds.account_id])).toBe(1);
    expect(await accountAcceptance(creds.account_id)).toMatchObject({ user_id: await ownerOf(creds.account_id), revision: first.revision });
    await expect(checkTerms(actingAs(creds.account_id), { terms: 'account' })).resolves.toBeUndefined();
  });

  test("another member cannot accept for the account (409 terms_acceptance_owner_only); the personal gate needs the acting person's own acceptance", async () => {
    const creds = await provisionAccount();
    await setSwitch(TERMS_SWITCH, true, creds.account_id);
    await memberSession(creds.account_id, 'admin');
    const [admin] = await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'admin'`, [creds.account_id]);
    expect(await rejection(acceptTerms(systemScope(creds.account_id, true), { terms: 'account', user_id: admin.user_id }))).toMatchObject({
      code: 'terms_acceptance_owner_only',
    });
    expect(await rejection(checkTerms(actingAs(creds.account_id, null), { terms: 'personal' }))).toMatchObject({
      code: 'terms_acceptance_required',
    });
    await acceptTerms(systemScope(creds.account_id, true), { terms: 'personal', user_id: admin.user_id });
    await expect(checkTerms(actingAs(creds.account_id, admin.user_id), { terms: 'personal' })).resolves.toBeUndefined();
    expect(await rejection(checkTerms(actingAs(creds.account_id, await ownerOf(creds.account_id)), { terms: 'personal' }))).toMatchObject({
      code: 'terms_acceptance_required',
    });
  });
});
