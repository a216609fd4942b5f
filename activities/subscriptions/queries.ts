/** Subscription reads (spec 4.2): list queries, one subscription, its invoices with their pay-ins. */
import type { SelectQueryBuilder } from 'typeorm';
import { In } from 'typeorm';
import { DomainError } from '../../domain/errors';
import type { SubscriptionStatus } from '../../domain/subscriptions';
import { Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** `GET /subscriptions` (alias `s`), optionally of one `status` or `client_id`; the route paginates newest first. */
export function subscriptionListQuery(
  scope: AccountScope,
  input: { status?: SubscriptionStatus; client_id?: string },
): SelectQueryBuilder<Subscription> {
  const qb = scoped(scope).query(Subscription, 's');
  if (input.status) qb.andWhere('s.status = :st', { st: input.status });
  if (input.client_id) qb.andWhere('s.client_id = :c', { c: input.client_id });
  return qb;
}

/** Subscription `input.id` of the caller's account and mode; 404 param `id` otherwise. */
export async function findSubscription(scope: AccountScope, input: { id: string }): Promise<Subscription> {
  const { id } = input;
  return scoped(scope).getOne(
    Subscription,
    { id },
    () => new DomainError('not_found', 'not_found', `No such subscription: ${id}.`, { param: 'id' }),
  );
}

/** `GET /subscriptions/{id}/invoices` (alias `i`) of the caller's subscription `input.id` (404 otherwise). */
export async function invoiceListQuery(scope: AccountScope, input: { id: string }): Promise<SelectQueryBuilder<SubscriptionInvoice>> {
  const s = await findSubscription(scope, input);
  return db().getRepository(SubscriptionInvoice).createQueryBuilder('i').where('i.subscription_id = :id', { id: s.id });
}

/** Invoice `input.invoice_id` of the caller's subscription `input.id` (404 param `id`), with its pay-in; 404 (param `invoice_id`) otherwise. */
export async function findInvoice(
  scope: AccountScope,
  input: { id: string; invoice_id: string },
): Promise<{ invoice: SubscriptionInvoice; payment: Payment | null }> {
  const { invoice_id: invoiceId } = input;
  const s = await findSubscription(scope, input);
  const invoice = await db().getRepository(SubscriptionInvoice).findOneBy({ id: invoiceId, subscription_id: s.id });
  if (!invoice) throw new DomainError('not_found', 'not_found', `No such invoice: ${invoiceId}.`, { param: 'invoice_id' });
  return { invoice, payment: await db().getRepository(Payment).findOneBy({ id: invoice.payment_id }) };
}

/** The pay-ins of the scope's `input.invoices`, by payment id (one query). */
export async function paymentsOf(scope: AccountScope, input: { invoices: readonly SubscriptionInvoice[] }): Promise<Map<string, Payment>> {
  const { invoices } = input;
  if (invoices.length === 0) return new Map();
  const rows = await scoped(scope).find(Payment, { id: In(invoices.map((i) => i.payment_id)) });
  return new Map(rows.map((p) => [p.id, p]));
}
