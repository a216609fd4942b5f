/**
 * Payroll templates (spec 4.4): a saved title, currency, funding method, memo and rows,
 * made from rows or from an existing run, and the rows a run created from a template starts with.
 * Rows are stored validated (recipient id or email + name, amount in minor units of the template
 * currency, memo); recipients named by email are resolved when a run is created from the template.
 */
import { invalidRequest, notFound } from '../../domain/errors';
import { money } from '../../domain/money';
import { isPayrollCurrency } from '../../domain/payroll';
import { validateRows, type PayrollRowInput } from '../../domain/payroll-rows';
import { PayrollRunItem, PayrollTemplate } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { payrollTemplateView } from '../../views/payroll';
import type { SelectQueryBuilder } from 'typeorm';
import type { AccountScope, Scope } from '../scope';
import { findRun } from './queries';

/** `POST /payroll_templates` body: rows, or `from_run_id` (exactly one). */
export interface CreateTemplateInput {
  title?: string;
  currency?: string;
  funding_method?: 'fiat' | 'crypto';
  memo?: string | null;
  rows?: PayrollRowInput[];
  from_run_id?: string;
}

/**
 * Creates a template (spec 4.4). From rows: `title` and `currency` required (400
 * `parameter_missing`), rows checked like a run's (400 / 422 naming the row). From a run
 * (`from_run_id`, 404 when not the caller's): title, currency, funding method, memo and one row
 * per item (by recipient id) unless the body overrides title or memo. Both or neither of `rows`
 * and `from_run_id`: 400 `parameter_invalid`. Saved with `payroll_template.created` (the template's
 * view; catalogued, spec 6: shipped by `events.ship.payroll_template`) in one transaction.
 */
export async function createTemplate(scope: Scope, input: CreateTemplateInput): Promise<PayrollTemplate> {
  const b = input;
  if ((b.rows === undefined) === (b.from_run_id === undefined)) {
    throw invalidRequest('parameter_invalid', 'Give either rows or from_run_id.', b.rows === undefined ? 'rows' : 'from_run_id');
  }
  let t: Omit<PayrollTemplate, 'id' | 'created_at' | 'updated_at' | 'account_id' | 'livemode'>;
  if (b.from_run_id !== undefined) {
    const run = await findRun(scope, { id: b.from_run_id });
    if (b.currency !== undefined && b.currency !== run.currency)
      throw invalidRequest('currency_mismatch', `The run pays in ${run.currency}.`, 'currency');
    const items = await db()
      .getRepository(PayrollRunItem)
      .find({ where: { run_id: run.id }, order: { position: 'ASC' } });
    t = {
      title: b.title ?? run.title,
      currency: run.currency,
      funding_method: b.funding_method ?? run.funding_method,
      memo: b.memo !== undefined ? b.memo : run.memo,
      rows: items.map((i) => ({ recipient_id: i.recipient_id, email: null, name: null, amount_minor: i.amount_minor, memo: i.memo })),
      source_run_id: run.id,
    };
  } else {
    if (!b.title) throw invalidRequest('parameter_missing', 'title is required.', 'title');
    if (!b.currency || !isPayrollCurrency(b.currency)) throw invalidRequest('parameter_missing', 'currency is required.', 'currency');
    const rows = validateRows(b.rows ?? [], b.currency);
    t = {
      title: b.title,
      currency: b.currency,
      funding_method: b.funding_method ?? 'fiat',
      memo: b.memo ?? null,
      rows: rows.map((r) => ({
        recipient_id: r.recipientId,
        email: r.email,
        name: r.name,
        amount_minor: r.amount.toString(),
        memo: r.memo,
      })),
      source_run_id: null,
    };
  }
  return transaction(async (m) => {
    const saved = await m.save(
      m.create(PayrollTemplate, { id: newId('prt_'), account_id: scope.accountId, livemode: scope.livemode, ...t }),
    );
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'payroll_template.created',
      objectType: 'payroll_template',
      objectId: saved.id,
      object: payrollTemplateView(saved),
      request: scope.request,
    });
    return saved;
  });
}

/** The template `input.id` of the scope's account and mode; 404 for any other (param `input.param`, default `id`). */
export async function findTemplate(scope: AccountScope, input: { id: string; param?: string }): Promise<PayrollTemplate> {
  return scoped(scope).getOne(PayrollTemplate, { id: input.id }, () =>
    notFound(`No such payroll template: ${input.id}.`, input.param ?? 'id'),
  );
}

/** `GET /payroll_templates`: the query (alias `t`) of the scope's templates; the caller paginates. */
export function templateListQuery(scope: AccountScope): SelectQueryBuilder<PayrollTemplate> {
  return scoped(scope).query(PayrollTemplate, 't');
}

/** The rows of `t` as request rows (Money in the template currency), for a run created from it. */
export function templateRows(payrollTemplate: PayrollTemplate): PayrollRowInput[] {
  return payrollTemplate.rows.map((r) =>
    r.recipient_id
      ? { recipient_id: r.recipient_id, amount: money(BigInt(r.amount_minor), payrollTemplate.currency), memo: r.memo }
      : { email: r.email, name: r.name, amount: money(BigInt(r.amount_minor), payrollTemplate.currency), memo: r.memo },
  );
}
