/**
 * Wire projection of a payment link (`pl_`, spec 2.3), its ReminderSchedule and its receipt.
 * `payable_rails` and `expected_payer_type` are computed on every read from the stored link and
 * the account's executable rails (a `LinkViewContext` the caller passes in). No I/O.
 */
import { computePayableRails, expectedPayerTypeOf } from '../domain/rails';
import { linkNextReminderAt, type ReminderSchedule } from '../domain/reminders';
import type { LinkItem, Payment, PaymentLink } from '../entities';
import Joi from 'joi';
import { at, atOrNull, bool, int, kind, money, moneyOrNull, strings, stringsOrNull, text, textOrNull } from './schema';
import type { PaymentLinksCreate, PaymentLinksGetReceipt, PaymentLinksReminderScheduleGet, PaymentSessionsGet } from './wire';

/**
 * What a link projection needs beyond the row: the payer host and the rails the account can
 * execute now. Built by the caller (lib/rails-availability.ts `linkViewContext`).
 */
export interface LinkViewContext {
  /** Origin of payer URLs, no trailing slash, e.g. `https://pay.example`. */
  payerHost: string;
  /** Rails executable for the account now (spec 2.3 payable_rails input). */
  executableRails: string[];
}

/** ReminderSchedule wire shape (spec 2.3): `{ status, offsets_days, sent, next_reminder_at }`. */
export function reminderScheduleView(link: PaymentLink): PaymentLinksReminderScheduleGet {
  const s: ReminderSchedule = link.reminder_schedule;
  return {
    status: s.status,
    offsets_days: [...s.offsets_days],
    sent: [...s.sent],
    next_reminder_at: linkNextReminderAt(link)?.toISOString() ?? null,
  };
}

