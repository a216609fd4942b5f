/**
 * Payroll run commands (spec 2.7, 3, 4.4, 8): what the payroll routes call. Each is one DB
 * transaction with its outbox events (`payroll_run.created`, `.approved`, `.cancelled`,
 * `.execution_started`); status changes are written by the run's record module
 * (activities/records/payroll-runs.ts). Amounts are bigint minor units of the run currency.
 */
import type { EntityManager } from 'typeorm';
import { capabilityUnavailable, invalidRequest } from '../../domain/errors';
import { currencyDecimals } from '../../domain/money';
import { assertExecutable, checkPayrollCaps, cryptoFundingVerdict, runReference } from '../../domain/payroll';
import { hasUnreturnedFunds } from '../../domain/payroll-returns';
import { validateRows, type PayrollRow, type PayrollRowInput } from '../../domain/payroll-rows';
import { PayrollFundingAttempt, PayrollRecipient, PayrollRun, PayrollRunItem } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { scoped } from '../../lib/scoped';
import { randomToken } from '../../lib/secrets';
import type { Scope } from '../scope';
import { payrollGate } from './queries';
import { loadFundsState, lockRun } from './records';
import { approvePayrollRun, cancelPayrollRun, emitRunEvents, executePayrollRun } from '../records/payroll-runs';
import { findTemplate, templateRows } from './templates';

/** `POST /payroll_runs` body (spec 4.4; rows: domain/payroll-rows.ts). */
export interface CreateRunInput {
  title?: string;
  currency?: string;
  template_id?: string;
  pay_period_start?: string | null;
  pay_period_end?: string | null;
  funding_method?: 'fiat' | 'crypto';
  memo?: string | null;
  rows?: PayrollRowInput[];
}

/**
 * Finds or creates the recipient of each row: by id (400 `recipient_not_found`, param
 * `rows[i].recipient_id`, when not the account's) or by email (created with the row's name; an
 * existing recipient keeps its name). Two rows resolving to one recipient: 400 `duplicate_recipient`.
 */
async function resolveRecipients(m: EntityManager, scope: Scope, rows: readonly PayrollRow[]): Promise<PayrollRecipient[]> {
  const out: PayrollRecipient[] = [];
  const seen = new Map<string, number>();
  const s = scoped(scope, m);
  for (const [i, row] of rows.entries()) {
    let rcp: PayrollRecipient;
    if (row.recipientId !== null) {
      rcp = await s.getOne(PayrollRecipient, { id: row.recipientId }, () =>
        invalidRequest('recipient_not_found', `No such payroll recipient: ${row.recipientId}.`, `rows[${i}].recipient_id`),
      );
    } else {
      await m.query(
        `INSERT INTO payroll_recipients(id, account_id, livemode, email, name) VALUES ($1,$2,$3,$4,$5)
         ON CONFLICT (account_id, livemode, email) DO NOTHING`,
        [newId('prc_'), scope.accountId, scope.livemode, row.email, row.name],
      );
      rcp = await s.getOne(
        PayrollRecipient,
        { email: row.email as string },
        () => new Error(`payroll recipient ${row.email} vanished after its insert`),
      );
    }
    const first = seen.get(rcp.id);
    if (first !== undefined) {
      throw invalidRequest(
        'duplicate_recipient',
        `Row ${i} pays the same recipient as row ${first}; combine them into one row.`,
        `rows[${i}]`,
        { first_row: first },
      );
    }
    seen.set(rcp.id, i);
    out.push(rcp);
  }
  return out;
}

/**
 * Fills a create body from its template (`template_id`, 404 param `template_id` when not the
 * caller's): title, funding method, memo and rows from the template unless the body gives them;
 * the currency is the template's (400 `currency_mismatch` when the body names another). Then
 * `title` and `currency` are required (400 `parameter_missing`).
 */
