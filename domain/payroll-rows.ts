/**
 * Payroll rows and export (spec 2.7, 4.4; the row shape is ours:
 * docs/decisions/0033-payroll-runs-rows-items-templates.md). A row names its recipient either by `recipient_id` (`prc_`, a recipient the
 * account already has) or by `email` + `name` (found or created by email), and carries `amount`
 * (MoneyPositive in the run currency) and an optional `memo`. The export is RFC 4180 CSV, written by
 * csv-stringify (sync API: a pure function of the rows) with our formula-injection guard on top.
 *
 * Pure: no I/O, safe in workflows.
 */
// The browser build: the Node build reads the `Buffer` global when it loads, which the workflow sandbox lacks.
import { stringify } from 'csv-stringify/browser/esm/sync';
import { invalidRequest } from './errors';
import { formatMajor, toMinorPositive, type Money } from './money';
import { ID_PREFIXES } from './ids';
import { checkPayrollCaps } from './payroll';

/** Recipient id prefix (ours; spec part 2 lists `pr_` only). */
export const PAYROLL_RECIPIENT_PREFIX = ID_PREFIXES.payroll_recipient;

/** Longest `name`, `memo` and `email` of a row (characters). */
export const ROW_NAME_MAX = 200;
export const ROW_MEMO_MAX = 140;
export const ROW_EMAIL_MAX = 254;

/** A row as the request carries it (`POST /payroll_runs` `rows[]`, `POST /payroll_templates` `rows[]`). */
export interface PayrollRowInput {
  recipient_id?: string | null;
  email?: string | null;
  name?: string | null;
  amount: Money;
  memo?: string | null;
}

