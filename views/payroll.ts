/**
 * Wire projections of payroll (spec 2.7, 4.4, 6): the run (with item counts by destination
 * readiness), its event payload, the list summary, the readiness preview and the run item. The
 * only place payroll wire field names are spelled. Money is `{amount, currency, decimals}` in the
 * run currency; `funding_confirmed_amount` in the currency actually received.
 */
import Joi from 'joi';
import { currencyDecimals, type Money } from '../domain/money';
import { PAYROLL_ITEM_STATUSES, PAYROLL_RUN_STATUSES, runReference } from '../domain/payroll';
import { FUNDS_RETURN_STATUSES } from '../domain/payroll-returns';
import type { PayrollFundsReturn, PayrollRecipient, PayrollRun, PayrollRunItem, PayrollTemplate } from '../entities';
import { at, atOrNull, bool, int, kind, listEnvelope, money, moneyOrNull, textOrNull } from './schema';
import type {
  PayrollItemEventObject,
  PayrollRecipientsGet,
  PayrollRunEventObject,
  PayrollRunFundsReturnEventObject,
  PayrollRunsCreate,
  PayrollRunsItemsGet,
  PayrollTemplatesCreate,
} from './wire';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const runMoney = (r: { currency: string }, minor: string | bigint): Money => ({
  amount: minor.toString(),
  currency: r.currency,
  decimals: currencyDecimals(r.currency),
});

/** Item counts of a run by destination readiness (`total` = every item). */
export interface PayrollItemCounts {
  total: number;
  destination_ready: number;
  destination_pending_adoption: number;
  destination_missing: number;
}

/** Counts of a run without items. */
export const NO_ITEMS: PayrollItemCounts = Object.freeze({
  total: 0,
  destination_ready: 0,
  destination_pending_adoption: 0,
  destination_missing: 0,
});

/** Folds `(destination_status, count)` rows into item counts. */
export function itemCountsOf(rows: ReadonlyArray<{ destination_status: string; n: number | string }>): PayrollItemCounts {
  const c = { ...NO_ITEMS };
  for (const r of rows) {
    const n = Number(r.n);
    c.total += n;
    if (r.destination_status === 'ready') c.destination_ready += n;
    else if (r.destination_status === 'pending_adoption') c.destination_pending_adoption += n;
    else c.destination_missing += n;
  }
  return c;
}

/** The payroll run (spec 2.7). `pay_period_start` / `pay_period_end` always present (null when unset). */
export function payrollRunView(payrollRun: PayrollRun, counts: PayrollItemCounts): PayrollRunsCreate {
  return {
    id: payrollRun.id,
    object: 'payroll_run',
    livemode: payrollRun.livemode,
    created_at: payrollRun.created_at.toISOString(),
    updated_at: payrollRun.updated_at.toISOString(),
    status: payrollRun.status,
    title: payrollRun.title,
    currency: payrollRun.currency,
    pay_period_start: payrollRun.pay_period_start,
    pay_period_end: payrollRun.pay_period_end,
    funding_method: payrollRun.funding_method,
    funding_state: payrollRun.funding_state,
    needs_attention: payrollRun.needs_attention,
    funding_blocked_reason: payrollRun.funding_blocked_reason,
    run_reference: runReference(payrollRun.id),
    memo: payrollRun.memo,
    item_counts: { ...counts },
    funding_amount: runMoney(payrollRun, payrollRun.total_minor),
    funding_confirmed_amount:
      payrollRun.funding_confirmed_minor === null || payrollRun.funding_confirmed_currency === null
        ? null
        : runMoney({ currency: payrollRun.funding_confirmed_currency }, payrollRun.funding_confirmed_minor),
    template_id: payrollRun.template_id,
    approved_at: iso(payrollRun.approved_at),
    funded_at: iso(payrollRun.funded_at),
    execution_started_at: iso(payrollRun.execution_started_at),
    completed_at: iso(payrollRun.completed_at),
    cancelled_at: iso(payrollRun.cancelled_at),
  };
}

/** Event payload of a run (spec 6): the run as stored, item counts by readiness limited to the total. */
export function payrollRunEventView(payrollRun: PayrollRun): Omit<PayrollRunEventObject, 'type'> {
  const { item_counts: _c, ...rest } = payrollRunView(payrollRun, NO_ITEMS);
  return { ...rest, item_count: payrollRun.item_count };
}

/**
 * One return of money the run owed back (shape ours): `amount` in the funding's currency
 * (run currency, or USDC with 6 decimals), the `source` it went back to (`bank_credit` with the
 * credit id, or `chain_transfer` with `<chain>:<tx hash>`), `provider_reference` (the rail payment
 * id or `<chain>:<tx hash>` of the return; null until accepted), `failure_reason` (snake_case code).
 * The operator's reason is never on the wire.
 */