async function withTemplate(
  scope: Scope,
  body: CreateRunInput,
): Promise<{ b: CreateRunInput & { title: string; currency: string }; templateId: string | null }> {
  let b = body;
  let templateId: string | null = null;
  if (body.template_id !== undefined) {
    const t = await findTemplate(scope, { id: body.template_id, param: 'template_id' });
    if (body.currency !== undefined && body.currency !== t.currency)
      throw invalidRequest('currency_mismatch', `Template ${t.id} pays in ${t.currency}.`, 'currency');
    b = {
      ...body,
      title: body.title ?? t.title,
      currency: t.currency,
      funding_method: body.funding_method ?? t.funding_method,
      memo: body.memo !== undefined ? body.memo : t.memo,
      rows: body.rows ?? templateRows(t),
    };
    templateId = t.id;
  }
  if (!b.title) throw invalidRequest('parameter_missing', 'title is required.', 'title');
  if (!b.currency) throw invalidRequest('parameter_missing', 'currency is required.', 'currency');
  return { b: b as CreateRunInput & { title: string; currency: string }, templateId };
}

/**
 * `POST /payroll_runs` (spec 4.4, 3): a run in status `reviewed` with one `pending` item per row.
 * Checks the rows and caps (400 / 422 naming the row, domain/payroll-rows.ts), the pay period
 * (400 `pay_period_invalid` when the end is before the start) and crypto funding: with the flag
 * off `409 capability_unavailable` with `details.crypto_funding`; other reasons create the run
 * with `funding_blocked_reason` set (it cannot be funded). Items copy their recipient's adopted
 * destination (`ready`), or note a pending one (`pending_adoption`), else `missing`. Emits
 * `payroll_run.created`. `input`: the route's validated body; the payer-compliance facts are the
 * account's now (queries.ts `payrollGate`).
 */
export async function createRun(scope: Scope, input: CreateRunInput): Promise<PayrollRun> {
  const gate = await payrollGate(scope);
  const { b, templateId } = await withTemplate(scope, input);
  const method = b.funding_method ?? 'fiat';
  const start = b.pay_period_start ?? null;
  const end = b.pay_period_end ?? null;
  if (start !== null && end !== null && end < start)
    throw invalidRequest('pay_period_invalid', 'pay_period_end is before pay_period_start.', 'pay_period_end');
  let blocked: string | null = null;
  if (method === 'crypto') {
    const v = cryptoFundingVerdict(b.currency, { switchOn: gate.cryptoSwitchOn, verified: gate.verified });
    if (v.reason === 'crypto_funding_not_enabled') {
      throw capabilityUnavailable(
        'capability_unavailable',
        'Crypto funding of payroll runs is not enabled for this account. Do not retry.',
        { crypto_funding: v },
      );
    }
    blocked = v.reason;
  }
  // A payer not verified (spec 4.4 `verification_required`): the run exists, its funding is blocked, whatever the method.
  if (blocked === null && !gate.verified) blocked = 'verification_required';
  const rows = validateRows(b.rows ?? [], b.currency);
  return transaction(async (m) => {
    const recipients = await resolveRecipients(m, scope, rows);
    const id = newId('pr_');
    const total = rows.reduce((n, r) => n + r.amount, 0n);
    const run = m.create(PayrollRun, {
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      status: 'reviewed' /* spec 3: (none) -> reviewed */,
      title: b.title,
      currency: b.currency,
      decimals: currencyDecimals(b.currency),
      pay_period_start: start,
      pay_period_end: end,
      funding_method: method,
      memo: b.memo ?? null,
      total_minor: total.toString(),
      item_count: rows.length,
      run_reference: runReference(id),
      funding_state: 'unfunded',
      needs_attention: false,
      funding_confirmed_minor: null,
      funding_confirmed_currency: null,
      funding_blocked_reason: blocked,
      current_funding_attempt_id: null,
      template_id: templateId,
      approved_at: null,
      funded_at: null,
      execution_started_at: null,
      completed_at: null,
      cancelled_at: null,
    });
    await m.save(run);
    const items = rows.map((r, i) => {
      const p = recipients[i];
      const destination_status = p.destination_masked ? 'ready' : p.pending_destination_masked ? 'pending_adoption' : 'missing';
      return m.create(PayrollRunItem, {
        id: newId('pri_'),
        run_id: id,
        account_id: scope.accountId,
        livemode: scope.livemode,
        position: i,
        recipient_id: p.id,
        amount_minor: r.amount.toString(),
        currency: b.currency,
        memo: r.memo,
        status: 'pending',
        destination_status,
        destination_ciphertext: p.destination_ciphertext,
        destination_masked: p.destination_masked,
        session_token: randomToken('prk_'),
        current_attempt_id: null,
        failure_reason: null,
        return_reason: null,
        paid_at: null,
      });
    });
    if (items.length) await m.insert(PayrollRunItem, items);
    await emitRunEvents(m, run, ['payroll_run.created'], scope.request);
    return run;
  });
}

