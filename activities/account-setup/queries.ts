/**
 * Reads the facts behind account readiness and the setup guide (spec 4.10; rules in
 * domain/readiness.ts). Each read is one short transaction with a statement timeout, so a slow or
 * locked table fails the expansion quickly instead of holding the request (`GET /account?expand=`
 * then reports it in `expand_errors`). Throws `ExpansionTimeout` on the timeout.
 */
import { accountAcceptance, TERMS_SWITCH } from '../legal/terms';
import { TERMS_REVISION } from '../../domain/terms';
import { isFlagOpen } from '../../lib/switches';
import type { EntityManager } from 'typeorm';
import { readiness, setupGuide, type Readiness, type SetupGuide } from '../../domain/readiness';
import type { Account } from '../../entities';
import { transaction } from '../../lib/db';
import { accountWide, scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** Statement timeout of one expansion read, ms. */
export const EXPANSION_TIMEOUT_MS = 1500;

/** The read exceeded EXPANSION_TIMEOUT_MS (PostgreSQL cancelled it). */
export class ExpansionTimeout extends Error {}

async function bounded<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
  try {
    return await transaction(async (m) => {
      await m.query(`SET LOCAL statement_timeout = ${EXPANSION_TIMEOUT_MS}`);
      return fn(m);
    });
  } catch (e) {
    if ((e as { code?: string }).code === '57014') throw new ExpansionTimeout('the read timed out');
    throw e;
  }
}

const at = (v: unknown): Date | null => (v ? new Date(v as string) : null);

/** Readiness of the scope's account (`input.account`, its row) as seen in the scope's mode. Throws ExpansionTimeout. */
export function loadReadiness(scope: AccountScope, input: { account: Account }): Promise<Readiness> {
  const { account } = input;
  const { livemode } = scope;
  const own = scoped(scope).sql(null, 1);
  const wallets = accountWide(scope.accountId).sql(null, 3);
  return bounded(async (m) => {
    const [r]: Array<{ wallet: boolean; endpoints: string }> = await m.query(
      `SELECT EXISTS (SELECT 1 FROM wallets WHERE ${wallets.where} AND livemode = true AND status = 'active') AS wallet,
              (SELECT count(*) FROM webhook_endpoints WHERE ${own.where} AND enabled AND deleted_at IS NULL) AS endpoints`,
      [...own.params, ...wallets.params],
    );
    const [enforced, acceptance] = await Promise.all([isFlagOpen(TERMS_SWITCH, account.id), accountAcceptance(account.id)]);
    return readiness({
      livemode,
      accessState: account.access_state,
      country: account.country,
      hasSupportContact: account.support_contact !== null,
      hasServiceWallet: r.wallet,
      webhookEndpoints: Number(r.endpoints),
      terms: { enforced, revision: TERMS_REVISION, acceptedAt: acceptance?.accepted_at ?? null, acceptedBy: acceptance?.user_id ?? null },
    });
  });
}

/** Setup guide of the scope's account (`input.account`, its row) as seen in the scope's mode. Throws ExpansionTimeout. */
export function loadSetupGuide(scope: AccountScope, input: { account: Account }): Promise<SetupGuide> {
  const { account } = input;
  const { livemode } = scope;
  const own = scoped(scope).sql(null, 1);
  return bounded(async (m) => {
    const [r]: Array<Record<string, unknown>> = await m.query(
      `SELECT (SELECT min(created_at) FROM api_keys WHERE ${own.where}) AS key_at,
              (SELECT min(created_at) FROM payment_links WHERE ${own.where}) AS link_at,
              (SELECT min(activated_at) FROM payment_links WHERE ${own.where}) AS activated_at,
              (SELECT min(paid_at) FROM payments WHERE ${own.where}) AS paid_at,
              (SELECT min(created_at) FROM webhook_endpoints WHERE ${own.where} AND deleted_at IS NULL) AS endpoint_at`,
      own.params,
    );
    return setupGuide({
      livemode,
      apiKeyAt: at(r.key_at),
      paymentLinkAt: at(r.link_at),
      activatedLinkAt: at(r.activated_at),
      paidPaymentAt: at(r.paid_at),
      webhookEndpointAt: at(r.endpoint_at),
      hasSupportContact: account.support_contact !== null,
    });
  });
}