export function payrollFundsReturnView(payrollFundsReturn: PayrollFundsReturn): PayrollRunFundsReturnEventObject['funds_return'] {
  return {
    id: payrollFundsReturn.id,
    object: 'payroll_funds_return',
    created_at: payrollFundsReturn.created_at.toISOString(),
    status: payrollFundsReturn.status,
    amount: runMoney(payrollFundsReturn, payrollFundsReturn.amount_minor),
    source: { type: payrollFundsReturn.source_kind, reference: payrollFundsReturn.source_ref },
    provider_reference: payrollFundsReturn.provider_ref,
    failure_reason: payrollFundsReturn.failure_reason,
    returned_at: iso(payrollFundsReturn.returned_at),
  };
}

/** Event payload of `payroll_run.funds_returned` / `.funds_return_failed`: the run's event form with the return. */
export function payrollRunFundsReturnEventView(
  run: PayrollRun,
  payrollFundsReturn: PayrollFundsReturn,
): Omit<PayrollRunFundsReturnEventObject, 'type'> {
  return { ...payrollRunEventView(run), funds_return: payrollFundsReturnView(payrollFundsReturn) };
}

/** One run item with its recipient (spec 2.7 items; the shape is ours, docs/decisions/0033-payroll-runs-rows-items-templates.md). */
export function payrollItemView(payrollRunItem: PayrollRunItem, rcp: PayrollRecipient): PayrollRunsItemsGet {
  return {
    id: payrollRunItem.id,
    object: 'payroll_run_item',
    livemode: payrollRunItem.livemode,
    created_at: payrollRunItem.created_at.toISOString(),
    updated_at: payrollRunItem.updated_at.toISOString(),
    run_id: payrollRunItem.run_id,
    position: payrollRunItem.position,
    recipient: { id: rcp.id, name: rcp.name, email: rcp.email },
    amount: runMoney(payrollRunItem, payrollRunItem.amount_minor),
    memo: payrollRunItem.memo,
    status: payrollRunItem.status,
    destination_status: payrollRunItem.destination_status,
    destination: payrollRunItem.destination_masked,
    failure_reason: payrollRunItem.failure_reason,
    return_reason: payrollRunItem.return_reason,
    paid_at: iso(payrollRunItem.paid_at),
  };
}

/** An item in a `payroll_item.*` event payload: the item view with the recipient by id only (no name or email in events). */
export function payrollItemEventView(payrollRunItem: PayrollRunItem): Omit<PayrollItemEventObject, 'type'> {
  const { recipient: _r, ...rest } = payrollItemView(payrollRunItem, {
    id: payrollRunItem.recipient_id,
    name: '',
    email: '',
  } as PayrollRecipient);
  return { ...rest, recipient_id: payrollRunItem.recipient_id };
}

/** A payroll template (spec 4.4; shape ours): rows with Money in the template currency. */
export function payrollTemplateView(payrollTemplate: PayrollTemplate): PayrollTemplatesCreate {
  return {
    id: payrollTemplate.id,
    object: 'payroll_template',
    livemode: payrollTemplate.livemode,
    created_at: payrollTemplate.created_at.toISOString(),
    updated_at: payrollTemplate.updated_at.toISOString(),
    title: payrollTemplate.title,
    currency: payrollTemplate.currency,
    funding_method: payrollTemplate.funding_method,
    memo: payrollTemplate.memo,
    source_run_id: payrollTemplate.source_run_id,
    rows: payrollTemplate.rows.map((r) => ({
      recipient_id: r.recipient_id,
      email: r.email,
      name: r.name,
      amount: runMoney(payrollTemplate, r.amount_minor),
      memo: r.memo,
    })),
  };
}

/**
 * A payroll recipient (spec 4.4): the adopted `destination` and the `pending_destination` the
 * recipient submitted (masked, with `submitted_at`; null when none), never raw details.
 */
export function payrollRecipientView(payrollRecipient: PayrollRecipient): PayrollRecipientsGet {
  return {
    id: payrollRecipient.id,
    object: 'payroll_recipient',
    livemode: payrollRecipient.livemode,
    created_at: payrollRecipient.created_at.toISOString(),
    updated_at: payrollRecipient.updated_at.toISOString(),
    email: payrollRecipient.email,
    name: payrollRecipient.name,
    destination: payrollRecipient.destination_masked,
    pending_destination:
      payrollRecipient.pending_destination_masked && payrollRecipient.pending_submitted_at
        ? {
            destination: payrollRecipient.pending_destination_masked,
            submitted_at: payrollRecipient.pending_submitted_at.toISOString(),
            from_item_id: payrollRecipient.pending_from_item_id,
          }
        : null,
  };
}

const ts = at();
const nTs = atOrNull();

const countsResponse = Joi.object({
  total: int(),
  destination_ready: int(),
  destination_pending_adoption: int(),
  destination_missing: int(),
});

