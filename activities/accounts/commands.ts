/**
 * Accounts, members, dashboard sessions and API keys (spec 2.2, 4.10, 5). Each function is one
 * transaction. Secrets are returned once and stored only as SHA-256 hashes.
 */
import crypto from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { Account, ApiKey, WaitlistEntry } from '../../entities';
import { COUNTRIES } from '../../domain/countries';
import { ALL_SCOPES } from '../../domain/scopes';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { accountWide } from '../../lib/scoped';
import { randomToken, sha256Hex } from '../../lib/secrets';
import { SESSION_PREFIX } from '../../domain/caller';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { revokeApiKey } from '../records/api-keys';
import type { Scope } from '../scope';

export interface DevCredentials {
  account_id: string;
  live_key: string;
  test_key: string;
  session_token: string;
}

/** Mints a key secret `sk_<mode>_<48 base62>`. */
export function mintKeySecret(livemode: boolean): string {
  return randomToken(livemode ? 'sk_live_' : 'sk_test_', 48);
}

/** Inserts an API key row; returns the row and the one-time secret. */
export async function insertApiKey(
  manager: EntityManager,
  input: {
    accountId: string;
    livemode: boolean;
    scopes: string[];
    name?: string | null;
    ipAllowlist?: string[];
    expiresAt?: Date | null;
    defaultVersion?: string | null;
    userId?: string | null;
    rolledFrom?: string | null;
  },
): Promise<{ key: ApiKey; secret: string }> {
  const secret = mintKeySecret(input.livemode);
  const key = manager.create(ApiKey, {
    id: newId('key_'),
    account_id: input.accountId,
    livemode: input.livemode,
    name: input.name ?? null,
    secret_hash: sha256Hex(secret),
    secret_last4: secret.slice(-4),
    scopes: input.scopes,
    ip_allowlist: input.ipAllowlist ?? [],
    status: 'active',
    expires_at: input.expiresAt ?? null,
    default_version: input.defaultVersion ?? null,
    created_by_user_id: input.userId ?? null,
    rolled_from_key_id: input.rolledFrom ?? null,
  });
  await manager.save(key);
  return { key, secret };
}

/** Creates a dashboard session for `userId` valid `ttlSeconds` (default 30 days); returns the token. */
export async function createSession(manager: EntityManager, userId: string, ttlSeconds = 30 * 86400): Promise<string> {
  const token = randomToken(SESSION_PREFIX, 48);
  await manager.query(
    'INSERT INTO dashboard_sessions(id, user_id, token_hash, expires_at) VALUES ($1,$2,$3, now() + make_interval(secs => $4))',
    [newId('sess_'), userId, sha256Hex(token), ttlSeconds],
  );
  return token;
}

/** Creates an account row owned by `userId` with an owner membership; returns its id. */
export async function insertAccount(
  manager: EntityManager,
  input: { userId: string; email: string; displayName: string; country?: string | null },
): Promise<string> {
  const id = newId('acct_');
  await manager.query(
    `INSERT INTO accounts(id, livemode, display_name, email, country, market_country, market_source, owner_user_id)
     VALUES ($1, true, $2, $3, $4, $4, $5, $6)`,
    [id, input.displayName, input.email, input.country ?? null, input.country ? 'account_country' : 'default', input.userId],
  );
  await manager.query(`INSERT INTO memberships(account_id, user_id, role) VALUES ($1,$2,'owner')`, [id, input.userId]);
  return id;
}

/**
 * Provisions a ready-to-use account (dev stack, `npm run seed`, tests): owner user, account, owner
 * dashboard session, a live and a test key with every scope, and a service wallet on the
 * environment's network.
 */
export async function provisionAccount(opts: { email?: string; displayName?: string } = {}): Promise<DevCredentials> {
  return transaction(async (m) => {
    const suffix = crypto.randomBytes(4).toString('hex');
    const email = opts.email ?? `owner+${suffix}@merchant.example`;
    const userId = newId('usr_');
    await m.query('INSERT INTO users(id, email) VALUES ($1,$2)', [userId, email]);
    const accountId = await insertAccount(m, { userId, email, displayName: opts.displayName ?? `Merchant ${suffix}` });
    const live = await insertApiKey(m, { accountId, livemode: true, scopes: [...ALL_SCOPES], name: 'Default live key', userId });
    const test = await insertApiKey(m, { accountId, livemode: false, scopes: [...ALL_SCOPES], name: 'Default test key', userId });
    const sessionToken = await createSession(m, userId);
    const chain = chainAdapter();
    await m.query(
      `INSERT INTO wallets(id, account_id, livemode, address, chain, network, status, label, credential_id)
       VALUES ($1,$2,true,$3,$4,$5,'active','Service wallet',$6)`,
      [newId('wlt_'), accountId, deriveAddress(`wallet:${accountId}`), chain.chain, chain.network, `cred_${suffix}`],
    );
    return { account_id: accountId, live_key: live.secret, test_key: test.secret, session_token: sessionToken };
  });
}

