/**
 * joi schemas of the payroll area (spec 2.7, 4.4): request bodies and queries (unknown body keys
 * are 400, api/operation.ts). Row semantics (one recipient form, run currency, duplicates, caps)
 * are checked by domain/payroll-rows.ts with the codes recorded in docs/decisions.md; joi checks
 * shapes only. The success bodies live in views/payroll.ts.
 */
import Joi from './joi';
import { PAYROLL_CURRENCIES, PAYROLL_STATUS_GROUPS } from '../../domain/payroll';
import { ROW_EMAIL_MAX, ROW_MEMO_MAX, ROW_NAME_MAX } from '../../domain/payroll-rows';
import { listQuery, moneyPositive } from './common';

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 is 400). */
const isoDate = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/).custom((v: string, h) => {
  const d = new Date(`${v}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v ? h.error('any.invalid') : v;
});

/** One row (docs/decisions.md "Payroll (issue 13)"): `recipient_id`, or `email` + `name`; `amount` in the run currency. */
export const payrollRowBody = Joi.object({
  recipient_id: Joi.string().max(140).allow(null),
  email: Joi.string().max(ROW_EMAIL_MAX).allow(null),
  name: Joi.string().max(ROW_NAME_MAX + 50).allow(null),
  amount: moneyPositive.required(),
  memo: Joi.string().max(ROW_MEMO_MAX + 50).allow('', null),
});

/**
 * `POST /payroll_runs` body (spec 4.4). More than 500 rows is answered 422 by the caps check, so
 * joi bounds only the body size. `title` and `currency` are required unless `template_id` gives
 * them (checked by the command: 400 `parameter_missing`).
 */
export const createPayrollRunBody = Joi.object({
  title: Joi.string().trim().min(1).max(200),
  currency: Joi.string().valid(...PAYROLL_CURRENCIES),
  template_id: Joi.string().max(140),
  pay_period_start: isoDate.allow(null),
  pay_period_end: isoDate.allow(null),
  funding_method: Joi.string().valid('fiat', 'crypto'),
  memo: Joi.string().trim().max(500).allow('', null),
  rows: Joi.array().items(payrollRowBody).max(1000),
});

/** `GET /payroll_runs` query (spec 4.4). */
export const listPayrollRunsQuery = Joi.object({
  ...listQuery,
  status_group: Joi.string().valid(...Object.keys(PAYROLL_STATUS_GROUPS)),
});

/** `POST /payroll_templates` body: rows, or `from_run_id` (exactly one, checked by the command). */
export const createPayrollTemplateBody = Joi.object({
  title: Joi.string().trim().min(1).max(200),
  currency: Joi.string().valid(...PAYROLL_CURRENCIES),
  funding_method: Joi.string().valid('fiat', 'crypto'),
  memo: Joi.string().trim().max(500).allow('', null),
  rows: Joi.array().items(payrollRowBody).max(1000),
  from_run_id: Joi.string().max(140),
});
