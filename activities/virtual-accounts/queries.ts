/**
 * The virtual account's reads for the routes (spec 2.5): the account's virtual accounts, their bank
 * credits, and the currencies its collection accounts already receive. Another account's (or
 * mode's) virtual account is 404: every lookup goes through the scoped finder (lib/scoped.ts).
 */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import type { VirtualAccountPurpose } from '../../domain/virtual-accounts';
import { WalletVirtualAccount, WalletVirtualAccountCredit } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** Currencies the scope's account collects through its bank-rail payment links (its `collection` rows). */
export async function collectionCurrencies(scope: AccountScope): Promise<Set<string>> {
  const rows = await scoped(scope).find(WalletVirtualAccount, { purpose: 'collection' });
  return new Set(rows.map((r) => r.currency));
}

/** `GET /wallet/virtual_accounts/{id}`: 404 `not_found` (param `id`) for an unknown or another account's (or mode's) one. */
export async function getVirtualAccount(scope: AccountScope, { id }: { id: string }): Promise<WalletVirtualAccount> {
  return scoped(scope).getOne(WalletVirtualAccount, { id }, () => notFound(`No such virtual account: ${id}.`, 'id'));
}

/** `GET /wallet/virtual_accounts`: the query (alias `v`); with `purpose` only that purpose (`wallet_funding` for wallet screens), else every row. */
export function virtualAccountListQuery(
  scope: AccountScope,
  { purpose }: { purpose?: VirtualAccountPurpose },
): SelectQueryBuilder<WalletVirtualAccount> {
  const qb = scoped(scope).query(WalletVirtualAccount, 'v');
  if (purpose) qb.andWhere('v.purpose = :p', { p: purpose });
  return qb;
}

/** `GET /wallet/virtual_accounts/{id}/history`: the query (alias `c`) of its bank credits; 404 as get. */
export async function virtualAccountHistoryQuery(
  scope: AccountScope,
  { id }: { id: string },
): Promise<SelectQueryBuilder<WalletVirtualAccountCredit>> {
  const va = await getVirtualAccount(scope, { id });
  return db().getRepository(WalletVirtualAccountCredit).createQueryBuilder('c').where('c.virtual_account_id = :v', { v: va.id });
}
