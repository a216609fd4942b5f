/**
 * Wire projections of a pay-in: merchant view (spec 2.4 Payment) and the payer-safe view. No I/O:
 * the chain identity of deposit instructions is passed in (`PaymentChain`).
 */
import { amountVerdict, type PaymentStatus } from '../domain/verdicts';
import { isBankRail } from '../domain/rails';
import type { Money } from '../domain/money';
import type { Payment } from '../entities';
import { XCHAIN_USDC, type XchainNetwork } from '../domain/xchain';
import Joi from 'joi';
import { at, atOrNull, bool, kind, moneyOrNull, moneyOut, text, textOrNull } from './schema';
import type { PaymentSessionsGet, PaymentSessionsPaymentsCreate, PaymentsGet } from './wire';

/**
 * The payer-safe payment as the document serves it (`GET /payment_sessions/{token}/payments/{payment_id}`,
 * spec 2.4); the view always fills the expected and received amounts the document allows null.
 */
export type PayerPayment = PaymentSessionsPaymentsCreate & { amount_expected: Money; amount_received: Money };
/** DepositInstructions (spec 2.1) as the document serves them. */
export type DepositInstructions = NonNullable<PayerPayment['deposit_instructions']>;
/** BankDepositInstructions (spec 2.1) as the document serves them. */
export type BankDepositInstructions = NonNullable<PayerPayment['bank_deposit_instructions']>;
/** CrossNetworkDepositInstructions (spec 2.4) as the document serves them. */
export type CrossNetworkDepositInstructions = PaymentSessionsGet['xchain_deposit_instructions'][number];

function m(p: Payment, minor: string): Money;
function m(p: Payment, minor: string | null): Money | null;
function m(p: Payment, minor: string | null): Money | null {
  return minor === null ? null : { amount: minor, currency: p.currency, decimals: p.decimals };
}

function ledger(p: Payment) {
  return {
    status: p.status as PaymentStatus,
    expected: BigInt(p.amount_expected_minor),
    received: BigInt(p.amount_received_minor),
    underpaidEmitted: p.underpaid_emitted,
    overpaidEmitted: p.overpaid_emitted,
  };
}

/**
 * The chain identity deposit instructions name (spec 2.1 DepositInstructions): the chain adapter's
 * `chainId`, `network` and stablecoin `tokenAddress`, looked up by the caller.
 */
export interface PaymentChain {
  chainId: number;
  network: string;
  tokenAddress: string;
}

/**
 * DepositInstructions (spec 2.1) of a crypto payment; null without a deposit address. Native and
 * transfer rails: the native chain (`chain` passed in) and its token. Cross-network rail: the
 * bridge's address on the source network with that network's USDC (`XCHAIN_USDC`), `amount` what
 * the payer sends (gross of the bridge fee), `amount_out` what must arrive (the total due),
 * `bridge_fee`, `amount_is_estimate: true`, `quote_expires_at`, `gross_up`, `provider: bridge`.
 */
export function depositInstructionsView(payment: Payment, chain: PaymentChain): DepositInstructions | null {
  if (!payment.deposit_address) return null;
  if (payment.payment_rail === 'crypto_xchain') {
    const usdc = XCHAIN_USDC[payment.deposit_chain as XchainNetwork];
    const src = (minor: string | null) =>
      minor === null ? null : { amount: minor, currency: payment.stablecoin ?? 'USDC', decimals: payment.decimals };
    return {
      address: payment.deposit_address,
      chain: payment.deposit_chain,
      chain_id: usdc?.chainId ?? null,
      network: chain.network,
      asset: payment.stablecoin,
      token_address: usdc?.tokenAddress ?? null,
      amount: src(payment.amount_in_minor),
      amount_out: m(payment, payment.amount_expected_minor),
      bridge_fee: src(payment.bridge_fee_minor),
      amount_is_estimate: true,
      quote_expires_at: payment.quote_expires_at?.toISOString() ?? null,
      gross_up: payment.gross_up,
      expires_at: payment.expires_at.toISOString(),
      provider: 'bridge',
    };
  }
  return {
    address: payment.deposit_address,
    chain: payment.deposit_chain,
    chain_id: chain.chainId,
    network: chain.network,
    asset: payment.stablecoin,
    token_address: chain.tokenAddress,
    amount: m(payment, payment.amount_expected_minor),
    amount_is_estimate: false,
    expires_at: payment.expires_at.toISOString(),
    provider: null,
  };
}

