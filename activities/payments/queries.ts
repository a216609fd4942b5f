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
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** The chain identity deposit instructions name (views/payment.ts `PaymentChain`): the chain adapter's. */
export function paymentChain(): PaymentChain {
  return chainAdapter();
}

/** The caller's payment `input.id`; 404 `not_found` param `id` for any other. */
export async function getPayment(scope: AccountScope, input: { id: string }): Promise<Payment> {
  const { id } = input;
  return scoped(scope).getOne(Payment, { id }, () => new DomainError('not_found', 'not_found', `No such payment: ${id}.`, { param: 'id' }));
}

/** Filters of `GET /payments` after joi (spec 4.2). */
export interface PaymentFilters {
  payment_link_id?: string;
  subscription_id?: string;
  settlement?: string;
  status?: string;
}

/** `summary` of `GET /payments?expand=summary`: counts per filter status (all 12 keys) and `total`. */
export interface PaymentSummary {
  by_status: Record<string, number>;
  total: number;
}

/** `summary` by counting every matching payment (the filters `payment_counts` does not key, and the reference it is checked against). */
export async function paymentSummaryByScan(scope: AccountScope, paymentFilters: PaymentFilters): Promise<PaymentSummary> {
  const qb = scoped(scope).query(Payment, 'p');
  if (paymentFilters.payment_link_id) qb.andWhere('p.payment_link_id = :pl', { pl: paymentFilters.payment_link_id });
  if (paymentFilters.subscription_id) qb.andWhere('p.subscription_id = :sub', { sub: paymentFilters.subscription_id });
  if (paymentFilters.settlement) qb.andWhere('p.settlement = :st', { st: paymentFilters.settlement });
  if (paymentFilters.status) qb.andWhere('p.status = :s', { s: paymentFilters.status });
  const rows: Array<{ status: string; n: string }> = await qb
    .select('p.status', 'status')
    .addSelect('COUNT(*)', 'n')
    .groupBy('p.status')
    .orderBy('p.status')
    .getRawMany();
  return summaryOf(rows);
}

/**
 * `summary` from `payment_counts` (decision 0077; triggers of migration 1764610200000,
 * statement-level since 1764660000000 (decision 0089), keep one count per status and settlement in
 * the writing transaction): for the `settlement` and `status` filters; the same numbers as
 * `paymentSummaryByScan`.
 */
export async function paymentSummaryFromCounts(
  scope: AccountScope,
  paymentFilters: Pick<PaymentFilters, 'settlement' | 'status'>,
): Promise<PaymentSummary> {
  const own = scoped(scope).sql(null, 1);
  const params: unknown[] = [...own.params];
  let where = own.where;
  if (paymentFilters.settlement) {
    params.push(paymentFilters.settlement);
    where += ` AND settlement = $${params.length}`;
  }
  if (paymentFilters.status) {
    params.push(paymentFilters.status);
    where += ` AND status = $${params.length}`;
  }
  const rows: Array<{ status: string; n: string }> = await db().query(
    `SELECT status, sum(n)::text AS n FROM payment_counts WHERE ${where} GROUP BY status HAVING sum(n) <> 0 ORDER BY status`,
    params,
  );
  return summaryOf(rows);
}

function summaryOf(rows: Array<{ status: string; n: string }>): PaymentSummary {
  const byStatus: Record<string, number> = Object.fromEntries(PAYMENT_STATUS_FILTER_VALUES.map((st) => [st, 0]));
  let total = 0;
  for (const row of rows) {
    byStatus[row.status] = Number(row.n);
    total += Number(row.n);
  }
  return { by_status: byStatus, total };
}

/**
 * `GET /payments` (spec 4.2): the filtered query of the caller's payments (alias `p`, for the
 * route's pagination) and a `summary()` of every matching row by status (from the counts unless
 * filtered by link or subscription).
 */
export function listPayments(
  scope: AccountScope,
  paymentFilters: PaymentFilters,
): { query: SelectQueryBuilder<Payment>; summary: () => Promise<PaymentSummary> } {
  const qb = scoped(scope).query(Payment, 'p');
  if (paymentFilters.payment_link_id) qb.andWhere('p.payment_link_id = :pl', { pl: paymentFilters.payment_link_id });
  if (paymentFilters.subscription_id) qb.andWhere('p.subscription_id = :sub', { sub: paymentFilters.subscription_id });
  if (paymentFilters.settlement) qb.andWhere('p.settlement = :st', { st: paymentFilters.settlement });
  if (paymentFilters.status) qb.andWhere('p.status = :s', { s: paymentFilters.status });
  const summary = () =>
    paymentFilters.payment_link_id || paymentFilters.subscription_id
      ? paymentSummaryByScan(scope, paymentFilters)
      : paymentSummaryFromCounts(scope, paymentFilters);
  return { query: qb, summary };
}

/** `GET /payment_links/{id}/payments`: the query of the payments of the caller's link `input.id` (alias `p`); 404 param `id` for another link. */
export async function listLinkPayments(scope: AccountScope, input: { id: string }): Promise<SelectQueryBuilder<Payment>> {
  const { id } = input;
  const link = await scoped(scope).getOne(
    PaymentLink,
    { id },
    () => new DomainError('not_found', 'not_found', `No such payment link: ${id}.`, { param: 'id' }),
  );
  return db().getRepository(Payment).createQueryBuilder('p').where('p.payment_link_id = :id', { id: link.id });
}

/** Payment `input.id` of the payer's link `input.linkId` (`s`: the link's account and mode); 404 param `payment_id` for any other. */
export async function getPayerPayment(scope: AccountScope, input: { linkId: string; id: string }): Promise<Payment> {
  const { id } = input;
  return scoped(scope).getOne(
    Payment,
    { id, payment_link_id: input.linkId },
    () => new DomainError('not_found', 'not_found', `No such payment: ${id}.`, { param: 'payment_id' }),
  );
}
