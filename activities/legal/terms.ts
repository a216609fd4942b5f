/**
 * Terms acceptance (spec 1 rule 6): the gate `mount()` runs for operations that declare
 * `terms`, the acceptance a person makes (the sandbox plays the person through
 * `/sim/legal/acceptances`), and the account's current acceptance for readiness. The registry is
 * the `terms_acceptances` table; sandbox fault `legal.registry_unavailable` plays its outage.
 */
import { conflict, notFound } from '../../domain/errors';
import { legalAcceptanceUnavailable, TERMS_REVISION, termsAcceptanceRequired, type TermsGate } from '../../domain/terms';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { accountWide } from '../../lib/scoped';
import { isFlagOpen } from '../../lib/switches';
import { faultValue } from '../../providers/sandbox-faults';
import type { Scope } from '../scope';

/** The switch that turns the gate on (off by default: inactive until enabled), globally or for an account's cohort. */
export const TERMS_SWITCH = 'legal.terms_acceptance';

/** The account owner's acceptance of the current revision, or null. */
export async function accountAcceptance(accountId: string): Promise<{ user_id: string; revision: string; accepted_at: Date } | null> {
  const own = accountWide(accountId).sql(null, 1);
  const rows: Array<{ user_id: string; revision: string; accepted_at: Date }> = await db().query(
    `SELECT user_id, revision, accepted_at FROM terms_acceptances WHERE ${own.where} AND scope = 'account' AND revision = $2 ORDER BY accepted_at LIMIT 1`,
    [...own.params, TERMS_REVISION],
  );
  return rows[0] ?? null;
}

/**
 * The gate of an operation declaring `input.terms`, for the scope's caller: passes when the switch
 * is off (for the scope's account); else
 * `account`: the owner accepted the current revision; `personal`: the acting user (`scope.caller`)
 * did (a key, or no caller, has no person: refused). Throws 409 `terms_acceptance_required`
 * (details `revision`, `action`), or 503 `legal_acceptance_unavailable` (Retry-After) when the
 * registry cannot be read.
 */
export async function checkTerms(scope: Scope, input: { terms: TermsGate }): Promise<void> {
  const gate = input.terms;
  const caller = { accountId: scope.accountId, userId: scope.caller?.userId ?? null };
  if (!(await isFlagOpen(TERMS_SWITCH, caller.accountId))) return;
  try {
    if ((await faultValue(caller.accountId, 'legal.registry_unavailable')) === 'true')
      throw new Error('acceptance registry unavailable (sandbox fault)');
    const own = accountWide(caller.accountId).sql(null, 1);
    const rows: Array<{ n: number }> =
      gate === 'account'
        ? await db().query(`SELECT count(*)::int AS n FROM terms_acceptances WHERE ${own.where} AND scope = 'account' AND revision = $2`, [
            ...own.params,
            TERMS_REVISION,
          ])
        : await db().query(
            `SELECT count(*)::int AS n FROM terms_acceptances WHERE ${own.where} AND user_id = $2 AND scope = 'personal' AND revision = $3`,
            [...own.params, caller.userId ?? '', TERMS_REVISION],
          );
    if (rows[0].n > 0) return;
  } catch (e) {
    logger.warn({ err: e, account_id: caller.accountId }, 'terms acceptance registry read failed');
    throw legalAcceptanceUnavailable();
  }
  throw termsAcceptanceRequired(gate);
}

/**
 * A person accepts the current revision for the scope's account (sandbox: `/sim/legal/acceptances`):
 * `input.terms` `account` by the account's owner (another member: 409 `terms_acceptance_owner_only`),
 * `personal` by a member for themselves. `input.user_id`: the person (default: the scope's caller,
 * else for `account` the owner). Idempotent per (account, user, scope, revision). 404 for an
 * unknown account (param `account_id`) or a user who is not a member (param `user_id`).
 */
export async function acceptTerms(
  scope: Scope,
  input: { terms: TermsGate; user_id?: string | null },
): Promise<{ id: string; account_id: string; user_id: string; scope: TermsGate; revision: string; accepted_at: Date }> {
  const a = { accountId: scope.accountId, userId: input.user_id ?? scope.caller?.userId ?? null, scope: input.terms };
  const account = accountWide(a.accountId);
  const memberOf = account.sql(null, 1);
  const members: Array<{ user_id: string; role: string }> = await db().query(
    `SELECT user_id, role FROM memberships WHERE ${memberOf.where}`,
    memberOf.params,
  );
  if (!members.length) throw notFound(`No such account: ${a.accountId}.`, 'account_id');
  const owner = members.find((m) => m.role === 'owner');
  const userId = a.userId ?? (a.scope === 'account' ? owner?.user_id : undefined);
  const member = members.find((m) => m.user_id === userId);
  if (!userId || !member) throw notFound('That user is not a member of the account.', 'user_id');
  if (a.scope === 'account' && member.role !== 'owner')
    throw conflict('terms_acceptance_owner_only', "Only the account owner accepts the account's terms.");
  const own = account.sql(null, 2);
  const rows = await db().query(
    `WITH i AS (INSERT INTO terms_acceptances(id, account_id, user_id, scope, revision) VALUES ($1,$2,$3,$4,$5)
       ON CONFLICT (account_id, user_id, scope, revision) DO NOTHING RETURNING *)
     SELECT * FROM i UNION ALL SELECT * FROM terms_acceptances WHERE ${own.where} AND user_id = $3 AND scope = $4 AND revision = $5 LIMIT 1`,
    [newId('tac_'), ...own.params, userId, a.scope, TERMS_REVISION],
  );
  return rows[0];
}
