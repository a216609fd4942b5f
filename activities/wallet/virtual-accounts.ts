/**
 * Virtual accounts funding the holder's wallet: commands and reads (spec 2.5, 4.5; issue 14). A
 * `wallet_funding` virtual account is a bank account per currency issued by the collection
 * provider (BankDepositInstructions per rail); its inbound credits become USDC in the wallet
 * (activities/wallet/virtual-account-credits.ts, run by workflows/virtual-account.ts). A currency
 * the account already collects through its bank-rail payment links (a `collection` row) is refused.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { VIRTUAL_ACCOUNT_CURRENCIES, VIRTUAL_ACCOUNT_RAILS, virtualAccountTransitions, type VirtualAccountPurpose, type VirtualAccountStatus } from '../../domain/virtual-accounts';
import { Account, WalletVirtualAccount, WalletVirtualAccountCredit } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { bankCollection } from '../../providers/bank-collection';
import { virtualAccountView } from '../../views/wallet-virtual-accounts';
import { wakeVirtualAccount } from './signals';
import { activeWallet } from './transactions';

/** Currencies the account collects through its bank-rail payment links (its `collection` rows). */
export async function collectionCurrencies(accountId: string, livemode: boolean): Promise<Set<string>> {
  const rows: Array<{ currency: string }> = await db().query(
    `SELECT currency FROM wallet_virtual_accounts WHERE account_id = $1 AND livemode = $2 AND purpose = 'collection'`, [accountId, livemode]);
  return new Set(rows.map((r) => r.currency));
}

/**
 * `POST /wallet/virtual_accounts`: issues the wallet-funding account of `currency`. 400
 * `parameter_invalid` (param `currency`) outside USD, EUR, GBP, MXN, BRL; 404 `wallet_not_found`;
 * 409 `conflict` code `collection_account_uses_currency` when a collection account already
 * received that currency; 409 `virtual_account_already_exists` (details `virtual_account_id`) when
 * the account has one for it. Emits `virtual_account.created`; starts its workflow.
 */
export async function createVirtualAccount(a: { accountId: string; livemode: boolean; currency: string }, request: RequestRef | null): Promise<WalletVirtualAccount> {
  const rails = VIRTUAL_ACCOUNT_RAILS[a.currency];
  if (!rails) throw invalidRequest('parameter_invalid', `Virtual accounts are issued in ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}.`, 'currency');
  const wallet = await activeWallet(a.accountId);
  if ((await collectionCurrencies(a.accountId, a.livemode)).has(a.currency)) {
    throw conflict('collection_account_uses_currency', `A collection account of this account already receives ${a.currency}; it cannot also fund the wallet.`, { currency: a.currency });
  }
  const existing = await db().getRepository(WalletVirtualAccount).findOneBy({ account_id: a.accountId, livemode: a.livemode, currency: a.currency, purpose: 'wallet_funding' });
  if (existing) throw conflict('virtual_account_already_exists', `This account already has a ${a.currency} virtual account.`, { virtual_account_id: existing.id });
  const holder = await db().getRepository(Account).findOneByOrFail({ id: a.accountId });
  const id = newId('va_');
  const instructions: Array<Record<string, string | null>> = [];
  for (const rail of rails) instructions.push((await bankCollection().issue({ rail, currency: a.currency, clientReference: id, holderName: holder.display_name })).instructions);
  const row = await transaction(async (m) => {
    const inserted: Array<{ id: string }> = await m.query(
      `INSERT INTO wallet_virtual_accounts(id, account_id, livemode, purpose, status, currency, rails, instructions, wallet_id, wallet_address)
       VALUES ($1,$2,$3,'wallet_funding','active',$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING RETURNING id`,
      [id, a.accountId, a.livemode, a.currency, [...rails], JSON.stringify(instructions), wallet.id, wallet.address]);
    if (!inserted[0]) throw conflict('virtual_account_already_exists', `This account already has a ${a.currency} virtual account.`);
    const r = (await m.findOneBy(WalletVirtualAccount, { id }))!;
    await emitEvent(m, { accountId: a.accountId, livemode: a.livemode, type: 'virtual_account.created', objectType: 'virtual_account', objectId: id, object: virtualAccountView(r), request });
    return r;
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}

/** `GET /wallet/virtual_accounts/{id}`: 404 `not_found` (param `id`) for an unknown or another account's one. */
export async function getVirtualAccount(accountId: string, livemode: boolean, id: string): Promise<WalletVirtualAccount> {
  const r = await db().getRepository(WalletVirtualAccount).findOneBy({ id, account_id: accountId, livemode });
  if (!r) throw notFound(`No such virtual account: ${id}.`, 'id');
  return r;
}

/** `GET /wallet/virtual_accounts`: the query (alias `v`); with `purpose` only that purpose (`wallet_funding` for wallet screens), else every row. */
export function virtualAccountListQuery(accountId: string, livemode: boolean, purpose: VirtualAccountPurpose | undefined): SelectQueryBuilder<WalletVirtualAccount> {
  const qb = db().getRepository(WalletVirtualAccount).createQueryBuilder('v').where('v.account_id = :a AND v.livemode = :l', { a: accountId, l: livemode });
  if (purpose) qb.andWhere('v.purpose = :p', { p: purpose });
  return qb;
}

/** `GET /wallet/virtual_accounts/{id}/history`: the query (alias `c`) of its bank credits; 404 as get. */
export async function virtualAccountHistoryQuery(accountId: string, livemode: boolean, id: string): Promise<SelectQueryBuilder<WalletVirtualAccountCredit>> {
  const va = await getVirtualAccount(accountId, livemode, id);
  return db().getRepository(WalletVirtualAccountCredit).createQueryBuilder('c').where('c.virtual_account_id = :v', { v: va.id });
}

/**
 * `POST /wallet/virtual_accounts/{id}/deactivate` (`to: inactive`) and `/reactivate` (`to: active`):
 * through the transition table (409 `virtual_account_state_changed` when already there); only
 * `wallet_funding` rows (409 `virtual_account_not_managed` for collection and legacy rows). Emits
 * `virtual_account.deactivated` / `.reactivated`; wakes the workflow (a deactivated account's
 * later credits are returned to their senders).
 */
export async function setVirtualAccountStatus(accountId: string, livemode: boolean, id: string, to: VirtualAccountStatus, request: RequestRef | null): Promise<WalletVirtualAccount> {
  const row = await transaction(async (m) => {
    const r = await m.findOne(WalletVirtualAccount, { where: { id, account_id: accountId, livemode }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw notFound(`No such virtual account: ${id}.`, 'id');
    if (r.purpose !== 'wallet_funding') throw conflict('virtual_account_not_managed', `A ${r.purpose} account is not deactivated or reactivated here.`);
    r.status = virtualAccountTransitions.assert(r.status, to);
    r.deactivated_at = to === 'inactive' ? new Date() : null;
    const saved = await m.save(r);
    await emitEvent(m, { accountId, livemode, type: to === 'inactive' ? 'virtual_account.deactivated' : 'virtual_account.reactivated', objectType: 'virtual_account', objectId: id, object: virtualAccountView(saved), request });
    return saved;
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}