/**
 * The cross-network deposit instructions of the payer session (spec 2.4 `xchain_deposit_instructions`):
 * `depositInstructionsView` of a `crypto_xchain` attempt, whose chain and asset are always known;
 * null when the attempt has no deposit address yet or is not cross-network.
 */
export function crossNetworkDepositInstructionsView(payment: Payment, chain: PaymentChain): CrossNetworkDepositInstructions | null {
  const d = payment.payment_rail === 'crypto_xchain' ? depositInstructionsView(payment, chain) : null;
  if (!d || d.chain === null || d.asset === null) return null;
  // The cross-network branch of depositInstructionsView always sets these; the spread keeps the wire order.
  return {
    ...d,
    chain: d.chain,
    asset: d.asset,
    amount_out: d.amount_out ?? null,
    bridge_fee: d.bridge_fee ?? null,
    quote_expires_at: d.quote_expires_at ?? null,
    gross_up: d.gross_up ?? null,
  };
}

/** Keys of BankDepositInstructions (spec 2.1) besides `matching`, in wire order. */
const BANK_INSTRUCTION_KEYS = [
  'currency',
  'rail',
  'bank_name',
  'beneficiary_name',
  'holder_kind',
  'account_number',
  'routing_number',
  'sort_code',
  'clabe',
  'pix_key',
  'bank_address',
  'iban',
  'bic',
  'reference',
] as const;

/**
 * BankDepositInstructions (spec 2.1) of a bank-rail payment, as the collection provider issued
 * them: every key present (null where the rail has none), `matching` (`reference` |
 * `account_number`) omitted when the provider gave no basis. Null on crypto rails.
 */
export function bankDepositInstructionsView(payment: Payment): BankDepositInstructions | null {
  return payment.bank_instructions ? bankInstructionsView(payment.bank_instructions) : null;
}

/** BankDepositInstructions (spec 2.1) as issued by the collection provider (a payment's or a virtual account's): every key, `matching` when given. */
export function bankInstructionsView(record: Record<string, string | null>): BankDepositInstructions {
  const out: Record<string, unknown> = {};
  for (const k of BANK_INSTRUCTION_KEYS) out[k] = record[k] ?? null;
  if (record.matching === 'reference' || record.matching === 'account_number') out.matching = record.matching;
  // Keyed by the list above: the provider's instructions always carry `currency` and `rail`.
  return out as BankDepositInstructions;
}

/** `amount_verdict` of a payment (spec 2.4): provider-settled (bank) rails read null once paid or settled. */
export function paymentAmountVerdict(payment: Payment): string | null {
  return amountVerdict(ledger(payment), { providerSettled: isBankRail(payment.payment_rail) });
}