/**
 * Gives `accountId` an active service wallet on the environment's network when it has none (the dev
 * stack reuses its account across `NETWORK=testnet` and `NETWORK=mainnet` runs). Returns true when
 * one was created.
 */
export async function ensureServiceWallet(accountId: string): Promise<boolean> {
  const chain = chainAdapter();
  const wallets = accountWide(accountId).sql(null, 2);
  const rows: unknown[] = await db().query(
    `INSERT INTO wallets(id, account_id, livemode, address, chain, network, status, label, credential_id)
     SELECT $1, $2, true, $3, $4, $5, 'active', 'Service wallet', $6
      WHERE NOT EXISTS (SELECT 1 FROM wallets WHERE ${wallets.where} AND network = $5 AND status = 'active') RETURNING id`,
    [
      newId('wlt_'),
      ...wallets.params,
      deriveAddress(`wallet:${chain.network}:${accountId}`),
      chain.chain,
      chain.network,
      `cred_${crypto.randomBytes(4).toString('hex')}`,
    ],
  );
  return rows.length > 0;
}

/**
 * `POST /api_keys/{id}/revoke`: revokes key `input.id` of the scope's account, either mode
 * (idempotent: the first `revoked_at` is kept); 404 param `id` when it is not the account's.
 */
export async function revokeKey(scope: Scope, input: { id: string }): Promise<ApiKey> {
  const keyId = input.id;
  return transaction(async (m) => {
    // Either mode: a key is the account's whatever the scope's mode (an account-wide lookup).
    const key = await accountWide(scope.accountId, m).lock(
      ApiKey,
      { id: keyId },
      () => new DomainError('not_found', 'not_found', `No such API key: ${keyId}.`, { param: 'id' }),
    );
    if (key.status !== 'revoked') await revokeApiKey(m, key);
    return key;
  });
}

/**
 * `POST /api_keys/{id}/roll`: a new secret for key `input.id` of the scope's account (either mode)
 * with the same scopes and settings, created by the scope's user; the old key is revoked at once.
 * 404 param `id` when not the account's; 409 `api_key_revoked` for a revoked key.
 */
export async function rollKey(scope: Scope, input: { id: string }): Promise<{ key: ApiKey; secret: string }> {
  const { accountId } = scope;
  const keyId = input.id;
  const userId = scope.caller?.userId ?? null;
  return transaction(async (m) => {
    const old = await accountWide(accountId, m).lock(
      ApiKey,
      { id: keyId },
      () => new DomainError('not_found', 'not_found', `No such API key: ${keyId}.`, { param: 'id' }),
    );
    if (old.status === 'revoked') throw new DomainError('conflict', 'api_key_revoked', 'A revoked key cannot be rolled.');
    await revokeApiKey(m, old);
    return insertApiKey(m, {
      accountId,
      livemode: old.livemode,
      scopes: old.scopes,
      name: old.name,
      ipAllowlist: old.ip_allowlist,
      expiresAt: old.expires_at,
      defaultVersion: old.default_version,
      userId,
      rolledFrom: old.id,
    });
  });
}

/** Fields of `PATCH /account` (spec 4.10); absent fields stay, `null` clears where allowed. */
export interface AccountUpdate {
  display_name?: string;
  language?: string | null;
  notification_preferences?: Record<string, boolean>;
  dashboard_preferences?: Record<string, unknown>;
  support_contact?: Record<string, unknown> | null;
}

/** `PATCH /account` (spec 4.10): the scope's account, one transaction on its locked row; 404 `not_found` when gone. Preferences merge. */
export async function updateAccount(scope: Scope, input: AccountUpdate): Promise<Account> {
  const u = input;
  return transaction(async (m) => {
    const acc = await m.findOne(Account, { where: { id: scope.accountId }, lock: { mode: 'pessimistic_write' } });
    if (!acc) throw new DomainError('not_found', 'not_found', 'No such account.');
    if (u.display_name !== undefined) acc.display_name = u.display_name;
    if (u.language !== undefined) acc.language = u.language;
    if (u.notification_preferences) acc.notification_preferences = { ...acc.notification_preferences, ...u.notification_preferences };
    if (u.dashboard_preferences) acc.dashboard_preferences = u.dashboard_preferences;
    if (u.support_contact !== undefined) acc.support_contact = u.support_contact as Account['support_contact'];
    return m.save(acc);
  });
}

/**
 * `POST /accounts` (spec 4.10): a live account owned by the scope's login (`scope.caller.userId`;
 * Error without one). 503 `test_mode_not_supported` in test mode, 400 `country_invalid`, 409
 * `account_already_exists` when the login owns a live one.
 */
