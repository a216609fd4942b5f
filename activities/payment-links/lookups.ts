/**
 * Rows a payment link command loads or refers to, inside the command's transaction (spec 4.1):
 * the caller's link with a row lock, its settlement destination, client and products. Foreign
 * ids are 404 (never 403).
 */
import type { EntityManager } from 'typeorm';
import { conflict, invalidRequest, notFound, type DomainError } from '../../domain/errors';
import { assertStorableMinor, toMinorNonNegative, type Money } from '../../domain/money';
import { AddressBookEntry, Client, Product, PaymentLink, type LinkItem } from '../../entities';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** `404 not_found` param `id` for a payment link. */
export function linkNotFound(id: string): DomainError {
  return notFound(`No such payment link: ${id}.`, 'id');
}

/** Loads a link of the scope's (account, livemode) with a row lock; 404 param `id` for any other id (also cross-account). */
export async function lockLink(manager: EntityManager, scope: AccountScope, id: string): Promise<PaymentLink> {
  return scoped(scope, manager).lock(PaymentLink, { id }, () => linkNotFound(id));
}

/**
 * 404 unless `adr_` is a live address-book entry of (account, livemode) (spec 4.1 create). Inside
 * a transaction (link update) the entry is locked in share mode until commit, so a concurrent
 * address-book delete (which locks it for update and refuses entries used by open links) cannot
 * slip in between; create runs as one statement outside a transaction, and a draft that raced a
 * delete is caught at activation (the destination must still exist). A bank entry without its
 * bank details cannot receive money: 409 conflict `address_book_entry_incomplete`.
 */
export async function assertDestinationOwned(manager: EntityManager, scope: AccountScope, id: string): Promise<void> {
  const inTransaction = manager.queryRunner?.isTransactionActive === true;
  const q = scoped(scope, manager).query(AddressBookEntry, 'e').andWhere('e.id = :id AND e.deleted_at IS NULL', { id });
  const e = await (inTransaction ? q.setLock('pessimistic_read') : q).getOne();
  if (!e) throw notFound(`No such address book entry: ${id}.`, 'settlement_destination.address_book_id');
  if (e.kind === 'bank' && !e.beneficiary_set_at) {
    throw conflict(
      'address_book_entry_incomplete',
      'This bank entry has no bank details yet; add them with POST /address_book/{id}/beneficiary first.',
      { address_book_id: id },
    );
  }
}

/** 404 unless the client belongs to (account, livemode); 400 `client_archived` for an archived client. */
export async function assertClientUsable(manager: EntityManager, scope: AccountScope, id: string): Promise<void> {
  const cl = await scoped(scope, manager).findOne(Client, { id });
  if (!cl) throw notFound(`No such client: ${id}.`, 'client_id');
  if (cl.archived_at) throw invalidRequest('client_archived', `Client ${id} is archived.`, 'client_id');
}

/** Request line item (spec 2.3 `items`). */
export interface ItemInput {
  product_id?: string | null;
  name?: string | null;
  quantity?: number;
  unit_amount?: Money | null;
}

/**
 * Resolves request items into stored items (snapshot of the product name and price) plus the
 * title inputs. Each item needs a `name` or a `product_id`; a product must belong to the caller
 * (404) and not be archived (400 `product_archived`); `unit_amount` must be in the link currency
 * (400 `currency_mismatch`); a product's price is used when its currency is the link's.
 */
export async function resolveItems(
  manager: EntityManager,
  scope: AccountScope,
  items: ItemInput[] | null | undefined,
  currency: string,
): Promise<{ stored: LinkItem[]; forTitle: Array<{ name: string | null; productName: string | null }> }> {
  const stored: LinkItem[] = [];
  const forTitle: Array<{ name: string | null; productName: string | null }> = [];
  for (const [i, it] of (items ?? []).entries()) {
    let product: Product | null = null;
    if (it.product_id) {
      product = await scoped(scope, manager).findOne(Product, { id: it.product_id });
      if (!product) throw notFound(`No such product: ${it.product_id}.`, `items.${i}.product_id`);
      if (product.archived_at) throw invalidRequest('product_archived', `Product ${it.product_id} is archived.`, `items.${i}.product_id`);
    }
    const name = it.name && it.name.trim() ? it.name.trim() : null;
    if (!name && !product) throw invalidRequest('parameter_missing', 'Each item needs a `name` or a `product_id`.', `items.${i}.name`);
    let unit: string | null = null;
    if (it.unit_amount) {
      if (it.unit_amount.currency !== currency) {
        throw invalidRequest(
          'currency_mismatch',
          `items[${i}].unit_amount must be in the link currency ${currency}.`,
          `items.${i}.unit_amount`,
        );
      }
      unit = assertStorableMinor(toMinorNonNegative(it.unit_amount, `items.${i}.unit_amount`), `items.${i}.unit_amount`).toString();
    } else if (product && product.unit_price_minor !== null && product.currency === currency) {
      unit = String(product.unit_price_minor);
    }
    stored.push({ name: name ?? product?.name ?? null, product_id: product?.id ?? null, quantity: it.quantity ?? 1, unit_amount: unit });
    forTitle.push({ name, productName: product?.name ?? null });
  }
  return { stored, forTitle };
}