/** Merchant view of a payment (spec 2.4). `fee` is the 1% payer-borne fee; `net_amount` what the merchant is owed. */
export function paymentView(payment: Payment, chain: PaymentChain): PaymentsGet {
  const received = BigInt(payment.amount_received_minor);
  return {
    id: payment.id,
    object: 'payment',
    livemode: payment.livemode,
    created_at: payment.created_at.toISOString(),
    updated_at: payment.updated_at.toISOString(),
    status: payment.status,
    payment_link_id: payment.payment_link_id,
    subscription_id: payment.subscription_id,
    payment_rail: payment.payment_rail,
    source_chain: payment.source_chain,
    stablecoin: payment.stablecoin,
    source_asset: payment.source_asset,
    deposit_instructions: depositInstructionsView(payment, chain),
    bank_deposit_instructions: bankDepositInstructionsView(payment),
    amount_expected: m(payment, payment.amount_expected_minor),
    amount_received: m(payment, received.toString()),
    amount_verdict: paymentAmountVerdict(payment),
    fee: m(payment, payment.fee_minor),
    deducted_fee: m(payment, '0'),
    net_amount: m(payment, payment.invoice_minor),
    surplus: m(payment, payment.surplus_minor),
    unmatched_reason: payment.unmatched_reason,
    return_reason: payment.return_reason,
    screening: { status: 'not_screened', level: null, flags: [] },
    settlement: payment.settlement,
    settlement_tx_hash: payment.settlement_tx_hash,
    onchain_tx_hash: payment.onchain_tx_hash,
    marked_sent_at: payment.marked_sent_at?.toISOString() ?? null,
    expires_at: payment.expires_at.toISOString(),
    paid_at: payment.paid_at?.toISOString() ?? null,
    settled_at: payment.settled_at?.toISOString() ?? null,
    ...railFields(payment),
  };
}

/**
 * Fields of the cross-network and transfer rails both views carry (spec 2.4): `watcher_state`,
 * `watcher_reason` (null off the cross-network rail), `refund_address`, `recovery_tx_hash` (the
 * return of money on a closed payment or a failed bridge), `source_address` (`crypto_transfer`).
 */
function railFields(
  p: Payment,
): Pick<PayerPayment, 'watcher_state' | 'watcher_reason' | 'refund_address' | 'recovery_tx_hash' | 'source_address'> {
  return {
    watcher_state: p.watcher_state,
    watcher_reason: p.watcher_reason,
    refund_address: p.refund_address,
    recovery_tx_hash: p.recovery_tx_hash,
    source_address: p.source_address,
  };
}

/**
 * Payer-safe payment (spec 4.1 payer routes): no merchant ids, settlement addresses or internal
 * fields. The bank deposit instructions are the collection account the payer sends to (never the
 * merchant's own bank details); `return_reason` tells the payer why their transfer came back.
 */
export function payerPaymentView(payment: Payment, chain: PaymentChain): PayerPayment {
  return {
    id: payment.id,
    object: 'payment',
    status: payment.status,
    payment_rail: payment.payment_rail,
    network: payment.deposit_chain,
    stablecoin: payment.stablecoin,
    deposit_instructions: depositInstructionsView(payment, chain),
    bank_deposit_instructions: bankDepositInstructionsView(payment),
    amount_expected: m(payment, payment.amount_expected_minor),
    amount_received: m(payment, payment.amount_received_minor),
    amount_verdict: paymentAmountVerdict(payment),
    return_reason: payment.return_reason,
    fee: m(payment, payment.fee_minor),
    onchain_tx_hash: payment.onchain_tx_hash,
    marked_sent_at: payment.marked_sent_at?.toISOString() ?? null,
    expires_at: payment.expires_at.toISOString(),
    paid_at: payment.paid_at?.toISOString() ?? null,
    settled_at: payment.settled_at?.toISOString() ?? null,
    created_at: payment.created_at.toISOString(),
    ...railFields(payment),
  };
}

/** Response schema of `depositInstructionsView` (DepositInstructions, spec 2.1), null on bank rails. */
export const depositInstructionsResponse = Joi.object({
  address: text(),
  chain: textOrNull(),
  chain_id: Joi.number().integer().allow(null).required(),
  network: text(),
  asset: textOrNull(),
  token_address: textOrNull(),
  amount: moneyOrNull(),
  amount_out: moneyOut.allow(null),
  bridge_fee: moneyOut.allow(null),
  amount_is_estimate: bool(),
  quote_expires_at: Joi.string().isoDate().allow(null),
  gross_up: Joi.boolean().allow(null),
  expires_at: at(),
  provider: textOrNull(),
}).allow(null);

