/**
 * Wire projections of off-ramp quotes, external bank accounts and off-ramp intents (spec 2.5
 * "Off-ramp intent", 4.5; shapes ours where the spec is silent,
 * docs/decisions/0043-wallet-off-ramp-to-a-bank.md). USDC and fiat as Money in minor units; `settled_amount` absent (no key) until
 * `payment_processed`; `developer_fee_percent` a decimal string.
 */
import Joi from 'joi';
import { OFFRAMP_FAILURE_REASONS, OFFRAMP_STATUSES } from '../domain/offramp';
import type { UnsignedEvmCall } from '../domain/evm-calls';
import type { WalletExternalAccount, WalletOfframpIntent } from '../entities';
import { maskedBeneficiaryOut } from './beneficiary';
import { at, atOrNull, bool, kind, money, moneyOut, text, textOrNull } from './schema';
import { unsignedTransactionResponse, unsignedTransactionView } from './wallet-sends';
import type { WalletExternalAccountsCreate, WalletOfframpIntentsCreate, WalletOfframpQuotesCreate } from './wire';

const m = (minor: string | bigint, currency: string, decimals: number) => ({ amount: minor.toString(), currency, decimals });
const percent = (bps: number) => `${Math.trunc(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;

/** An external bank account (`ba_`): masked details only. */
export function externalAccountView(walletExternalAccount: WalletExternalAccount): WalletExternalAccountsCreate {
  return {
    id: walletExternalAccount.id,
    object: 'external_account',
    livemode: walletExternalAccount.livemode,
    rail: walletExternalAccount.rail,
    currency: walletExternalAccount.currency,
    bank_account: walletExternalAccount.masked,
    created_at: walletExternalAccount.created_at.toISOString(),
  };
}

/** Response schema of `externalAccountView`. */
export const externalAccountResponse = Joi.object({
  id: text(),
  object: kind('external_account'),
  livemode: bool(),
  rail: text(),
  currency: text(),
  bank_account: maskedBeneficiaryOut.required(),
  created_at: at(),
});

/** An off-ramp quote: the fees, the destination amount, the rate and its expiry (indicative; the intent prices again). */
export function offrampQuoteView(
  input: {
    amount: bigint;
    serviceFee: bigint;
    developerFee: bigint;
    developerBps: bigint;
    net: bigint;
    destinationAmount: bigint;
    rate: bigint;
    decimals: number;
    expiresAt: Date;
    terms: { destinationCurrency: string; destinationRail: string };
  },
  asset: string,
): WalletOfframpQuotesCreate {
  return {
    object: 'offramp_quote',
    destination_currency: input.terms.destinationCurrency,
    destination_payment_rail: input.terms.destinationRail,
    amount: m(input.amount, asset, 6),
    service_fee: m(input.serviceFee, asset, 6),
    developer_fee: m(input.developerFee, asset, 6),
    developer_fee_percent: percent(Number(input.developerBps)),
    net_amount: m(input.net, asset, 6),
    destination_amount: m(input.destinationAmount, input.terms.destinationCurrency, input.decimals),
    rate_usdc_per_unit: input.rate.toString(),
    expires_at: input.expiresAt.toISOString(),
  };
}

/** Response schema of `offrampQuoteView`. */
export const offrampQuoteResponse = Joi.object({
  object: kind('offramp_quote'),
  destination_currency: text(),
  destination_payment_rail: text(),
  amount: money(),
  service_fee: money(),
  developer_fee: money(),
  developer_fee_percent: text(),
  net_amount: money(),
  destination_amount: money(),
  rate_usdc_per_unit: text(),
  expires_at: at(),
});

/**
 * An off-ramp intent (`ofr_`). `transit_deposit`: where the holder sends the USDC (the chain is
 * constant), with `unsigned_transaction` (when given: the route passes it while awaiting funds).
 */
export function offrampIntentView(
  walletOfframpIntent: WalletOfframpIntent,
  unsigned: UnsignedEvmCall | null = null,
): WalletOfframpIntentsCreate {
  return {
    id: walletOfframpIntent.id,
    object: 'offramp_intent',
    livemode: walletOfframpIntent.livemode,
    status: walletOfframpIntent.status,
    wallet_id: walletOfframpIntent.wallet_id,
    external_account_id: walletOfframpIntent.external_account_id,
    destination_currency: walletOfframpIntent.destination_currency,
    destination_payment_rail: walletOfframpIntent.destination_payment_rail,
    amount: m(walletOfframpIntent.amount_minor, walletOfframpIntent.asset, 6),
    developer_fee_percent: percent(walletOfframpIntent.developer_fee_bps),
    service_fee: m(walletOfframpIntent.service_fee_minor, walletOfframpIntent.asset, 6),
    developer_fee: m(walletOfframpIntent.developer_fee_minor, walletOfframpIntent.asset, 6),
    destination_amount: m(
      walletOfframpIntent.destination_amount_minor,
      walletOfframpIntent.destination_currency,
      walletOfframpIntent.destination_decimals,
    ),
    // Spec 2.5: set only once `payment_processed`; absent before (never null).
    ...(walletOfframpIntent.status === 'payment_processed' && walletOfframpIntent.settled_amount_minor !== null
      ? {
          settled_amount: m(
            walletOfframpIntent.settled_amount_minor,
            walletOfframpIntent.destination_currency,
            walletOfframpIntent.destination_decimals,
          ),
        }
      : {}),
    transit_deposit: {
      chain: walletOfframpIntent.chain,
      address: walletOfframpIntent.transit_address,
      amount: m(walletOfframpIntent.amount_minor, walletOfframpIntent.asset, 6),
      memo: walletOfframpIntent.transit_memo,
      unsigned_transaction: walletOfframpIntent.status === 'awaiting_funds' && unsigned ? unsignedTransactionView(unsigned) : null,
    },
    reference: walletOfframpIntent.reference,
    received_amount: m(walletOfframpIntent.received_minor, walletOfframpIntent.asset, 6),
    source_tx_hash: walletOfframpIntent.source_tx_hash,
    refund_tx_hash: walletOfframpIntent.refund_tx_hash,
    failure_reason: walletOfframpIntent.failure_reason,
    return_reason: walletOfframpIntent.return_reason,
    funding_deadline: walletOfframpIntent.funding_deadline.toISOString(),
    funds_received_at: walletOfframpIntent.funds_received_at?.toISOString() ?? null,
    payment_submitted_at: walletOfframpIntent.payment_submitted_at?.toISOString() ?? null,
    completed_at: walletOfframpIntent.completed_at?.toISOString() ?? null,
    created_at: walletOfframpIntent.created_at.toISOString(),
    updated_at: walletOfframpIntent.updated_at.toISOString(),
  };
}

/** Response schema of `offrampIntentView`. */
export const offrampIntentResponse = Joi.object({
  id: text(),
  object: kind('offramp_intent'),
  livemode: bool(),
  status: Joi.string()
    .valid(...OFFRAMP_STATUSES)
    .required(),
  wallet_id: text(),
  external_account_id: text(),
  destination_currency: text(),
  destination_payment_rail: text(),
  amount: money(),
  developer_fee_percent: text(),
  service_fee: money(),
  developer_fee: money(),
  destination_amount: money(),
  settled_amount: moneyOut.optional(),
  transit_deposit: Joi.object({
    chain: text(),
    address: text(),
    amount: money(),
    memo: textOrNull(),
    unsigned_transaction: unsignedTransactionResponse.allow(null).required(),
  }).required(),
  reference: text(),
  received_amount: money(),
  source_tx_hash: textOrNull(),
  refund_tx_hash: textOrNull(),
  failure_reason: Joi.string()
    .valid(...OFFRAMP_FAILURE_REASONS)
    .allow(null)
    .required(),
  return_reason: textOrNull(),
  funding_deadline: at(),
  funds_received_at: atOrNull(),
  payment_submitted_at: atOrNull(),
  completed_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});
