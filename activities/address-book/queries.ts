/**
 * Address-book reads the routes need (spec 4.10): the list query and one live entry.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { resolveChain } from '../../domain/addresses';
import { invalidRequest } from '../../domain/errors';
import { AddressBookEntry } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import { likeContains } from '../../lib/sql';
import type { AccountScope } from '../scope';
import { loadEntry } from './commands';

/**
 * `GET /address_book` (spec 4.10): the query (alias `e`) of the live entries of (account, mode),
 * filtered by `kind`, `chain` (id or name; 400 `parameter_invalid` when unsupported) and `q`
 * (label, address or counterparty name contains); the caller paginates.
 */
export function entryListQuery(
  scope: AccountScope,
  input: { kind?: string; chain?: string; q?: string },
): SelectQueryBuilder<AddressBookEntry> {
  const qb = scoped(scope).query(AddressBookEntry, 'e').andWhere('e.deleted_at IS NULL');
  if (input.kind) qb.andWhere('e.kind = :k', { k: input.kind });
  if (input.chain !== undefined) {
    const chain = resolveChain(input.chain);
    if (!chain) throw invalidRequest('parameter_invalid', `Unsupported chain \`${input.chain}\`.`, 'chain');
    qb.andWhere('e.chain = :c', { c: chain });
  }
  if (input.q) qb.andWhere('(e.label ILIKE :q OR e.address ILIKE :q OR e.counterparty_name ILIKE :q)', { q: likeContains(input.q) });
  return qb;
}

/** `GET /address_book/{id}`: a live entry of the scope's (account, mode); 404 param `id` otherwise. */
export async function getEntry(scope: AccountScope, input: { id: string }): Promise<AddressBookEntry> {
  return loadEntry(db().manager, scope, input.id);
}