const str = () => Joi.string().allow('', null);

/**
 * BankDepositInstructions (spec 2.1): where a payer sends a bank transfer. Every field but
 * `currency` and `rail` may be null (the provider gave none); `matching` is omitted when the
 * payload gives no basis. Null on crypto rails (the `bank_deposit_instructions` field).
 */
export const bankDepositInstructionsResponse = Joi.object({
  currency: text(),
  rail: text(),
  bank_name: str(),
  beneficiary_name: str(),
  holder_kind: Joi.string().valid('own_name', 'provider_name', 'developer_name').allow(null),
  account_number: str(),
  routing_number: str(),
  sort_code: str(),
  clabe: str(),
  pix_key: str(),
  bank_address: str(),
  iban: str(),
  bic: str(),
  reference: str(),
  matching: Joi.string().valid('reference', 'account_number'),
});

/**
 * Cross-network DepositInstructions (spec 2.1 DepositInstructions, cross-network rail): the send
 * target on the payer's chain, with `amount_out` (what arrives) and `bridge_fee`, and the quote's
 * expiry. `memo` never appears on native-chain pay-ins.
 */
export const crossNetworkDepositInstructionsResponse = Joi.object({
  address: text(),
  chain: text(),
  chain_id: Joi.number().integer().allow(null),
  network: str(),
  asset: text(),
  token_address: str(),
  amount: moneyOrNull(),
  amount_out: moneyOrNull(),
  bridge_fee: moneyOrNull(),
  amount_is_estimate: bool(),
  quote_expires_at: atOrNull(),
  gross_up: Joi.boolean().allow(null),
  memo: str(),
  expires_at: atOrNull(),
  provider: str(),
});

/** Fields of a payment that the merchant's and the payer's views share: what to pay and how it went. */
const paymentProgressFields = {
  watcher_state: textOrNull(),
  watcher_reason: textOrNull(),
  refund_address: textOrNull(),
  recovery_tx_hash: textOrNull(),
  source_address: textOrNull(),
  deposit_instructions: depositInstructionsResponse.required(),
  bank_deposit_instructions: bankDepositInstructionsResponse.allow(null).required(),
  amount_expected: moneyOrNull(),
  amount_received: moneyOrNull(),
  amount_verdict: textOrNull(),
  fee: moneyOrNull(),
  onchain_tx_hash: textOrNull(),
  marked_sent_at: atOrNull(),
  expires_at: at(),
  paid_at: atOrNull(),
  settled_at: atOrNull(),
};

/** Response schema of `paymentView` (spec 2.4). */
export const paymentResponse = Joi.object({
  id: text(),
  object: kind('payment'),
  livemode: bool(),
  created_at: at(),
  updated_at: at(),
  status: text(),
  payment_link_id: textOrNull(),
  subscription_id: textOrNull(),
  payment_rail: text(),
  source_chain: textOrNull(),
  stablecoin: textOrNull(),
  source_asset: textOrNull(),
  ...paymentProgressFields,
  deducted_fee: moneyOrNull(),
  net_amount: moneyOrNull(),
  surplus: moneyOrNull(),
  unmatched_reason: textOrNull(),
  return_reason: textOrNull(),
  screening: Joi.object({ status: text(), level: textOrNull(), flags: Joi.array().items(Joi.string()).required() }).required(),
  settlement: textOrNull(),
  settlement_tx_hash: textOrNull(),
});

/** Response schema of `payerPaymentView` (payer-safe payment); `authoritative: false` on `mark_sent`. */
export const payerPaymentResponse = Joi.object({
  id: text(),
  object: kind('payment'),
  status: text(),
  payment_rail: text(),
  network: textOrNull(),
  stablecoin: textOrNull(),
  ...paymentProgressFields,
  return_reason: textOrNull(),
  created_at: at(),
  authoritative: Joi.boolean(),
});