/** A validated row: exactly one of `recipientId` or (`email`, `name`); `amount` in minor units of the run currency. */
export interface PayrollRow {
  recipientId: string | null;
  /** Lower-cased, trimmed; null when the row names a recipient by id. */
  email: string | null;
  name: string | null;
  amount: bigint;
  memo: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Lower-cases and trims an email; null when it does not look like one. */
export function normalizeEmail(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return v.length <= ROW_EMAIL_MAX && EMAIL.test(v) ? v : null;
}

function text(v: unknown, max: number, param: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalidRequest('parameter_invalid', `${param} must be a string.`, param);
  const t = v.trim();
  if (t.length > max) throw invalidRequest('parameter_invalid', `${param} is longer than ${max} characters.`, param);
  return t === '' ? null : t;
}

/**
 * Validates the rows of a run or template in `currency` (400 `invalid_request`, param
 * `rows[i].<field>`), then the caps (422 `payroll_cap_exceeded`, see `checkPayrollCaps`):
 * - `recipient_id` together with `email` or `name`: `recipient_ambiguous`; neither: `recipient_required`;
 * - `email` malformed: `email_invalid`; `name` blank: `parameter_missing`;
 * - `amount` not MoneyPositive: `amount_invalid`; in another currency: `currency_mismatch`;
 * - the same recipient twice (same id, or same email): `duplicate_recipient` with `details.first_row`.
 * Zero rows are valid (the run is then blocked by `run_has_no_rows`).
 */
export function validateRows(rows: readonly PayrollRowInput[], currency: string): PayrollRow[] {
  const out: PayrollRow[] = [];
  const seen = new Map<string, number>();
  checkPayrollCaps(
    rows.map(() => 0n),
    currency,
  ); // the row count first, before any per-row message
  rows.forEach((r, i) => {
    const p = (f: string) => `rows[${i}].${f}`;
    const hasId = r.recipient_id !== undefined && r.recipient_id !== null;
    const hasContact = (r.email ?? null) !== null || (r.name ?? null) !== null;
    if (hasId && hasContact)
      throw invalidRequest('recipient_ambiguous', 'Name a recipient by recipient_id or by email and name, not both.', p('recipient_id'));
    if (!hasId && !hasContact) throw invalidRequest('recipient_required', 'Each row needs recipient_id, or email and name.', p('email'));
    let email: string | null = null;
    let name: string | null = null;
    if (!hasId) {
      email = normalizeEmail(r.email);
      if (email === null) throw invalidRequest('email_invalid', 'email is not a valid address.', p('email'));
      name = text(r.name, ROW_NAME_MAX, p('name'));
      if (name === null) throw invalidRequest('parameter_missing', 'name is required with email.', p('name'));
    } else if (typeof r.recipient_id !== 'string' || !r.recipient_id.startsWith(PAYROLL_RECIPIENT_PREFIX)) {
      throw invalidRequest('parameter_invalid', 'recipient_id must be a prc_ id.', p('recipient_id'));
    }
    const amount = toMinorPositive(r.amount, p('amount'));
    if (r.amount.currency !== currency) {
      throw invalidRequest('currency_mismatch', `Every row is paid in the run currency ${currency}.`, p('amount'), { currency });
    }
    const key = hasId ? `id:${r.recipient_id}` : `email:${email}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalidRequest(
        'duplicate_recipient',
        `Row ${i} pays the same recipient as row ${first}; combine them into one row.`,
        hasId ? p('recipient_id') : p('email'),
        { first_row: first },
      );
    }
    seen.set(key, i);
    out.push({ recipientId: hasId ? (r.recipient_id as string) : null, email, name, amount, memo: text(r.memo, ROW_MEMO_MAX, p('memo')) });
  });
  checkPayrollCaps(
    out.map((r) => r.amount),
    currency,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// CSV export (RFC 4180), written by csv-stringify
// (docs/decisions/0072-libraries-for-csv-iso-and-month-arithmetic.md); the formula guard is ours.

/**
 * csv-stringify's options for our CSV: `,` between fields, CRLF after every record (the last too),
 * `"` quotes with inner quotes doubled; a field is quoted when it holds `"` or `,` (the library's
 * rule), CR or LF (`quote_record_delimiter`: the library's default only without a
 * `record_delimiter`, so it is named) or starts or ends with a space (`quoted_match`); null is the
 * empty field. tests/unit/payroll-export-csv.test.ts pins the bytes.
 */
const CSV_OPTIONS = Object.freeze({
  delimiter: ',',
  record_delimiter: '\r\n',
  quote: '"',
  escape: '"',
  quote_record_delimiter: true,
  quoted_match: /^ | $/,
  eof: true,
});

/** A text field starting with one of these is what a spreadsheet would evaluate (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Neutralizes formula injection: a text field starting with `=`, `+`, `-`, `@`, TAB or CR is
 * prefixed with `'` so a spreadsheet never evaluates it. Only for text someone typed; `raw` (amounts,
 * ids, timestamps we produced) is returned as is. null stays null (the empty field).
 */
function guardFormula(v: string | null, raw: boolean): string | null {
  return v !== null && !raw && FORMULA_START.test(v) ? `'${v}` : v;
}

/** Records as CSV lines (csv-stringify, CSV_OPTIONS); `header` first when given. */
function csvLines(records: ReadonlyArray<ReadonlyArray<string | null>>, header?: readonly string[]): string {
  return stringify(records as Array<Array<string | null>>, { ...CSV_OPTIONS, ...(header ? { header: true, columns: [...header] } : {}) });
}

/**
 * One CSV field (RFC 4180): quoted when it holds `"`, `,`, CR or LF or starts or ends with a
 * space, inner quotes doubled. A text field starting with `=`, `+`, `-`, `@`, TAB or CR is
 * prefixed with `'` so a spreadsheet never evaluates it (CSV injection); pass `raw` for a field
 * we produced ourselves (amounts, ids, timestamps). null is the empty field.
 */
export function csvField(value: string | null, raw = false): string {
  return csvLines([[guardFormula(value, raw)]]).slice(0, -CSV_OPTIONS.record_delimiter.length);
}

/** Columns of `GET /payroll_runs/{id}/export`, in order. */
export const PAYROLL_EXPORT_COLUMNS = Object.freeze([
  'item_id',
  'recipient_id',
  'recipient_name',
  'recipient_email',
  'amount',
  'currency',
  'status',
  'destination',
  'failure_reason',
  'paid_at',
  'memo',
] as const);

/** One item as exported (amount as Money; `destination` already masked; `paid_at` ISO 8601 or null). */
export interface PayrollExportItem {
  item_id: string;
  recipient_id: string;
  recipient_name: string;
  recipient_email: string;
  amount: Money;
  status: string;
  destination: string | null;
  failure_reason: string | null;
  paid_at: string | null;
  memo: string | null;
}

/**
 * The export document: a header line then one line per item, CRLF line ends (RFC 4180), amount
 * as a major-unit decimal ("1234.56") with `currency` beside it. Text the business or the
 * recipient typed (name, email, memo) is neutralized against formula injection.
 */
export function payrollExportCsv(items: readonly PayrollExportItem[]): string {
  const text = (v: string | null) => guardFormula(v, false);
  return csvLines(
    items.map((it) => [
      it.item_id,
      it.recipient_id,
      text(it.recipient_name),
      text(it.recipient_email),
      formatMajor(it.amount),
      it.amount.currency,
      it.status,
      it.destination,
      it.failure_reason,
      it.paid_at,
      text(it.memo),
    ]),
    PAYROLL_EXPORT_COLUMNS,
  );
}
