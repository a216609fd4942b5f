/**
 * Wire projections of payouts (spec 2.6, 4.3, 4.6, 6): the payout, its event payload (stored
 * `source_chain`, no `source_chain_chosen`), funding instructions, wallet funding quote, receipt,
 * attempts, and the corridor rows of the capabilities document. The only place payout wire field
 * names are spelled.
 */
import { corridorById, DEFAULT_SOURCE_CHAIN, PAYOUT_SOURCE_ASSET, USDC_DECIMALS } from '../domain/payouts/corridors';
import type { Money } from '../domain/money';
import type { Payout, PayoutAttempt, WalletSend } from '../entities';
import type { CallerKind } from '../domain/caller';
import Joi from 'joi';
import { maskedBeneficiaryOut } from './beneficiary';
import { listEnvelope, moneyOut, timestamp } from './schema';
import { eventResponse } from './event';
import type {
  PayoutEventObject,
  PayoutsAttemptsList,
  PayoutsCreate,
  PayoutsFundingInstructionsGet,
  PayoutsGetReceipt,
  PayoutsGetWalletFundingQuote,
} from './wire';

/** A payout funding attempt as the document serves it (`GET /payouts/{id}/attempts`). */
export type PayoutAttemptWire = PayoutsAttemptsList['data'][number];

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
function usdc(minor: string | bigint): Money;
function usdc(minor: string | bigint | null): Money | null;
function usdc(minor: string | bigint | null): Money | null {
  return minor === null ? null : { amount: minor.toString(), currency: PAYOUT_SOURCE_ASSET, decimals: USDC_DECIMALS };
}
function fiat(p: Payout, minor: string | bigint): Money;
function fiat(p: Payout, minor: string | bigint | null): Money | null;
function fiat(p: Payout, minor: string | bigint | null): Money | null {
  return minor === null ? null : { amount: minor.toString(), currency: p.currency, decimals: p.decimals };
}

/** `failure_reason`: `missing_return_policy` while funds are held with no return address (spec 2.6). */
export function failureReasonOf(payout: Payout): string | null {
  if (payout.held_minor !== null && !payout.refund_address && payout.funding_source !== 'service_wallet') return 'missing_return_policy';
  return payout.failure_reason;
}

/**
 * `capability_snapshot` (spec 2.6): `eta_seconds` and `minimum` live from the corridor table at
 * read time, `version` stamped at creation, `sender_display` and `legal_entity_name` as frozen; a
 * pre-freeze payout has no `sender_display` and a null `legal_entity_name`.
 */
export function capabilitySnapshotView(payout: Payout): PayoutsCreate['capability_snapshot'] {
  const c = corridorById(payout.corridor_id);
  const snap: PayoutsCreate['capability_snapshot'] = {
    version: payout.capability_version,
    eta_seconds: c ? c.eta_seconds : null,
    minimum: c ? { amount: c.min_minor.toString(), currency: c.currency, decimals: c.decimals } : null,
    legal_entity_name: payout.snapshot_frozen_at ? payout.legal_entity_name : null,
  };
  if (payout.snapshot_frozen_at) snap.sender_display = payout.sender_display ?? 'unknown';
  return snap;
}

/** The payout (spec 2.6). `source_chain` shows the default `base` while unchosen. */
export function payoutView(payout: Payout): PayoutsCreate {
  return {
    id: payout.id,
    object: 'payout',
    livemode: payout.livemode,
    created_at: payout.created_at.toISOString(),
    updated_at: payout.updated_at.toISOString(),
    status: payout.status,
    invoice_amount: fiat(payout, payout.invoice_minor),
    corridor_id: payout.corridor_id,
    fiat_rail: payout.fiat_rail,
    source_chain: payout.source_chain ?? DEFAULT_SOURCE_CHAIN,
    source_chain_chosen: payout.source_chain !== null,
    source_asset: payout.source_asset as typeof PAYOUT_SOURCE_ASSET,
    payer_type: payout.payer_type,
    fee_bps: payout.fee_bps,
    notify_recipient: payout.notify_recipient,
    recipient_email: payout.recipient_email,
    note: payout.note,
    capability_snapshot: capabilitySnapshotView(payout),
    needs_attention: payout.needs_attention,
    settled_amount: fiat(payout, payout.settled_minor),
    provider_paid_amount: fiat(payout, payout.provider_paid_minor),
    invoice_shortfall_amount: fiat(payout, payout.shortfall_minor),
    beneficiary: payout.beneficiary_masked,
    funding_source: payout.funding_source,
    failure_reason: failureReasonOf(payout),
    return_reason: payout.return_reason,
    held_amount: usdc(payout.held_minor),
    replaces: payout.replaces_id,
    replaced_by: payout.replaced_by_id,
    marked_sent_at: iso(payout.marked_sent_at),
    funded_at: iso(payout.funded_at),
    paid_at: iso(payout.paid_at),
    settled_at: iso(payout.settled_at),
  };
}

