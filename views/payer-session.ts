/**
 * The payer session projection (spec 2.4): an allowlist. No bank details of the merchant, no
 * settlement snapshots, no internal ids (account, client, destination).
 */
import { amountVerdict, type PaymentStatus } from '../domain/verdicts';
import { computePayableRails, isBankRail, RAILS_CLOSED } from '../domain/rails';
import type { Account, Payment, PaymentLink } from '../entities';
import Joi from 'joi';
import { atOrNull, kind, moneyOrNull, strings, text, textOrNull } from './schema';
import { linkHeaderFields, linkHeaderValues } from './payment-link';
import { supportContactResponse } from './account';
import { crossNetworkDepositInstructionsResponse, crossNetworkDepositInstructionsView, type PaymentChain } from './payment';
import type { PaymentSessionsGet } from './wire';

/** The payer session projection as the document serves it (`GET /payment_sessions/{token}`, spec 2.4). */
export type PayerSession = PaymentSessionsGet;

export interface SessionViewInput {
  link: PaymentLink;
  account: Account;
  current: Payment | null;
  executableRails: string[];
  /** The native chain's identity (deposit instructions of the current attempt). */
  chain: PaymentChain;
}

/** Builds the payer projection of `link` with its current attempt (if any). */
export function payerSessionView(sessionViewInput: SessionViewInput): PayerSession {
  const { link, current } = sessionViewInput;
  const rails = computePayableRails({
    status: link.status,
    currency: link.currency,
    allowedRails: link.allowed_rails,
    cryptoOnly: link.crypto_only,
    settlementKind: link.settlement_kind,
    expectedPayerType: link.expected_payer_type_input,
    executableRails: sessionViewInput.executableRails,
    destinationKind: link.settlement_destination_kind,
  });
  const ledger = current
    ? {
        status: current.status as PaymentStatus,
        expected: BigInt(current.amount_expected_minor),
        received: BigInt(current.amount_received_minor),
        underpaidEmitted: current.underpaid_emitted,
        overpaidEmitted: current.overpaid_emitted,
      }
    : null;
  const xchain =
    current &&
    current.payment_rail === 'crypto_xchain' &&
    rails.includes('crypto_xchain') &&
    (current.status === 'awaiting' || current.status === 'underpaid')
      ? crossNetworkDepositInstructionsView(current, sessionViewInput.chain)
      : null;
  const usdc = (minor: string | null) =>
    current && minor !== null ? { amount: minor, currency: current.currency, decimals: current.decimals } : null;
  return {
    object: 'payment_session',
    ...linkHeaderValues(link),
    // Money, never a bare amount (spec 1 rule 1): item unit amounts are in the link currency.
    items: link.items.map((it) => ({
      name: it.name,
      quantity: it.quantity,
      unit_amount: it.unit_amount === null ? null : { amount: String(it.unit_amount), currency: link.currency, decimals: link.decimals },
    })),
    merchant_name: sessionViewInput.account.display_name,
    merchant_contact: sessionViewInput.account.support_contact ?? null,
    short_code: link.short_code,
    rails,
    rails_not_allowed: RAILS_CLOSED.filter((r) => !rails.includes(r)),
    expires_at: link.expires_at?.toISOString() ?? null,
    amount_verdict: ledger ? amountVerdict(ledger, { providerSettled: isBankRail(current!.payment_rail) }) : null,
    network: current?.deposit_chain ?? null,
    stablecoin: current?.stablecoin ?? null,
    // The current cross-network attempt's instructions while it can still be paid (spec 2.4).
    xchain_deposit_instructions: xchain ? [xchain] : [],
    watcher_state: current?.watcher_state ?? null,
    watcher_reason: current?.watcher_reason ?? null,
    settlement_kind: link.settlement_kind,
    settlement_destination:
      link.settlement_kind === 'crypto_only'
        ? { type: 'service_wallet' }
        : link.settlement_destination_id
          ? { type: 'address_book' }
          : null,
    current_payment_id: current?.id ?? null,
    onchain_tx_hash: current?.onchain_tx_hash ?? null,
    paid_at: link.paid_at?.toISOString() ?? null,
    settled_at: link.settled_at?.toISOString() ?? null,
    note: link.memo,
    fee: usdc(current?.fee_minor ?? null),
    deducted_fee: usdc(current ? '0' : null),
    net_amount: usdc(current?.invoice_minor ?? null),
    total_due: usdc(current?.amount_expected_minor ?? null),
    amount_received: usdc(current?.amount_received_minor ?? null),
  };
}

/** Response schema of `payerSessionView`; `token` is added by the short-code lookup. */
export const payerSessionResponse = Joi.object({
  object: kind('payment_session'),
  ...linkHeaderFields,
  items: Joi.array()
    .items(Joi.object({ name: textOrNull(), quantity: Joi.number().integer().required(), unit_amount: moneyOrNull() }))
    .required(),
  merchant_name: text(),
  merchant_contact: supportContactResponse.allow(null).required(),
  short_code: text(),
  rails: strings(),
  rails_not_allowed: strings(),
  expires_at: atOrNull(),
  amount_verdict: textOrNull(),
  network: textOrNull(),
  stablecoin: textOrNull(),
  xchain_deposit_instructions: Joi.array().items(crossNetworkDepositInstructionsResponse).required(),
  watcher_state: textOrNull(),
  watcher_reason: textOrNull(),
  settlement_kind: textOrNull(),
  settlement_destination: Joi.object({ type: text() }).allow(null).required(),
  current_payment_id: textOrNull(),
  onchain_tx_hash: textOrNull(),
  paid_at: atOrNull(),
  settled_at: atOrNull(),
  note: textOrNull(),
  fee: moneyOrNull(),
  deducted_fee: moneyOrNull(),
  net_amount: moneyOrNull(),
  total_due: moneyOrNull(),
  amount_received: moneyOrNull(),
  token: Joi.string(),
});

/** Response of `POST /payment_sessions/{token}/receipt_email` (202). */
export const receiptEmailResponse = Joi.object({ object: kind('receipt_email'), status: text(), email_id: text(), to: text() });
