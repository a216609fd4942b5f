/**
 * Wire projections of virtual accounts and their bank credits (spec 2.5, 4.5; shapes ours where
 * the spec is silent, docs/decisions/0041-wallet-virtual-accounts-and-wallet-bank.md).
 * `bank_deposit_instructions` is one
 * BankDepositInstructions (spec 2.1) per rail the account receives on; fiat amounts are Money in
 * minor units of their currency, `usdc_amount` USDC minor units (6 decimals).
 */
import Joi from 'joi';
import { VIRTUAL_ACCOUNT_PURPOSES, VIRTUAL_ACCOUNT_STATUSES } from '../domain/virtual-accounts';
import type { WalletVirtualAccount, WalletVirtualAccountCredit } from '../entities';
import { bankDepositInstructionsResponse, bankInstructionsView } from './payment';
import { at, atOrNull, bool, kind, money, moneyOrNull, text, textOrNull } from './schema';
import type { WalletVirtualAccountsCreate, WalletVirtualAccountsHistory } from './wire';

/** A virtual account (`va_`). */
export function virtualAccountView(v: WalletVirtualAccount): WalletVirtualAccountsCreate {
  return {
    id: v.id, object: 'virtual_account', livemode: v.livemode, purpose: v.purpose, status: v.status, currency: v.currency,
    rails: [...v.rails], bank_deposit_instructions: v.instructions.map(bankInstructionsView),
    wallet_id: v.wallet_id, deactivated_at: v.deactivated_at?.toISOString() ?? null,
    created_at: v.created_at.toISOString(), updated_at: v.updated_at.toISOString(),
  };
}

/** Response schema of `virtualAccountView`. */
export const virtualAccountResponse = Joi.object({
  id: text(), object: kind('virtual_account'), livemode: bool(), purpose: Joi.string().valid(...VIRTUAL_ACCOUNT_PURPOSES).required(),
  status: Joi.string().valid(...VIRTUAL_ACCOUNT_STATUSES).required(), currency: text(), rails: Joi.array().items(Joi.string()).required(),
  bank_deposit_instructions: Joi.array().items(bankDepositInstructionsResponse).required(),
  wallet_id: textOrNull(), deactivated_at: atOrNull(), created_at: at(), updated_at: at(),
});

/** One bank credit of a virtual account (`vac_`): received, converted to USDC into the wallet, or returned. */
export function virtualAccountCreditView(c: WalletVirtualAccountCredit): WalletVirtualAccountsHistory['data'][number] {
  return {
    id: c.id, object: 'virtual_account_deposit', virtual_account_id: c.virtual_account_id, status: c.status, rail: c.rail,
    amount: { amount: c.amount_minor, currency: c.currency, decimals: c.decimals },
    usdc_amount: c.usdc_minor === null ? null : { amount: c.usdc_minor, currency: 'USDC', decimals: 6 },
    rate_usdc_per_major: c.rate_usdc_per_major, tx_hash: c.tx_hash, sender_name: c.sender_name, reference: c.reference,
    return_reason: c.return_reason, settled_at: c.settled_at?.toISOString() ?? null, created_at: c.created_at.toISOString(),
  };
}

/** Response schema of `virtualAccountCreditView`. */
export const virtualAccountCreditResponse = Joi.object({
  id: text(), object: kind('virtual_account_deposit'), virtual_account_id: text(), status: Joi.string().valid('received', 'converted', 'returned').required(),
  rail: text(), amount: money(), usdc_amount: moneyOrNull(), rate_usdc_per_major: textOrNull(), tx_hash: textOrNull(), sender_name: textOrNull(),
  reference: textOrNull(), return_reason: textOrNull(), settled_at: atOrNull(), created_at: at(),
});