export async function createAccountForLogin(scope: Scope, input: { display_name: string; country?: string | null }): Promise<Account> {
  const userId = scope.caller?.userId;
  if (!userId) throw new Error('createAccountForLogin: the caller is not a dashboard user');
  const a = { userId, livemode: scope.livemode, displayName: input.display_name, country: input.country };
  if (!a.livemode) throw new DomainError('temporarily_unavailable', 'test_mode_not_supported', 'Accounts cannot be created in test mode.');
  if (a.country && !COUNTRIES.has(a.country))
    throw new DomainError('invalid_request', 'country_invalid', `Unrecognised country: ${a.country}.`, { param: 'country' });
  const owned: unknown[] = await db().query(`SELECT 1 FROM accounts WHERE owner_user_id = $1 AND livemode = true LIMIT 1`, [a.userId]);
  if (owned.length) throw new DomainError('conflict', 'account_already_exists', 'This login already owns a live account.');
  const id = await transaction(async (m) => {
    const u: Array<{ email: string }> = await m.query('SELECT email FROM users WHERE id = $1', [a.userId]);
    return insertAccount(m, { userId: a.userId, email: u[0].email, displayName: a.displayName, country: a.country ?? null });
  });
  return db().getRepository(Account).findOneByOrFail({ id });
}

/** Body of `POST /api_keys` (spec 4.10): the key's mode is `livemode`, not the scope's. */
export interface CreateApiKeyInput {
  livemode: boolean;
  scopes: string[];
  name?: string | null;
  ip_allowlist?: string[];
  expires_at?: Date | null;
  default_version?: string | null;
}

/**
 * `POST /api_keys` (spec 4.10, 5): a new key of the scope's account in one transaction, created by
 * the scope's user; the secret is returned once.
 */
export async function createApiKey(scope: Scope, input: CreateApiKeyInput): Promise<{ key: ApiKey; secret: string }> {
  return transaction((m) =>
    insertApiKey(m, {
      accountId: scope.accountId,
      livemode: input.livemode,
      scopes: input.scopes,
      name: input.name ?? null,
      ipAllowlist: input.ip_allowlist,
      expiresAt: input.expires_at ?? null,
      defaultVersion: input.default_version ?? null,
      userId: scope.caller?.userId ?? null,
    }),
  );
}

/**
 * `POST /account/sessions/revoke_all` (spec 4.10): revokes every live dashboard session of the
 * scope's login (`scope.caller.userId`). Returns how many and when (millisecond precision; now when none).
 */
export async function revokeAllSessions(scope: Scope): Promise<{ count: number; revokedAt: Date }> {
  const userId = scope.caller?.userId ?? null;
  // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
  const [rows]: [Array<{ revoked_at: Date }>, number] = await db().query(
    `UPDATE dashboard_sessions SET revoked_at = date_trunc('milliseconds', clock_timestamp())
      WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() RETURNING revoked_at`,
    [userId],
  );
  return { count: rows.length, revokedAt: rows[0]?.revoked_at ?? new Date() };
}

/**
 * `POST /webhook_waitlist`, `POST /card_waitlist` (spec 4.10): the scope's account joins
 * `input.waitlist` once; a repeat updates the contact (`email` defaults to the account's,
 * `use_case` only when given, undefined keeps it). `joined_by` is the caller's key id, else its
 * user id, else `unknown`.
 */
export async function joinWaitlist(
  scope: Scope,
  input: { waitlist: WaitlistEntry['waitlist']; email?: string | null; use_case?: string | null },
): Promise<WaitlistEntry> {
  const a = {
    accountId: scope.accountId,
    waitlist: input.waitlist,
    email: input.email ?? null,
    useCase: input.use_case,
    joinedBy: scope.caller?.keyId ?? scope.caller?.userId ?? 'unknown',
  };
  await db().query(
    `INSERT INTO waitlist_entries(account_id, waitlist, email, use_case, joined_by)
     SELECT a.id, $2, COALESCE($3, a.email), $4, $5 FROM accounts a WHERE a.id = $1
     ON CONFLICT (account_id, waitlist) DO UPDATE SET
       email = COALESCE($3, waitlist_entries.email),
       use_case = CASE WHEN $6 THEN $4 ELSE waitlist_entries.use_case END,
       updated_at = date_trunc('milliseconds', clock_timestamp())`,
    [a.accountId, a.waitlist, a.email, a.useCase ?? null, a.joinedBy, a.useCase !== undefined],
  );
  return accountWide(a.accountId).getOne(
    WaitlistEntry,
    { waitlist: a.waitlist },
    () => new Error(`waitlist entry ${a.waitlist} of ${a.accountId} not written`),
  );
}