/** Event payload of a payout (spec 6): the stored `source_chain` (null while unchosen), no `source_chain_chosen`. */
export function payoutEventView(payout: Payout): Omit<PayoutEventObject, 'type'> {
  const { source_chain_chosen: _chosen, ...rest } = payoutView(payout);
  return { ...rest, source_chain: payout.source_chain };
}

/**
 * A funding attempt (`poa_`, spec 2.6). `amount_received` is what arrived at the funding address
 * and funded the attempt; `surplus` what arrived above the quoted gross (null until the fiat payment
 * is submitted); `amount_returned` what was already sent back to the payer (USDC).
 */
export function attemptView(payoutAttempt: PayoutAttempt): PayoutAttemptWire {
  return {
    id: payoutAttempt.id,
    object: 'payout_attempt',
    livemode: payoutAttempt.livemode,
    payout_id: payoutAttempt.payout_id,
    created_at: payoutAttempt.created_at.toISOString(),
    updated_at: payoutAttempt.updated_at.toISOString(),
    status: payoutAttempt.status,
    funding_source: payoutAttempt.funding_source,
    source_chain: payoutAttempt.source_chain,
    source_currency: payoutAttempt.source_currency,
    source_tx_hash: payoutAttempt.source_tx_hash,
    refund_address: payoutAttempt.refund_address,
    amount_received: usdc(payoutAttempt.received_minor),
    surplus: usdc(payoutAttempt.surplus_minor),
    amount_returned: usdc(payoutAttempt.returned_minor),
    expires_at: payoutAttempt.expires_at.toISOString(),
  };
}

/**
 * Funding instructions (spec 2.6). `sandbox` only on test-mode payouts; `funding_source` only for
 * service-wallet funding; `send_instructions` only for dashboard sessions (an unsigned send to
 * exactly `deposit_address`). Amounts are estimates (`amount_is_estimate` always true).
 */
export function fundingInstructionsView(
  payout: Payout,
  payoutAttempt: PayoutAttempt,
  send: WalletSend | null,
  callerKind: CallerKind,
): PayoutsFundingInstructionsGet {
  const out: PayoutsFundingInstructionsGet = {
    object: 'payout_funding_instructions',
    payout_id: payout.id,
    attempt_id: payoutAttempt.id,
    status: payout.status,
    // Set with the provider transfer, which funding instructions require (activities/payouts/queries.ts).
    deposit_address: payoutAttempt.deposit_address as string,
    chain: payoutAttempt.source_chain,
    asset: payoutAttempt.source_currency as typeof PAYOUT_SOURCE_ASSET,
    amount: usdc(payoutAttempt.amount_minor),
    buffer: usdc(payoutAttempt.buffer_minor),
    fee: usdc(payoutAttempt.fee_minor),
    fee_bps: payout.fee_bps,
    gross_amount: usdc(payoutAttempt.gross_minor),
    amount_is_estimate: true,
    deposit_message: payoutAttempt.deposit_message,
    transfer_reference: payoutAttempt.transfer_reference,
    refund_address: payoutAttempt.refund_address,
    expires_at: payoutAttempt.expires_at.toISOString(),
  };
  if (!payout.livemode) out.sandbox = true;
  if (payoutAttempt.funding_source === 'service_wallet') {
    out.funding_source = 'service_wallet';
    if (send) {
      out.wallet_send = {
        id: send.id,
        status: send.status,
        from_address: send.wallet_address,
        chain: send.wallet_chain,
        amount: usdc(send.amount_minor),
        delivery: usdc(send.delivery_minor),
        signable_until: send.signable_until.toISOString(),
      };
    }
  }
  if (callerKind === 'dashboard_session') {
    const steps =
      payoutAttempt.funding_source === 'service_wallet' && send
        ? [
            {
              type: 'sign_wallet_send',
              wallet_send_id: send.id,
              from_address: send.wallet_address,
              chain: send.wallet_chain,
              to_address: payoutAttempt.deposit_address,
              to_chain: payoutAttempt.source_chain,
              asset: send.asset,
              amount: usdc(send.amount_minor),
              signable_until: send.signable_until.toISOString(),
            },
          ]
        : [
            {
              type: 'transfer',
              chain: payoutAttempt.source_chain,
              asset: payoutAttempt.source_currency,
              to_address: payoutAttempt.deposit_address,
              amount: usdc(payoutAttempt.gross_minor),
              memo: null,
            },
          ];
    out.send_instructions = { steps };
  }
  return out;
}

