/**
 * Reads the payment routes need (spec 4.2, 4.1 payer routes): one payment of the caller, list
 * queries (the route pages them), the `expand=summary` counts, and the chain identity the payment
 * views need. Cross-account or cross-mode ids are 404.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { PAYMENT_STATUS_FILTER_VALUES } from '../../domain/verdicts';
import { Payment, PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import type { PaymentChain } from '../../views/payment';
import type { AccountScope } from '../op-context';

/** The chain identity deposit instructions name (views/payment.ts `PaymentChain`): the chain adapter's. */
export function paymentChain(): PaymentChain {
  return chainAdapter();
}

/** The caller's payment `id`; 404 `not_found` param `id` for any other. */
export async function getPayment(s: AccountScope, id: string): Promise<Payment> {
  const p = await db().getRepository(Payment).findOneBy({ id, account_id: s.accountId, livemode: s.livemode });
  if (!p) throw new DomainError('not_found', 'not_found', `No such payment: ${id}.`, { param: 'id' });
  return p;
}

/** Filters of `GET /payments` after joi (spec 4.2). */
export interface PaymentFilters { payment_link_id?: string; subscription_id?: string; settlement?: string; status?: string }

/** `summary` of `GET /payments?expand=summary`: counts per filter status (all 12 keys) and `total`. */
export interface PaymentSummary { by_status: Record<string, number>; total: number }

/**
 * `GET /payments` (spec 4.2): the filtered query of the caller's payments (alias `p`, for the
 * route's pagination) and a `summary()` counting every matching row by status.
 */
export function listPayments(s: AccountScope, f: PaymentFilters): { query: SelectQueryBuilder<Payment>; summary: () => Promise<PaymentSummary> } {
  const qb = db().getRepository(Payment).createQueryBuilder('p')
    .where('p.account_id = :a AND p.livemode = :l', { a: s.accountId, l: s.livemode });
  if (f.payment_link_id) qb.andWhere('p.payment_link_id = :pl', { pl: f.payment_link_id });
  if (f.subscription_id) qb.andWhere('p.subscription_id = :sub', { sub: f.subscription_id });
  if (f.settlement) qb.andWhere('p.settlement = :st', { st: f.settlement });
  const summaryQb = qb.clone();
  if (f.status) qb.andWhere('p.status = :s', { s: f.status });
  const summary = async (): Promise<PaymentSummary> => {
    if (f.status) summaryQb.andWhere('p.status = :s', { s: f.status });
    const rows: Array<{ status: string; n: string }> = await summaryQb.select('p.status', 'status').addSelect('COUNT(*)', 'n').groupBy('p.status').getRawMany();
    const byStatus: Record<string, number> = Object.fromEntries(PAYMENT_STATUS_FILTER_VALUES.map((st) => [st, 0]));
    let total = 0;
    for (const row of rows) { byStatus[row.status] = Number(row.n); total += Number(row.n); }
    return { by_status: byStatus, total };
  };
  return { query: qb, summary };
}

/** `GET /payment_links/{id}/payments`: the query of the caller's link's payments (alias `p`); 404 param `id` for another link. */
export async function listLinkPayments(s: AccountScope, linkId: string): Promise<SelectQueryBuilder<Payment>> {
  const link = await db().getRepository(PaymentLink).findOneBy({ id: linkId, account_id: s.accountId, livemode: s.livemode });
  if (!link) throw new DomainError('not_found', 'not_found', `No such payment link: ${linkId}.`, { param: 'id' });
  return db().getRepository(Payment).createQueryBuilder('p').where('p.payment_link_id = :id', { id: link.id });
}

/** One payment of the payer's link; 404 param `payment_id` for any other. */
export async function getPayerPayment(linkId: string, paymentId: string): Promise<Payment> {
  const p = await db().getRepository(Payment).findOneBy({ id: paymentId, payment_link_id: linkId });
  if (!p) throw new DomainError('not_found', 'not_found', `No such payment: ${paymentId}.`, { param: 'payment_id' });
  return p;
}
