/**
 * The virtual account's commands, what the routes call (spec 2.5): issuing a wallet-funding account
 * in a currency, (de)activating it, and recording a provider's bank credit to it (provider intake,
 * not a caller's command: `recordVirtualAccountCredit`). Each writes its row with its outbox event
 * in one transaction, then wakes the account's workflow (signals.ts). Caller commands are `(scope,
 * input)` (activities/scope.ts). Fiat in minor units of its currency.
 */
import { conflict, invalidRequest } from '../../domain/errors';
import { VIRTUAL_ACCOUNT_CURRENCIES, VIRTUAL_ACCOUNT_RAILS, type VirtualAccountStatus } from '../../domain/virtual-accounts';
import { Account, WalletVirtualAccount } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { bankCollection, type ProviderCredit } from '../../providers/bank-collection';
import { virtualAccountView } from '../../views/wallet-virtual-accounts';
import { deactivateVirtualAccount, lockVirtualAccount, reactivateVirtualAccount } from '../records/virtual-accounts';
import { activeWallet } from '../records/wallets';
import type { Scope } from '../scope';
import { collectionCurrencies } from './queries';
import { wakeVirtualAccount } from './signals';

/**
 * `POST /wallet/virtual_accounts`: issues the wallet-funding account of `currency`. 400
 * `parameter_invalid` (param `currency`) outside USD, EUR, GBP, MXN, BRL; 404 `wallet_not_found`;
 * 409 `conflict` code `collection_account_uses_currency` when a collection account already
 * received that currency; 409 `virtual_account_already_exists` (details `virtual_account_id`) when
 * the account has one for it. Emits `virtual_account.created`; starts its workflow.
 */
export async function createVirtualAccount(scope: Scope, input: { currency: string }): Promise<WalletVirtualAccount> {
  const rails = VIRTUAL_ACCOUNT_RAILS[input.currency];
  if (!rails)
    throw invalidRequest('parameter_invalid', `Virtual accounts are issued in ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}.`, 'currency');
  const wallet = await activeWallet(scope);
  if ((await collectionCurrencies(scope)).has(input.currency)) {
    throw conflict(
      'collection_account_uses_currency',
      `A collection account of this account already receives ${input.currency}; it cannot also fund the wallet.`,
      { currency: input.currency },
    );
  }
  const existing = await scoped(scope).findOne(WalletVirtualAccount, { currency: input.currency, purpose: 'wallet_funding' });
  if (existing)
    throw conflict('virtual_account_already_exists', `This account already has a ${input.currency} virtual account.`, {
      virtual_account_id: existing.id,
    });
  const holder = await db().getRepository(Account).findOneByOrFail({ id: scope.accountId });
  const id = newId('va_');
  const instructions: Array<Record<string, string | null>> = [];
  for (const rail of rails)
    instructions.push(
      (await bankCollection().issue({ rail, currency: input.currency, clientReference: id, holderName: holder.display_name })).instructions,
    );
  const row = await transaction(async (m) => {
    const inserted: Array<{ id: string }> = await m.query(
      `INSERT INTO wallet_virtual_accounts(id, account_id, livemode, purpose, status, currency, rails, instructions, wallet_id, wallet_address)
       VALUES ($1,$2,$3,'wallet_funding','active',$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING RETURNING id`,
      [id, scope.accountId, scope.livemode, input.currency, [...rails], JSON.stringify(instructions), wallet.id, wallet.address],
    );
    if (!inserted[0]) throw conflict('virtual_account_already_exists', `This account already has a ${input.currency} virtual account.`);
    const r = (await m.findOneBy(WalletVirtualAccount, { id }))!;
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'virtual_account.created',
      objectType: 'virtual_account',
      objectId: id,
      object: virtualAccountView(r),
      request: scope.request,
    });
    return r;
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/virtual_accounts/{id}/deactivate` (`to: inactive`) and `/reactivate` (`to: active`):
 * through the transition table (409 `virtual_account_state_changed` when already there); only
 * `wallet_funding` rows (409 `virtual_account_not_managed` for collection and legacy rows). Emits
 * `virtual_account.deactivated` / `.reactivated`; wakes the workflow (a deactivated account's
 * later credits are returned to their senders).
 */
export async function setVirtualAccountStatus(
  scope: Scope,
  { id, to }: { id: string; to: VirtualAccountStatus },
): Promise<WalletVirtualAccount> {
  const row = await transaction(async (m) => {
    const r = await lockVirtualAccount(m, id, scope);
    if (r.purpose !== 'wallet_funding')
      throw conflict('virtual_account_not_managed', `A ${r.purpose} account is not deactivated or reactivated here.`);
    return to === 'inactive' ? deactivateVirtualAccount(m, r, scope.request) : reactivateVirtualAccount(m, r, scope.request);
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}

/**
 * Records provider credit `c` (matched to `va_...` by the provider) against its virtual account
 * (idempotent by the provider's credit id) and wakes the account's workflow. Returns false when
 * the credit is not a virtual account's. A provider notification (`/sim/bank/credits`), not a
 * caller's command: no scope, the account is the credit's virtual account's; the credit starts
 * `received` (domain/virtual-accounts.ts `virtualAccountCreditTransitions`).
 */
export async function recordVirtualAccountCredit(providerCredit: ProviderCredit, decimals: number): Promise<boolean> {
  if (!providerCredit.client_reference?.startsWith('va_')) return false;
  const rows: Array<{ id: string; account_id: string }> = await db().query(
    'SELECT id, account_id FROM wallet_virtual_accounts WHERE id = $1',
    [providerCredit.client_reference],
  );
  const va = rows[0];
  if (!va) return false;
  await db().query(
    `INSERT INTO wallet_virtual_account_credits(id, virtual_account_id, account_id, provider_credit_id, rail, currency, amount_minor, decimals, sender_name, reference, status)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,'received') ON CONFLICT (provider_credit_id) DO NOTHING`,
    [
      newId('vac_'),
      va.id,
      va.account_id,
      providerCredit.id,
      providerCredit.rail,
      providerCredit.currency,
      providerCredit.amount.toString(),
      decimals,
      providerCredit.sender_name,
      providerCredit.reference,
    ],
  );
  await wakeVirtualAccount(va.id, va.account_id);
  return true;
}