/** Inputs of the wallet funding quote: amounts in USDC minor units; `reason` null when available. */
export interface WalletFundingQuote {
  payout: Payout;
  available: boolean;
  reason: string | null;
  sourceChain: string;
  required: bigint;
  estimate: bigint;
  balance: bigint | null;
  expiresAt: Date;
}

/** Wallet funding quote (spec 2.6). All amounts USDC. */
export function walletFundingQuoteView(walletFundingQuote: WalletFundingQuote): PayoutsGetWalletFundingQuote {
  const covers = walletFundingQuote.balance !== null && walletFundingQuote.balance >= walletFundingQuote.estimate;
  return {
    object: 'payout_wallet_funding_quote',
    payout_id: walletFundingQuote.payout.id,
    funding_source: 'service_wallet',
    available: walletFundingQuote.available,
    reason: walletFundingQuote.reason,
    source_chain: walletFundingQuote.sourceChain,
    required_delivery: usdc(walletFundingQuote.required),
    wallet_send_estimate: usdc(walletFundingQuote.estimate),
    cross_network_cost: usdc(walletFundingQuote.estimate - walletFundingQuote.required),
    wallet_balance: usdc(walletFundingQuote.balance),
    covers,
    shortfall: covers || walletFundingQuote.balance === null ? null : usdc(walletFundingQuote.estimate - walletFundingQuote.balance),
    expires_at: walletFundingQuote.expiresAt.toISOString(),
  };
}

/**
 * Receipt (spec 2.6): confirmed figures only (`received_amount` at the funding address,
 * `returned_amount` already sent back to the payer, e.g. a funding surplus, `sent_amount` paid by
 * the rail, `settled_amount` confirmed by the recipient); `fee` and `gross` null until a
 * settlement-confirmed figure exists (today always); projections live under `estimates` and are
 * labelled as such (`authoritative: false`, `label: estimate`).
 */
export function receiptView(payout: Payout, payoutAttempt: PayoutAttempt, providerReference: string | null): PayoutsGetReceipt {
  return {
    object: 'payout_receipt',
    payout_id: payout.id,
    livemode: payout.livemode,
    received_amount: usdc(payoutAttempt.received_minor),
    returned_amount: usdc(payoutAttempt.returned_minor),
    sent_amount: fiat(payout, payout.provider_paid_minor),
    settled_amount: fiat(payout, payout.settled_minor),
    invoice_amount: fiat(payout, payout.invoice_minor),
    fee: null,
    gross: null,
    provider_reference: providerReference,
    settled_at: iso(payout.settled_at),
    beneficiary: payout.beneficiary_masked,
    estimates: {
      authoritative: false,
      label: 'estimate',
      fee: usdc(payoutAttempt.fee_minor),
      gross_amount: usdc(payoutAttempt.gross_minor),
      source_amount: usdc(payoutAttempt.amount_minor),
    },
    note: payout.note,
  };
}

// ------------------------------------------------------------------ response schemas (spec 2.6, 4.3)

const money = moneyOut;
const nMoney = moneyOut.allow(null);
const ts = timestamp.required();
const nTs = timestamp.allow(null).required();

/** The payout object (spec 2.6). */
export const payoutResponse = Joi.object({
  id: Joi.string().pattern(/^po_/).required(),
  object: Joi.string().valid('payout').required(),
  livemode: Joi.boolean().required(),
  created_at: ts,
  updated_at: ts,
  status: Joi.string().required(),
  invoice_amount: money.required(),
  corridor_id: Joi.string().required(),
  fiat_rail: Joi.string().required(),
  source_chain: Joi.string().required(),
  source_chain_chosen: Joi.boolean().required(),
  source_asset: Joi.string().valid('USDC').required(),
  payer_type: Joi.string().required(),
  fee_bps: Joi.number().integer().required(),
  notify_recipient: Joi.boolean().required(),
  recipient_email: Joi.string().allow(null).required(),
  note: Joi.string().allow(null, '').required(),
  capability_snapshot: Joi.object({
    version: Joi.string().required(),
    eta_seconds: Joi.number().integer().allow(null).required(),
    minimum: nMoney.required(),
    legal_entity_name: Joi.string().allow(null).required(),
    sender_display: Joi.string(),
  }).required(),
  needs_attention: Joi.boolean().required(),
  settled_amount: nMoney.required(),
  provider_paid_amount: nMoney.required(),
  invoice_shortfall_amount: nMoney.required(),
  beneficiary: maskedBeneficiaryOut.allow(null).required(),
  funding_source: Joi.string().allow(null).required(),
  failure_reason: Joi.string().allow(null).required(),
  return_reason: Joi.string().allow(null).required(),
  held_amount: nMoney.required(),
  replaces: Joi.string().allow(null).required(),
  replaced_by: Joi.string().allow(null).required(),
  marked_sent_at: nTs,
  funded_at: nTs,
  paid_at: nTs,
  settled_at: nTs,
});

