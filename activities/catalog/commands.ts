/**
 * Clients and products (spec 2.3 Client and Product, 4.1): create, update, archive. Each is one
 * DB transaction on the caller's (account, livemode); foreign ids are 404 (never 403); archiving
 * is idempotent and archived rows stay readable but not changeable (409 conflict).
 */
import type { EntityManager } from 'typeorm';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { assertStorableMinor, isKnownCurrency, toMinorNonNegative, type Money } from '../../domain/money';
import { blankToNull } from '../../domain/payment-links';
import { Client, Product } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { scoped } from '../../lib/scoped';
import type { Scope } from '../scope';

/** Request fields of a client (create and update). */
export interface ClientInput {
  display_name?: string;
  email?: string | null;
  company?: string | null;
  country?: string | null;
  role?: string | null;
  notes?: string | null;
}

/** Creates a client of the scope's (account, livemode). Returns the row. */
export async function createClient(scope: Scope, input: ClientInput): Promise<Client> {
  return transaction(async (m) => {
    const row = m.create(Client, {
      id: newId('cli_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      display_name: input.display_name!.trim(),
      email: blankToNull(input.email),
      company: blankToNull(input.company),
      country: blankToNull(input.country),
      role: blankToNull(input.role),
      notes: blankToNull(input.notes),
      archived_at: null,
    });
    await m.insert(Client, row);
    return m.findOneByOrFail(Client, { id: row.id });
  });
}

/**
 * Locks the caller's row of `entity` (same account and mode) for update; 404 `not_found` naming
 * `label` for an unknown or foreign id (cross-account ids are never 403).
 */
async function lockOwned<T extends Client | Product>(
  m: EntityManager,
  entity: new () => T,
  scope: Scope,
  id: string,
  label: string,
): Promise<T> {
  return scoped(scope, m).lock(entity as unknown as typeof Client, { id }, () =>
    notFound(`No such ${label}: ${id}.`, 'id'),
  ) as unknown as Promise<T>;
}

/** Archives the caller's client or product (idempotent: the first `archived_at` is kept). 404 for foreign ids. */
async function archiveOwned<T extends Client | Product>(scope: Scope, entity: new () => T, id: string, label: string): Promise<T> {
  return transaction(async (m) => {
    const row = await lockOwned(m, entity, scope, id, label);
    if (!row.archived_at) {
      row.archived_at = new Date();
      await m.save(row);
    }
    return m.findOneByOrFail(entity as unknown as typeof Client, { id }) as unknown as T;
  });
}

/**
 * Updates a client (spec 2.3): null (or a blank string) clears email/company/country/role/notes;
 * keys not sent are kept. 404 for an unknown or foreign id; 409 conflict `client_archived` once archived.
 */
export async function updateClient(scope: Scope, input: ClientInput & { id: string }): Promise<Client> {
  const { id } = input;
  return transaction(async (m) => {
    const row = await lockOwned(m, Client, scope, id, 'client');
    if (row.archived_at) throw conflict('client_archived', 'An archived client cannot be changed.');
    if (input.display_name !== undefined) row.display_name = input.display_name.trim();
    for (const k of ['email', 'company', 'country', 'role', 'notes'] as const) {
      if (input[k] !== undefined) row[k] = blankToNull(input[k]);
    }
    await m.save(row);
    return m.findOneByOrFail(Client, { id });
  });
}

/** Archives a client (idempotent). 404 for foreign ids. */
export function archiveClient(scope: Scope, input: { id: string }): Promise<Client> {
  return archiveOwned(scope, Client, input.id, 'client');
}

// ---------------------------------------------------------------------------------------
// Products (spec 2.3 Product, 4.1)

/** Request fields of a product (create and update). `unit_price` is wire Money (minor units string). */
export interface ProductInput {
  name?: string;
  description?: string | null;
  currency?: string;
  unit_price?: Money | null;
}

function checkCurrency(cur: string, param: string): void {
  if (!isKnownCurrency(cur)) throw invalidRequest('currency_invalid', `Unknown currency: ${cur}.`, param);
}

/**
 * Creates a product. `currency` defaults to `unit_price.currency`; one of the two is required
 * (400 `parameter_missing` param `currency`); when both are sent they must agree (400
 * `currency_mismatch` param `unit_price`). `unit_price` may be zero; null = no fixed price.
 */
export async function createProduct(scope: Scope, input: ProductInput): Promise<Product> {
  const currency = input.currency ?? input.unit_price?.currency;
  if (!currency) throw invalidRequest('parameter_missing', 'A product needs a `currency` (or a `unit_price`).', 'currency');
  checkCurrency(currency, input.currency !== undefined ? 'currency' : 'unit_price.currency');
  let price: string | null = null;
  if (input.unit_price) {
    if (input.unit_price.currency !== currency)
      throw invalidRequest('currency_mismatch', `unit_price must be in ${currency}.`, 'unit_price');
    price = assertStorableMinor(toMinorNonNegative(input.unit_price, 'unit_price'), 'unit_price').toString();
  }
  return transaction(async (m) => {
    const row = m.create(Product, {
      id: newId('prd_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      name: input.name!.trim(),
      description: blankToNull(input.description),
      currency,
      unit_price_minor: price,
      archived_at: null,
    });
    await m.insert(Product, row);
    return m.findOneByOrFail(Product, { id: row.id });
  });
}

/**
 * Updates a product (spec 2.3): null or an empty (trimmed) string clears `description`;
 * `unit_price` Money or null; a new `currency` must agree with the resulting price. 404 for
 * foreign ids; 409 conflict `product_archived` once archived.
 */
export async function updateProduct(scope: Scope, input: ProductInput & { id: string }): Promise<Product> {
  const { id } = input;
  return transaction(async (m) => {
    const row = await lockOwned(m, Product, scope, id, 'product');
    if (row.archived_at) throw conflict('product_archived', 'An archived product cannot be changed.');
    if (input.name !== undefined) row.name = input.name.trim();
    if (input.description !== undefined) row.description = blankToNull(input.description);
    if (input.currency !== undefined) {
      checkCurrency(input.currency, 'currency');
      if (input.unit_price === undefined && row.unit_price_minor !== null && input.currency !== row.currency) {
        throw invalidRequest(
          'currency_mismatch',
          'Changing the currency of a priced product needs a new unit_price (or unit_price: null).',
          'currency',
        );
      }
      row.currency = input.currency;
    }
    if (input.unit_price !== undefined) {
      if (input.unit_price === null) row.unit_price_minor = null;
      else {
        if (input.currency === undefined) {
          checkCurrency(input.unit_price.currency, 'unit_price.currency');
          row.currency = input.unit_price.currency;
        } else if (input.unit_price.currency !== row.currency) {
          throw invalidRequest('currency_mismatch', `unit_price must be in ${row.currency}.`, 'unit_price');
        }
        row.unit_price_minor = assertStorableMinor(toMinorNonNegative(input.unit_price, 'unit_price'), 'unit_price').toString();
      }
    }
    await m.save(row);
    return m.findOneByOrFail(Product, { id });
  });
}

/** Archives a product (idempotent). 404 for foreign ids. */
export function archiveProduct(scope: Scope, input: { id: string }): Promise<Product> {
  return archiveOwned(scope, Product, input.id, 'product');
}