function itemView(it: LinkItem, currency: string, decimals: number): PaymentLinksCreate['items'][number] {
  return {
    name: it.name,
    product_id: it.product_id,
    quantity: it.quantity,
    unit_amount: it.unit_amount === null ? null : { amount: it.unit_amount, currency, decimals },
  };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * The invoice header of a link as both the merchant's link and the payer's session show it
 * (spec 2.3, 4.1): status, title, memo, invoice number, reference id and the amount (Money, minor units).
 */
export function linkHeaderValues(
  link: PaymentLink,
): Pick<PaymentSessionsGet, 'status' | 'title' | 'memo' | 'invoice_number' | 'reference_id' | 'amount'> {
  return {
    status: link.status,
    title: link.title,
    memo: link.memo,
    invoice_number: link.invoice_number,
    reference_id: link.reference_id,
    amount: { amount: String(link.amount_minor), currency: link.currency, decimals: link.decimals },
  };
}

/**
 * The payment link wire view (spec 2.3). `url`/`short_url` are null until activation mints the
 * payer token; `payable_rails` is computed now; `expected_payer_type` is the grouping of
 * `payable_rails`, or the caller's requested type while nothing is payable (e.g. a draft);
 * `partial_payment` is non-null only while `processing`. Amounts are Money strings.
 */
export function paymentLinkView(link: PaymentLink, ctx: LinkViewContext): PaymentLinksCreate {
  const payable = computePayableRails({
    status: link.status,
    currency: link.currency,
    allowedRails: link.allowed_rails,
    cryptoOnly: link.crypto_only,
    settlementKind: link.settlement_kind,
    expectedPayerType: link.expected_payer_type_input,
    executableRails: ctx.executableRails,
    destinationKind: link.settlement_destination_kind,
  });
  const url = link.payer_token ? `${ctx.payerHost}/pay/${link.payer_token}` : null;
  return {
    id: link.id,
    object: 'payment_link',
    livemode: link.livemode,
    created_at: link.created_at.toISOString(),
    updated_at: link.updated_at.toISOString(),
    ...linkHeaderValues(link),
    client_id: link.client_id,
    direction: link.direction,
    expected_payer_type: expectedPayerTypeOf(payable) ?? link.expected_payer_type_input ?? null,
    allowed_rails: link.allowed_rails ? [...link.allowed_rails] : null,
    payable_rails: payable,
    accepted_rail_kinds: link.accepted_rail_kinds ? [...link.accepted_rail_kinds] : null,
    expires_at: iso(link.expires_at),
    payer_email: link.payer_email,
    reminder_schedule: reminderScheduleView(link),
    settlement_kind: link.settlement_kind,
    settlement_asset: link.settlement_asset ? { ...link.settlement_asset } : null,
    settlement_destination: link.settlement_destination_id ? { address_book_id: link.settlement_destination_id } : null,
    items: (link.items ?? []).map((it) => itemView(it, link.currency, link.decimals)),
    url,
    short_code: link.short_code,
    short_url: url ? `${ctx.payerHost}/p/${link.short_code}` : null,
    activated_at: iso(link.activated_at),
    viewed_at: iso(link.viewed_at),
    paid_at: iso(link.paid_at),
    settled_at: iso(link.settled_at),
    cancelled_at: iso(link.cancelled_at),
    expired_at: iso(link.expired_at),
    invoice_sent_at: iso(link.invoice_sent_at),
    latest_attempt_status: link.latest_attempt_status,
    partial_payment:
      link.status === 'processing' && link.partial_payment
        ? { payment_id: link.partial_payment.payment_id, received: link.partial_payment.received }
        : null,
  };
}

/**
 * Receipt of a paid or settled link (`GET /payment_links/{id}/receipt`): the link's references
 * and, from its paid payment (`payments` row; amounts in the settlement asset, e.g. USDC 6
 * decimals), `invoice`, `fee` (payer-borne), `total_paid` (everything received), `surplus`,
 * transaction hashes and times. Payment fields are null when no paid payment row exists.
 */
export function linkReceiptView(link: PaymentLink, paid: Payment | null): PaymentLinksGetReceipt {
  const m = (minor: string | null | undefined) =>
    paid && minor !== null && minor !== undefined ? { amount: String(minor), currency: paid.currency, decimals: paid.decimals } : null;
  return {
    object: 'payment_link_receipt',
    livemode: link.livemode,
    payment_link_id: link.id,
    reference_id: link.reference_id,
    title: link.title,
    invoice_number: link.invoice_number,
    status: link.status,
    amount: { amount: String(link.amount_minor), currency: link.currency, decimals: link.decimals },
    payment_id: paid?.id ?? null,
    payment_rail: paid?.payment_rail ?? null,
    invoice: m(paid?.invoice_minor),
    fee: m(paid?.fee_minor),
    total_paid: m(paid?.amount_received_minor),
    surplus: paid?.surplus_minor && paid.surplus_minor !== '0' ? m(paid.surplus_minor) : null,
    onchain_tx_hash: paid?.onchain_tx_hash ?? null,
    settlement_tx_hash: paid?.settlement_tx_hash ?? null,
    payer_email: paid?.payer_email ?? link.payer_email,
    paid_at: iso(paid?.paid_at ?? link.paid_at),
    settled_at: iso(paid?.settled_at ?? link.settled_at),
  };
}

/** Response schema of `reminderScheduleView` (spec 2.3 ReminderSchedule). */
export const reminderScheduleResponse = Joi.object({
  status: text(),
  offsets_days: Joi.array().items(Joi.number().integer()).required(),
  sent: strings(),
  next_reminder_at: atOrNull(),
});

/** The invoice header of a link, the same in the merchant's link and the payer's session. */
export const linkHeaderFields = {
  status: text(),
  title: text(),
  memo: textOrNull(),
  invoice_number: textOrNull(),
  reference_id: text(),
  amount: money(),
};

/** Response schema of `paymentLinkView` (spec 2.3). */
export const paymentLinkResponse = Joi.object({
  id: text(),
  object: kind('payment_link'),
  livemode: bool(),
  created_at: at(),
  updated_at: at(),
  ...linkHeaderFields,
  client_id: textOrNull(),
  direction: textOrNull(),
  expected_payer_type: textOrNull(),
  allowed_rails: stringsOrNull(),
  payable_rails: strings(),
  accepted_rail_kinds: stringsOrNull(),
  expires_at: atOrNull(),
  payer_email: textOrNull(),
  reminder_schedule: reminderScheduleResponse.required(),
  settlement_kind: textOrNull(),
  settlement_asset: Joi.object({ chain: text(), asset: text(), token_address: text(), decimals: int() }).allow(null).required(),
  settlement_destination: Joi.object({ address_book_id: text() }).allow(null).required(),
  items: Joi.array()
    .items(Joi.object({ name: textOrNull(), product_id: textOrNull(), quantity: int(), unit_amount: moneyOrNull() }))
    .required(),
  url: textOrNull(),
  short_code: text(),
  short_url: textOrNull(),
  activated_at: atOrNull(),
  viewed_at: atOrNull(),
  paid_at: atOrNull(),
  settled_at: atOrNull(),
  cancelled_at: atOrNull(),
  expired_at: atOrNull(),
  invoice_sent_at: atOrNull(),
  latest_attempt_status: textOrNull(),
  // Spec 2.3: may be absent (and is null outside `processing`).
  partial_payment: Joi.object({ payment_id: text(), received: moneyOrNull() }).allow(null),
});

/** Response schema of `linkReceiptView`. */
export const linkReceiptResponse = Joi.object({
  object: kind('payment_link_receipt'),
  livemode: bool(),
  payment_link_id: text(),
  reference_id: text(),
  title: text(),
  invoice_number: textOrNull(),
  status: text(),
  amount: money(),
  payment_id: textOrNull(),
  payment_rail: textOrNull(),
  invoice: moneyOrNull(),
  fee: moneyOrNull(),
  total_paid: moneyOrNull(),
  surplus: moneyOrNull(),
  onchain_tx_hash: textOrNull(),
  settlement_tx_hash: textOrNull(),
  payer_email: textOrNull(),
  paid_at: atOrNull(),
  settled_at: atOrNull(),
});
