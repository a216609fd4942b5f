/** Subscription reads (spec 4.2): list queries, one subscription, its invoices with their pay-ins. */
import type { SelectQueryBuilder } from 'typeorm';
import { In } from 'typeorm';
import { DomainError } from '../../domain/errors';
import type { SubscriptionStatus } from '../../domain/subscriptions';
import { Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { db } from '../../lib/db';
import type { AccountScope } from '../op-context';

/** `GET /subscriptions` (alias `s`), optionally of one `status` or `client_id`; the route paginates newest first. */
export function subscriptionListQuery(scope: AccountScope, f: { status?: SubscriptionStatus; client_id?: string }): SelectQueryBuilder<Subscription> {
  const qb = db().getRepository(Subscription).createQueryBuilder('s').where('s.account_id = :a AND s.livemode = :l', { a: scope.accountId, l: scope.livemode });
  if (f.status) qb.andWhere('s.status = :st', { st: f.status });
  if (f.client_id) qb.andWhere('s.client_id = :c', { c: f.client_id });
  return qb;
}

/** Subscription `id` of the caller's account; 404 otherwise. */
export async function findSubscription(scope: AccountScope, id: string): Promise<Subscription> {
  const s = await db().getRepository(Subscription).findOneBy({ id, account_id: scope.accountId, livemode: scope.livemode });
  if (!s) throw new DomainError('not_found', 'not_found', `No such subscription: ${id}.`, { param: 'id' });
  return s;
}

/** `GET /subscriptions/{id}/invoices` (alias `i`) of the caller's subscription `id` (404 otherwise). */
export async function invoiceListQuery(scope: AccountScope, id: string): Promise<SelectQueryBuilder<SubscriptionInvoice>> {
  const s = await findSubscription(scope, id);
  return db().getRepository(SubscriptionInvoice).createQueryBuilder('i').where('i.subscription_id = :id', { id: s.id });
}

/** Invoice `invoiceId` of the caller's subscription `id`, with its pay-in; 404 (param `invoice_id`) otherwise. */
export async function findInvoice(scope: AccountScope, id: string, invoiceId: string): Promise<{ invoice: SubscriptionInvoice; payment: Payment | null }> {
  const s = await findSubscription(scope, id);
  const invoice = await db().getRepository(SubscriptionInvoice).findOneBy({ id: invoiceId, subscription_id: s.id });
  if (!invoice) throw new DomainError('not_found', 'not_found', `No such invoice: ${invoiceId}.`, { param: 'invoice_id' });
  return { invoice, payment: await db().getRepository(Payment).findOneBy({ id: invoice.payment_id }) };
}

/** The pay-ins of `invoices`, by payment id (one query). */
export async function paymentsOf(invoices: readonly SubscriptionInvoice[]): Promise<Map<string, Payment>> {
  if (invoices.length === 0) return new Map();
  const rows = await db().getRepository(Payment).findBy({ id: In(invoices.map((i) => i.payment_id)) });
  return new Map(rows.map((p) => [p.id, p]));
}
