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
export function virtualAccountView(walletVirtualAccount: WalletVirtualAccount): WalletVirtualAccountsCreate {
  return {
    id: walletVirtualAccount.id,
    object: 'virtual_account',
    livemode: walletVirtualAccount.livemode,
    purpose: walletVirtualAccount.purpose,
    status: walletVirtualAccount.status,
    currency: walletVirtualAccount.currency,
    rails: [...walletVirtualAccount.rails],
    bank_deposit_instructions: walletVirtualAccount.instructions.map(bankInstructionsView),
    wallet_id: walletVirtualAccount.wallet_id,
    deactivated_at: walletVirtualAccount.deactivated_at?.toISOString() ?? null,
    created_at: walletVirtualAccount.created_at.toISOString(),
    updated_at: walletVirtualAccount.updated_at.toISOString(),
  };
}

/** Response schema of `virtualAccountView`. */
export const virtualAccountResponse = Joi.object({
  id: text(),
  object: kind('virtual_account'),
  livemode: bool(),
  purpose: Joi.string()
    .valid(...VIRTUAL_ACCOUNT_PURPOSES)
    .required(),
  status: Joi.string()
    .valid(...VIRTUAL_ACCOUNT_STATUSES)
    .required(),
  currency: text(),
  rails: Joi.array().items(Joi.string()).required(),
  bank_deposit_instructions: Joi.array().items(bankDepositInstructionsResponse).required(),
  wallet_id: textOrNull(),
  deactivated_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});

/** One bank credit of a virtual account (`vac_`): received, converted to USDC into the wallet, or returned. */
export function virtualAccountCreditView(
  walletVirtualAccountCredit: WalletVirtualAccountCredit,
): WalletVirtualAccountsHistory['data'][number] {
  return {
    id: walletVirtualAccountCredit.id,
    object: 'virtual_account_deposit',
    virtual_account_id: walletVirtualAccountCredit.virtual_account_id,
    status: walletVirtualAccountCredit.status,
    rail: walletVirtualAccountCredit.rail,
    amount: {
      amount: walletVirtualAccountCredit.amount_minor,
      currency: walletVirtualAccountCredit.currency,
      decimals: walletVirtualAccountCredit.decimals,
    },
    usdc_amount:
      walletVirtualAccountCredit.usdc_minor === null
        ? null
        : { amount: walletVirtualAccountCredit.usdc_minor, currency: 'USDC', decimals: 6 },
    rate_usdc_per_major: walletVirtualAccountCredit.rate_usdc_per_major,
    tx_hash: walletVirtualAccountCredit.tx_hash,
    sender_name: walletVirtualAccountCredit.sender_name,
    reference: walletVirtualAccountCredit.reference,
    return_reason: walletVirtualAccountCredit.return_reason,
    settled_at: walletVirtualAccountCredit.settled_at?.toISOString() ?? null,
    created_at: walletVirtualAccountCredit.created_at.toISOString(),
  };
}

/** Response schema of `virtualAccountCreditView`. */
export const virtualAccountCreditResponse = Joi.object({
  id: text(),
  object: kind('virtual_account_deposit'),
  virtual_account_id: text(),
  status: Joi.string().valid('received', 'converted', 'returned').required(),
  rail: text(),
  amount: money(),
  usdc_amount: moneyOrNull(),
  rate_usdc_per_major: textOrNull(),
  tx_hash: textOrNull(),
  sender_name: textOrNull(),
  reference: textOrNull(),
  return_reason: textOrNull(),
  settled_at: atOrNull(),
  created_at: at(),
});
