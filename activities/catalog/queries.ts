/**
 * Reads of the client and product routes (spec 4.1): one row of the caller (404 for any other)
 * and the filtered list queries the routes page (newest first, by the route's pagination).
 */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import { Client, Product } from '../../entities';
import { scoped } from '../../lib/scoped';
import { likeContains } from '../../lib/sql';
import type { AccountScope } from '../scope';

/** List filters of `GET /clients` and `GET /products`: `archived` true/false narrows, `q` searches names. */
export interface CatalogFilters {
  archived?: boolean;
  q?: string;
}

/** The scope's client `input.id`; 404 param `id` otherwise. */
export async function getClient(scope: AccountScope, input: { id: string }): Promise<Client> {
  return scoped(scope).getOne(Client, { id: input.id }, () => notFound(`No such client: ${input.id}.`, 'id'));
}

/** The scope's product `input.id`; 404 param `id` otherwise. */
export async function getProduct(scope: AccountScope, input: { id: string }): Promise<Product> {
  return scoped(scope).getOne(Product, { id: input.id }, () => notFound(`No such product: ${input.id}.`, 'id'));
}

/** `GET /clients` query (alias `c`): `q` matches display name, email or company (case-insensitive, contains). */
export function listClients(scope: AccountScope, catalogFilters: CatalogFilters): SelectQueryBuilder<Client> {
  const qb = scoped(scope).query(Client, 'c');
  if (catalogFilters.archived === true) qb.andWhere('c.archived_at IS NOT NULL');
  if (catalogFilters.archived === false) qb.andWhere('c.archived_at IS NULL');
  if (catalogFilters.q)
    qb.andWhere('(c.display_name ILIKE :q OR c.email ILIKE :q OR c.company ILIKE :q)', { q: likeContains(catalogFilters.q) });
  return qb;
}

/** `GET /products` query (alias `p`): `q` matches name or description (case-insensitive, contains). */
export function listProducts(scope: AccountScope, catalogFilters: CatalogFilters): SelectQueryBuilder<Product> {
  const qb = scoped(scope).query(Product, 'p');
  if (catalogFilters.archived === true) qb.andWhere('p.archived_at IS NOT NULL');
  if (catalogFilters.archived === false) qb.andWhere('p.archived_at IS NULL');
  if (catalogFilters.q) qb.andWhere('(p.name ILIKE :q OR p.description ILIKE :q)', { q: likeContains(catalogFilters.q) });
  return qb;
}