/**
 * `POST /payroll_runs/{id}/approve` (spec 3): `reviewed` -> `funding_pending`, `approved_at` set,
 * `payroll_run.approved`. Approving a run already `funding_pending` returns it unchanged; any
 * other status is `409 payroll_run_state_changed`.
 */
export async function approveRun(scope: Scope, input: { id: string }): Promise<PayrollRun> {
  return transaction(async (m) => {
    const run = await lockRun(m, scope, input.id);
    if (run.status === 'funding_pending') return run;
    await approvePayrollRun(m, run, scope.request);
    return run;
  });
}

/**
 * `POST /payroll_runs/{id}/cancel` (spec 3): any status before `executing` -> `cancelled`
 * (idempotent: a cancelled run is returned unchanged); items stay where they were. A run that
 * received money keeps it recorded and reads `needs_attention` (everything confirmed is owed back,
 * domain/payroll-returns.ts, until an operator returns it: activities/payroll/returns.ts).
 * `409 payroll_run_state_changed` once executing or finished. Emits `payroll_run.cancelled`.
 */
export async function cancelRun(scope: Scope, input: { id: string }): Promise<PayrollRun> {
  return transaction(async (m) => {
    const run = await lockRun(m, scope, input.id);
    if (run.status === 'cancelled') return run;
    // Everything it received is owed back now (any currency): flagged until an operator returns it.
    await cancelPayrollRun(
      m,
      run,
      { owesFundsBack: async (r) => hasUnreturnedFunds((await loadFundsState(m, r)).position) },
      scope.request,
    );
    return run;
  });
}

/** What funding a run must receive: the current attempt's priced amount, else the run total in the run currency. */
async function requiredFunding(m: EntityManager, run: PayrollRun): Promise<{ amount: bigint; currency: string }> {
  const at = run.current_funding_attempt_id ? await m.findOneBy(PayrollFundingAttempt, { id: run.current_funding_attempt_id }) : null;
  if (at && at.required_minor !== null) return { amount: BigInt(at.required_minor), currency: at.required_currency };
  return { amount: BigInt(run.total_minor), currency: run.currency };
}

/**
 * `POST /payroll_runs/{id}/execute` (spec 3, 4.4, 8): `funded` -> `executing` when the run's
 * funding is `funded` or `overfunded` with a confirmed amount, else `409 payroll_run_underfunded`
 * naming the shortfall (`details.shortfall` Money, `details.funding_state`); the caps are checked
 * again on the items (`422 payroll_cap_exceeded`). Executing an `executing` run returns it
 * unchanged; a finished or cancelled run is `409 payroll_run_state_changed`. Emits
 * `payroll_run.execution_started`. The caller then wakes the run's workflow (activities/payroll/signals.ts).
 */
export async function executeRun(scope: Scope, input: { id: string }): Promise<PayrollRun> {
  return transaction(async (m) => {
    const run = await lockRun(m, scope, input.id);
    if (run.status === 'executing') return run;
    const required = await requiredFunding(m, run);
    const confirmed = run.funding_confirmed_minor === null ? null : BigInt(run.funding_confirmed_minor);
    const got = confirmed !== null && run.funding_confirmed_currency === required.currency ? confirmed : 0n;
    assertExecutable(
      run.status,
      {
        funding_state: run.funding_state,
        needs_attention: run.needs_attention,
        confirmed,
        observed: confirmed !== null,
        shortfall: got < required.amount ? required.amount - got : 0n,
        surplus: got > required.amount ? got - required.amount : 0n,
      },
      required.currency,
    );
    const rows: Array<{ amount_minor: string }> = await m.query(
      'SELECT amount_minor FROM payroll_run_items WHERE run_id = $1 ORDER BY position',
      [run.id],
    );
    checkPayrollCaps(
      rows.map((r) => BigInt(r.amount_minor)),
      run.currency,
    );
    await executePayrollRun(m, run, scope.request);
    return run;
  });
}
