/**
 * Wire projections of payroll destinations (spec 4.4 recipient sessions, adoption, reissue_link):
 * the recipient session (public token: what this recipient will be paid, never other
 * recipients nor raw details), the adoption result, the reissued link, and the masked destination's
 * response schema. The only place these wire names are spelled. Money is the item amount in the
 * run currency (bigint minor units as a string).
 */
import Joi from 'joi';
import { currencyDecimals } from '../domain/money';
import { PAYROLL_ITEM_STATUSES, PAYROLL_RUN_STATUSES } from '../domain/payroll';
import type { AdoptionSkipReason, SessionClosedReason } from '../domain/payroll-destinations';
import type { PayrollRecipient, PayrollRun, PayrollRunItem } from '../entities';
import { maskedBeneficiaryOut } from './beneficiary';
import { atOrNull, bool, kind, money, textOrNull } from './schema';
import { payrollItemResponse, payrollItemView, payrollRecipientResponse, payrollRecipientView } from './payroll';
import type { PayrollRecipientSessionsGet, PayrollRecipientsAdoptPendingDestination, PayrollRunsItemsReissueLink } from './wire';

/** The recipient session as the document serves it (`GET /payroll_recipient_sessions/{token}`, spec 4.4). */
export type RecipientSession = PayrollRecipientSessionsGet;

/** The recipient session URL of a token (`<payer_host>/payroll/<prk_token>`). */
export function recipientSessionUrl(payerHost: string, token: string): string {
  return `${payerHost}/payroll/${token}`;
}

/** What a recipient session shows (spec 4.4): the item, its run, the payer's name and the recipient. */
export interface RecipientSessionInputs {
  item: PayrollRunItem;
  run: PayrollRun;
  recipient: PayrollRecipient;
  payerDisplayName: string;
  closedReason: SessionClosedReason | null;
}

/**
 * The recipient session (public token): the amount, run title, payer, pay period, memo (the item's,
 * else the run's), the item status, the masked destination the item will be paid to (null when
 * none), the pending one awaiting the business's adoption (masked; null when none) and whether this
 * link may still submit (`can_submit`, with `submit_closed_reason` when not).
 */
export function recipientSessionView(recipientSessionInputs: RecipientSessionInputs): RecipientSession {
  const { item, run, recipient } = recipientSessionInputs;
  const pending = recipient.pending_destination_masked && recipient.pending_submitted_at ? recipient.pending_destination_masked : null;
  return {
    object: 'payroll_recipient_session',
    livemode: item.livemode,
    recipient_name: recipient.name,
    amount: { amount: item.amount_minor, currency: item.currency, decimals: currencyDecimals(item.currency) },
    run_title: run.title,
    run_status: run.status,
    payer: { display_name: recipientSessionInputs.payerDisplayName },
    pay_period_start: run.pay_period_start,
    pay_period_end: run.pay_period_end,
    memo: item.memo ?? run.memo,
    item_status: item.status,
    paid_at: item.paid_at ? item.paid_at.toISOString() : null,
    destination: item.destination_masked,
    pending_destination: pending,
    destination_pending_adoption: pending !== null,
    submitted_at: item.session_submitted_at ? item.session_submitted_at.toISOString() : null,
    can_submit: recipientSessionInputs.closedReason === null,
    submit_closed_reason: recipientSessionInputs.closedReason,
  };
}

/** The result of an adoption: the recipient, the items updated and those skipped with their reason. */
export function adoptionView(
  recipient: PayrollRecipient,
  updated: readonly string[],
  skipped: ReadonlyArray<{ id: string; runId: string; reason: AdoptionSkipReason }>,
): PayrollRecipientsAdoptPendingDestination {
  return {
    ...payrollRecipientView(recipient),
    updated_run_items: [...updated],
    skipped_run_items: skipped.map((x) => ({ id: x.id, run_id: x.runId, reason: x.reason })),
  };
}

/** The item after `reissue_link`, with the new session (the only place a token is handed out). */
export function reissuedLinkView(item: PayrollRunItem, recipient: PayrollRecipient, payerHost: string): PayrollRunsItemsReissueLink {
  return {
    ...payrollItemView(item, recipient),
    recipient_session: { token: item.session_token, url: recipientSessionUrl(payerHost, item.session_token) },
  };
}

/** A masked destination: a masked bank account or a shortened wallet address. */
export const maskedDestinationOut = Joi.alternatives().try(
  Joi.object({ type: Joi.string().valid('bank_account').required(), bank: maskedBeneficiaryOut.required() }),
  Joi.object({
    type: Joi.string().valid('wallet').required(),
    chain: Joi.string().required(),
    asset: Joi.string().required(),
    address_masked: Joi.string().required(),
  }),
);

/** The recipient session (public token). */
export const recipientSessionResponse = Joi.object({
  object: kind('payroll_recipient_session'),
  livemode: bool(),
  recipient_name: Joi.string().required(),
  amount: money(),
  run_title: Joi.string().required(),
  run_status: Joi.string()
    .valid(...PAYROLL_RUN_STATUSES)
    .required(),
  payer: Joi.object({ display_name: Joi.string().allow('').required() }).required(),
  pay_period_start: Joi.string().isoDate().allow(null).required(),
  pay_period_end: Joi.string().isoDate().allow(null).required(),
  memo: textOrNull(),
  item_status: Joi.string()
    .valid(...PAYROLL_ITEM_STATUSES)
    .required(),
  paid_at: atOrNull(),
  destination: maskedDestinationOut.allow(null).required(),
  pending_destination: maskedDestinationOut.allow(null).required(),
  destination_pending_adoption: bool(),
  submitted_at: atOrNull(),
  can_submit: bool(),
  submit_closed_reason: Joi.string().valid('destination_already_submitted', 'run_not_open', 'item_in_payment').allow(null).required(),
});

/** `POST /payroll_recipients/{id}/adopt_pending_destination`. */
export const adoptionResponse = payrollRecipientResponse.keys({
  updated_run_items: Joi.array().items(Joi.string().pattern(/^pri_/)).required(),
  skipped_run_items: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().pattern(/^pri_/).required(),
        run_id: Joi.string().pattern(/^pr_/).required(),
        reason: Joi.string().valid('run_not_open', 'item_in_payment', 'item_finished').required(),
      }),
    )
    .required(),
});

/** `POST /payroll_runs/{id}/items/{item_id}/reissue_link` (`recipient_session` is null in an idempotent replay: the token is never stored). */
export const reissuedLinkResponse = payrollItemResponse.keys({
  recipient_session: Joi.object({ token: Joi.string().pattern(/^prk_/).required(), url: Joi.string().uri().required() })
    .allow(null)
    .required(),
});
