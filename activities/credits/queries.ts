/**
 * Credit reads the routes need (spec 4.10): the ledger of an account owner's personal balance.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { CreditEventRow } from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import type { AccountScope } from '../scope';
import { accountOwner } from './commands';

/**
 * `GET /credit_events` (spec 4.10): the ledger query (alias `e`, optionally of one `type`) of the
 * owner of the scope's account, paged by `page`, plus `events_total` (exact lifetime row count;
 * omitted when the count fails). 404 when the account is gone.
 */
export async function listCreditEvents<P extends object>(
  scope: AccountScope,
  input: { type?: string; page: (qb: SelectQueryBuilder<CreditEventRow>) => Promise<P> },
): Promise<P & { events_total?: number }> {
  const userId = await accountOwner(scope.accountId);
  const qb = db().getRepository(CreditEventRow).createQueryBuilder('e').where('e.user_id = :u', { u: userId });
  if (input.type) qb.andWhere('e.type = :t', { t: input.type });
  const out = await input.page(qb);
  try {
    const [{ n }] = (await db().query('SELECT count(*)::int AS n FROM credit_events WHERE user_id = $1', [userId])) as Array<{ n: number }>;
    return { ...out, events_total: n };
  } catch (err) {
    logger.warn({ err }, 'credit_events count failed; events_total omitted');
    return out;
  }
}
