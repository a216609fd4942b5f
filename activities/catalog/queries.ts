/**
 * Reads of the client and product routes (spec 4.1): one row of the caller (404 for any other)
 * and the filtered list queries the routes page (newest first, by the route's pagination).
 */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import { Client, Product } from '../../entities';
import { db } from '../../lib/db';
import { likeContains } from '../../lib/sql';
import type { AccountScope } from '../op-context';

/** List filters of `GET /clients` and `GET /products`: `archived` true/false narrows, `q` searches names. */
export interface CatalogFilters { archived?: boolean; q?: string }

/** The caller's client `id`; 404 param `id` otherwise. */
export async function getClient(s: AccountScope, id: string): Promise<Client> {
  const c = await db().getRepository(Client).findOneBy({ id, account_id: s.accountId, livemode: s.livemode });
  if (!c) throw notFound(`No such client: ${id}.`, 'id');
  return c;
}

/** The caller's product `id`; 404 param `id` otherwise. */
export async function getProduct(s: AccountScope, id: string): Promise<Product> {
  const p = await db().getRepository(Product).findOneBy({ id, account_id: s.accountId, livemode: s.livemode });
  if (!p) throw notFound(`No such product: ${id}.`, 'id');
  return p;
}

/** `GET /clients` query (alias `c`): `q` matches display name, email or company (case-insensitive, contains). */
export function listClients(s: AccountScope, f: CatalogFilters): SelectQueryBuilder<Client> {
  const qb = db().getRepository(Client).createQueryBuilder('c')
    .where('c.account_id = :a AND c.livemode = :l', { a: s.accountId, l: s.livemode });
  if (f.archived === true) qb.andWhere('c.archived_at IS NOT NULL');
  if (f.archived === false) qb.andWhere('c.archived_at IS NULL');
  if (f.q) qb.andWhere('(c.display_name ILIKE :q OR c.email ILIKE :q OR c.company ILIKE :q)', { q: likeContains(f.q) });
  return qb;
}

/** `GET /products` query (alias `p`): `q` matches name or description (case-insensitive, contains). */
export function listProducts(s: AccountScope, f: CatalogFilters): SelectQueryBuilder<Product> {
  const qb = db().getRepository(Product).createQueryBuilder('p')
    .where('p.account_id = :a AND p.livemode = :l', { a: s.accountId, l: s.livemode });
  if (f.archived === true) qb.andWhere('p.archived_at IS NOT NULL');
  if (f.archived === false) qb.andWhere('p.archived_at IS NULL');
  if (f.q) qb.andWhere('(p.name ILIKE :q OR p.description ILIKE :q)', { q: likeContains(f.q) });
  return qb;
}