/** `mark_sent` response: the payout plus the non-authoritative marker. */
export const markSentResponse = payoutResponse.keys({ authoritative: Joi.boolean().valid(false).required() });

export const payoutListResponse = listEnvelope(payoutResponse);

/** Funding instructions (spec 2.6). */
export const fundingInstructionsResponse = Joi.object({
  object: Joi.string().valid('payout_funding_instructions').required(),
  payout_id: Joi.string().required(),
  attempt_id: Joi.string().required(),
  status: Joi.string().required(),
  deposit_address: Joi.string().required(),
  chain: Joi.string().required(),
  asset: Joi.string().valid('USDC').required(),
  amount: money.required(),
  buffer: money.required(),
  fee: money.required(),
  fee_bps: Joi.number().integer().required(),
  gross_amount: money.required(),
  amount_is_estimate: Joi.boolean().valid(true).required(),
  deposit_message: Joi.string().allow(null).required(),
  transfer_reference: Joi.string().required(),
  refund_address: Joi.string().allow(null).required(),
  expires_at: ts,
  sandbox: Joi.boolean().valid(true),
  funding_source: Joi.string().valid('service_wallet'),
  wallet_send: Joi.object({
    id: Joi.string().required(),
    status: Joi.string().required(),
    from_address: Joi.string().required(),
    chain: Joi.string().required(),
    amount: money.required(),
    delivery: money.required(),
    signable_until: ts,
  }),
  send_instructions: Joi.object({ steps: Joi.array().items(Joi.object().unknown(true)).min(1).required() }),
});

/** Wallet funding quote (spec 2.6). */
export const walletFundingQuoteResponse = Joi.object({
  object: Joi.string().valid('payout_wallet_funding_quote').required(),
  payout_id: Joi.string().required(),
  funding_source: Joi.string().valid('service_wallet').required(),
  available: Joi.boolean().required(),
  reason: Joi.string().allow(null).required(),
  source_chain: Joi.string().required(),
  required_delivery: money.required(),
  wallet_send_estimate: money.required(),
  cross_network_cost: money.required(),
  wallet_balance: nMoney.required(),
  covers: Joi.boolean().required(),
  shortfall: nMoney.required(),
  expires_at: ts,
});

/** Receipt (spec 2.6). */
export const receiptResponse = Joi.object({
  object: Joi.string().valid('payout_receipt').required(),
  payout_id: Joi.string().required(),
  livemode: Joi.boolean().required(),
  received_amount: money.required(),
  returned_amount: money.required(),
  sent_amount: nMoney.required(),
  settled_amount: nMoney.required(),
  invoice_amount: money.required(),
  fee: Joi.valid(null).required(),
  gross: Joi.valid(null).required(),
  provider_reference: Joi.string().allow(null).required(),
  settled_at: nTs,
  beneficiary: maskedBeneficiaryOut.allow(null).required(),
  estimates: Joi.object({
    authoritative: Joi.boolean().valid(false).required(),
    label: Joi.string().valid('estimate').required(),
    fee: money.required(),
    gross_amount: money.required(),
    source_amount: money.required(),
  }).required(),
  note: Joi.string().allow(null, '').required(),
});

/** Attempt (`poa_`, spec 2.6). */
export const attemptResponse = Joi.object({
  id: Joi.string().pattern(/^poa_/).required(),
  object: Joi.string().valid('payout_attempt').required(),
  livemode: Joi.boolean().required(),
  payout_id: Joi.string().required(),
  created_at: ts,
  updated_at: ts,
  status: Joi.string().required(),
  funding_source: Joi.string().required(),
  source_chain: Joi.string().required(),
  source_currency: Joi.string().required(),
  source_tx_hash: Joi.string().allow(null).required(),
  refund_address: Joi.string().allow(null).required(),
  amount_received: money.required(),
  surplus: nMoney.required(),
  amount_returned: money.required(),
  expires_at: ts,
});

/** A per-object event list (spec 2.11 envelope; the event schema is views/event.ts's). */
export const eventResponseList = listEnvelope(eventResponse);
