/**
 * joi schemas of the payroll area (spec 2.7, 4.4): request bodies and queries (unknown body keys
 * are 400, api/operation/validate.ts). Row semantics (one recipient form, run currency, duplicates, caps)
 * are checked by domain/payroll-rows.ts with the codes recorded in
 * docs/decisions/0033-payroll-runs-rows-items-templates.md; joi checks shapes only. The success bodies live in views/payroll.ts.
 */
import Joi from './joi';
import { PAYROLL_CURRENCIES, PAYROLL_STATUS_GROUPS } from '../../domain/payroll';
import { ROW_EMAIL_MAX, ROW_MEMO_MAX, ROW_NAME_MAX } from '../../domain/payroll-rows';
import { documentedAlso, documentedAs, listQuery, moneyPositive } from './common';

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 is 400); documented as `format: date`. */
const isoDate = documentedAs(
  Joi.string()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .custom((v: string, h) => {
      const d = new Date(`${v}T00:00:00Z`);
      return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v ? h.error('any.invalid') : v;
    }),
  { type: 'string', format: 'date', pattern: '^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$', examples: ['2026-03-01'] },
);

/**
 * One row (docs/decisions/0033-payroll-runs-rows-items-templates.md, "Row shape"): `recipient_id`, or `email` + `name`; `amount`
 * in the run currency. domain/payroll-rows.ts checks the recipient form with its own codes
 * (`recipient_ambiguous`, `recipient_required`, `email_invalid`, `parameter_missing`); the document
 * states it: a `prc_` id and no contact, or an address and a name that is not blank.
 */
export const payrollRowBody = documentedAlso(
  Joi.object({
    recipient_id: Joi.string().max(140).allow(null),
    email: Joi.string().max(ROW_EMAIL_MAX).allow(null),
    name: Joi.string()
      .max(ROW_NAME_MAX + 50)
      .allow(null),
    amount: moneyPositive.required(),
    memo: Joi.string()
      .max(ROW_MEMO_MAX + 50)
      .allow('', null),
  }),
  {
    anyOf: [
      { required: ['recipient_id'], properties: { recipient_id: { type: 'string', pattern: '^prc_' } } },
      {
        required: ['email', 'name'],
        properties: {
          email: { type: 'string', pattern: '^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$' },
          name: { type: 'string', pattern: `^\\s*\\S(?:.{0,${ROW_NAME_MAX - 2}}\\S)?\\s*$` },
        },
      },
    ],
    // Not both forms: a `recipient_id` with an `email` or a `name` is `recipient_ambiguous`.
    not: {
      anyOf: ['email', 'name'].map((k) => ({
        required: ['recipient_id', k],
        properties: { recipient_id: { type: 'string', minLength: 1 }, [k]: { type: 'string', minLength: 1 } },
      })),
    },
  },
);

/**
 * A run or template names its currency (or takes its template's) and pays every row in it
 * (`400 parameter_missing` / `currency_mismatch` from the command): one alternative per currency.
 */
function inCurrency(extra: Record<string, unknown>): Record<string, unknown>[] {
  return PAYROLL_CURRENCIES.map((c) => ({
    ...extra,
    required: ['title', 'currency', ...((extra.required as string[] | undefined) ?? [])],
    properties: {
      title: {},
      ...(extra.properties as object | undefined),
      currency: { const: c },
      ...((extra.properties as Record<string, unknown> | undefined)?.rows === false
        ? {}
        : { rows: { items: { properties: { amount: { properties: { currency: { const: c } } } } } } }),
    },
  }));
}

/**
 * `POST /payroll_runs` body (spec 4.4). More than 500 rows is answered 422 by the caps check, so
 * joi bounds only the body size. `title` and `currency` are required unless `template_id` gives
 * them (checked by the command: 400 `parameter_missing`).
 */
export const createPayrollRunBody = documentedAlso(
  Joi.object({
    title: Joi.string().trim().min(1).max(200),
    currency: Joi.string().valid(...PAYROLL_CURRENCIES),
    template_id: Joi.string().max(140),
    pay_period_start: isoDate.allow(null),
    pay_period_end: isoDate.allow(null),
    funding_method: Joi.string().valid('fiat', 'crypto'),
    memo: Joi.string().trim().max(500).allow('', null),
    rows: Joi.array().items(payrollRowBody).max(1000),
  }).example({
    title: 'March payroll',
    currency: 'USD',
    pay_period_start: '2026-03-01',
    pay_period_end: '2026-03-31',
    funding_method: 'fiat',
    memo: 'Monthly contractors',
    rows: [
      { email: 'ana@contractor.example', name: 'Ana Souza', amount: { amount: '150000', currency: 'USD', decimals: 2 }, memo: 'March' },
      { email: 'bo@contractor.example', name: 'Bo Chen', amount: { amount: '90000', currency: 'USD', decimals: 2 }, memo: 'March' },
    ],
  }),
  { anyOf: [{ required: ['template_id'], properties: { template_id: {} } }, ...inCurrency({})] },
);

/** `GET /payroll_runs` query (spec 4.4). */
export const listPayrollRunsQuery = Joi.object({
  ...listQuery,
  status_group: Joi.string().valid(...Object.keys(PAYROLL_STATUS_GROUPS)),
});

/** `POST /payroll_templates` body: rows, or `from_run_id` (exactly one, checked by the command). */
export const createPayrollTemplateBody = documentedAlso(
  Joi.object({
    title: Joi.string().trim().min(1).max(200),
    currency: Joi.string().valid(...PAYROLL_CURRENCIES),
    funding_method: Joi.string().valid('fiat', 'crypto'),
    memo: Joi.string().trim().max(500).allow('', null),
    rows: Joi.array().items(payrollRowBody).max(1000),
    from_run_id: Joi.string().max(140),
  }).example({
    title: 'Monthly contractors',
    currency: 'USD',
    funding_method: 'fiat',
    memo: 'Every month',
    rows: [
      { email: 'ana@contractor.example', name: 'Ana Souza', amount: { amount: '150000', currency: 'USD', decimals: 2 }, memo: 'Monthly' },
    ],
  }),
  {
    // Exactly one of `rows` (with `title` and `currency`) and `from_run_id` (400 `parameter_invalid` / `parameter_missing`).
    anyOf: [
      { required: ['from_run_id'], properties: { from_run_id: {}, rows: false } },
      ...inCurrency({ required: ['rows'], properties: { rows: {}, from_run_id: false } }),
    ],
  },
);