/** The payroll run (spec 2.7). */
export const payrollRunResponse = Joi.object({
  id: Joi.string().pattern(/^pr_/).required(),
  object: kind('payroll_run'),
  livemode: bool(),
  created_at: ts,
  updated_at: ts,
  status: Joi.string()
    .valid(...PAYROLL_RUN_STATUSES)
    .required(),
  title: Joi.string().required(),
  currency: Joi.string().required(),
  // Calendar dates `YYYY-MM-DD` (joi's isoDate is documented as `date-time`, which they are not).
  pay_period_start: Joi.string()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .allow(null)
    .required(),
  pay_period_end: Joi.string()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .allow(null)
    .required(),
  funding_method: Joi.string().valid('fiat', 'crypto').required(),
  funding_state: Joi.string().valid('unfunded', 'partially_funded', 'funded', 'overfunded').required(),
  needs_attention: bool(),
  funding_blocked_reason: textOrNull(),
  run_reference: Joi.string()
    .pattern(/^PAYROLL-[A-Z0-9]{1,12}$/)
    .required(),
  memo: textOrNull(),
  item_counts: countsResponse.required(),
  funding_amount: money(),
  funding_confirmed_amount: moneyOrNull(),
  template_id: textOrNull(),
  approved_at: nTs,
  funded_at: nTs,
  execution_started_at: nTs,
  completed_at: nTs,
  cancelled_at: nTs,
});

/** One funds return (`payrollFundsReturnView`), as the funds-return events carry it. */
export const payrollFundsReturnResponse = Joi.object({
  id: Joi.string()
    .pattern(/^prfr_/)
    .required(),
  object: kind('payroll_funds_return'),
  created_at: ts,
  status: Joi.string()
    .valid(...FUNDS_RETURN_STATUSES)
    .required(),
  amount: money(),
  source: Joi.object({
    type: Joi.string().valid('bank_credit', 'chain_transfer').required(),
    reference: Joi.string().required(),
  }).required(),
  provider_reference: textOrNull(),
  failure_reason: textOrNull(),
  returned_at: nTs,
});

/** `summary` of `GET /payroll_runs?expand=summary` (spec 4.4). */
export const payrollRunSummaryResponse = Joi.object({ needs_action: int(), in_progress: int(), completed: int(), total: int() });

export const payrollRunListResponse = listEnvelope(payrollRunResponse, payrollRunSummaryResponse);

/** Readiness preview (spec 2.7). */
export const payrollReadinessResponse = Joi.object({
  object: kind('payroll_run_readiness'),
  run_id: Joi.string().required(),
  ready: bool(),
  blockers: Joi.array().items(Joi.string()).required(),
});

/** One run item. */
export const payrollItemResponse = Joi.object({
  id: Joi.string().pattern(/^pri_/).required(),
  object: kind('payroll_run_item'),
  livemode: bool(),
  created_at: ts,
  updated_at: ts,
  run_id: Joi.string().required(),
  position: int(),
  recipient: Joi.object({ id: Joi.string().required(), name: Joi.string().required(), email: Joi.string().required() }).required(),
  amount: money(),
  memo: textOrNull(),
  status: Joi.string()
    .valid(...PAYROLL_ITEM_STATUSES)
    .required(),
  destination_status: Joi.string().valid('missing', 'pending_adoption', 'ready').required(),
  destination: Joi.object().unknown(true).allow(null).required(),
  failure_reason: textOrNull(),
  return_reason: textOrNull(),
  paid_at: nTs,
});

export const payrollItemListResponse = listEnvelope(payrollItemResponse);

/** A payroll recipient. */
export const payrollRecipientResponse = Joi.object({
  id: Joi.string().pattern(/^prc_/).required(),
  object: kind('payroll_recipient'),
  livemode: bool(),
  created_at: ts,
  updated_at: ts,
  email: Joi.string().required(),
  name: Joi.string().required(),
  destination: Joi.object().unknown(true).allow(null).required(),
  pending_destination: Joi.object({
    destination: Joi.object().unknown(true).required(),
    submitted_at: ts,
    from_item_id: textOrNull(),
  })
    .allow(null)
    .required(),
});

export const payrollRecipientListResponse = listEnvelope(payrollRecipientResponse);

/** A payroll template. */
export const payrollTemplateResponse = Joi.object({
  id: Joi.string().pattern(/^prt_/).required(),
  object: kind('payroll_template'),
  livemode: bool(),
  created_at: ts,
  updated_at: ts,
  title: Joi.string().required(),
  currency: Joi.string().required(),
  funding_method: Joi.string().valid('fiat', 'crypto').required(),
  memo: textOrNull(),
  source_run_id: textOrNull(),
  rows: Joi.array()
    .items(
      Joi.object({
        recipient_id: textOrNull(),
        email: textOrNull(),
        name: textOrNull(),
        amount: money(),
        memo: textOrNull(),
      }),
    )
    .required(),
});

export const payrollTemplateListResponse = listEnvelope(payrollTemplateResponse);
