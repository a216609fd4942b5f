/**
 * Activity tier, accounts (activities/accounts/commands.ts; no workflow activities: the area's
 * key commands run directly on real PostgreSQL). Proves provisioning (owner membership, live and
 * test keys, one service wallet, idempotently ensured), key roll and revoke (the old key revoked
 * at once, a revoked key never rolled, revoke idempotent and scoped to the account) and the
 * waitlist upsert.
 */
import { joinWaitlist, provisionAccount, revokeKey, rollKey, ensureServiceWallet } from '../../activities/accounts/commands';
import { scopeOf, systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { count, describeWithDb, keyCaller, ownerOf, rejection, useActivityTier } from '../helpers/activity-env';

const keysOf = (
  accountId: string,
): Promise<
  Array<{ id: string; livemode: boolean; status: string; scopes: string[]; rolled_from_key_id: string | null; revoked_at: Date | null }>
> =>
  db().query(
    'SELECT id, livemode, status, scopes, rolled_from_key_id, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );

describeWithDb('account commands', () => {
  useActivityTier();

  test('provisionAccount: an owner, one live and one test key, one active service wallet; ensureServiceWallet again adds none', async () => {
    const creds = await provisionAccount();
    expect(creds.live_key).toMatch(/^sk_live_/);
    expect(creds.test_key).toMatch(/^sk_test_/);
    expect(await ownerOf(creds.account_id)).toMatch(/^usr_/);
    expect((await keysOf(creds.account_id)).map((k) => [k.livemode, k.status])).toEqual(
      expect.arrayContaining([
        [true, 'active'],
        [false, 'active'],
      ]),
    );
    expect(await count('wallets', `account_id = $1 AND status = 'active'`, [creds.account_id])).toBe(1);
    expect(await ensureServiceWallet(creds.account_id)).toBe(false);
    expect(await count('wallets', 'account_id = $1', [creds.account_id])).toBe(1);
  });

  test('rollKey: the old key is revoked at once and the new one keeps its scopes with rolled_from; a revoked key cannot be rolled (409 api_key_revoked)', async () => {
    const creds = await provisionAccount();
    const [live] = (await keysOf(creds.account_id)).filter((k) => k.livemode);
    const rolled = await rollKey(systemScope(creds.account_id, true), { id: live.id });
    expect(rolled.secret).toMatch(/^sk_live_/);
    const keys = await keysOf(creds.account_id);
    expect(keys.find((k) => k.id === live.id)).toMatchObject({ status: 'revoked', revoked_at: expect.any(Date) });
    expect(keys.find((k) => k.id === rolled.key.id)).toMatchObject({ status: 'active', scopes: live.scopes, rolled_from_key_id: live.id });
    expect(await rejection(rollKey(systemScope(creds.account_id, true), { id: live.id }))).toMatchObject({
      type: 'conflict',
      code: 'api_key_revoked',
    });
  });

  test("revokeKey is idempotent (the first revoked_at is kept) and another account's key is 404", async () => {
    const a = await provisionAccount();
    const b = await provisionAccount();
    const [k] = await keysOf(a.account_id);
    const first = await revokeKey(systemScope(a.account_id, true), { id: k.id });
    const again = await revokeKey(systemScope(a.account_id, true), { id: k.id });
    expect(again.revoked_at).toEqual(first.revoked_at);
    expect(await rejection(revokeKey(systemScope(b.account_id, true), { id: k.id }))).toMatchObject({ type: 'not_found' });
  });

  test('joinWaitlist: one row per account and list; a repeat updates the contact and keeps the use case unless given', async () => {
    const creds = await provisionAccount();
    const user = scopeOf({ ...keyCaller(creds.account_id), kind: 'dashboard_session', userId: 'usr_x' }, null);
    await joinWaitlist(user, { waitlist: 'cards', email: 'a@example.com', use_case: 'payroll cards' });
    const again = await joinWaitlist(user, { waitlist: 'cards', email: 'b@example.com', use_case: undefined });
    expect(again).toMatchObject({ email: 'b@example.com', use_case: 'payroll cards' });
    expect(await count('waitlist_entries', 'account_id = $1', [creds.account_id])).toBe(1);
  });
});
