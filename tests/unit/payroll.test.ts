/**
 * Payroll rules (spec 2.7, 3, 4.4, 4.6, 8; issue 13): run and item transitions, status groups
 * and summary, caps with their currency comparison, run_reference, the funding reducer, the
 * execute gate, the run outcome, crypto funding verdicts, readiness, rows and the CSV export.
 */
import {
  assertExecutable,
  checkPayrollCaps,
  cryptoFundingVerdict,
  executionOutcome,
  payrollItemTransitions,
  PAYROLL_RUN_CANCELLABLE,
  PAYROLL_RUN_STATUSES,
  payrollRunTransitions,
  payrollReadiness,
  payrollRunSources,
  payrollRunSummary,
  payrollStatusGroup,
  reduceFunding,
  runReference,
  normalizeRunReference,
  usdCentsCeil,
} from '../../domain/payroll';
import { csvField, payrollExportCsv, validateRows, type PayrollRowInput } from '../../domain/payroll-rows';
import { IllegalTransition } from '../../domain/transitions';
import { caught } from '../helpers/domain';

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

describe('run transitions (spec 3)', () => {
  it('follows the spec path reviewed -> funding_pending -> funded -> executing', () => {
    expect(payrollRunTransitions.can('reviewed', 'funding_pending')).toBe(true);
    expect(payrollRunTransitions.can('funding_pending', 'funded')).toBe(true);
    expect(payrollRunTransitions.can('funded', 'executing')).toBe(true);
    for (const end of ['completed', 'partial', 'failed'] as const) expect(payrollRunTransitions.can('executing', end)).toBe(true);
  });

  it('refuses skipping steps with a 409 payroll_run_state_changed', () => {
    const e = caught(() => payrollRunTransitions.assert('reviewed', 'executing'));
    expect(e).toBeInstanceOf(IllegalTransition);
    expect(e).toMatchObject({ type: 'conflict', status: 409, code: 'payroll_run_state_changed' });
    expect(payrollRunTransitions.can('funding_pending', 'executing')).toBe(false);
  });

  it('cancels before executing only; finished runs are terminal', () => {
    expect([...PAYROLL_RUN_CANCELLABLE].sort()).toEqual(['approved', 'draft', 'funded', 'funding_pending', 'reviewed']);
    expect([...payrollRunTransitions.terminal].sort()).toEqual(['cancelled', 'completed', 'failed', 'partial']);
    expect(payrollRunSources('funding_pending').sort()).toEqual(['approved', 'reviewed']);
    expect(PAYROLL_RUN_STATUSES).toHaveLength(10);
  });

  it('items have no cancelled status and pay at most once', () => {
    expect(payrollItemTransitions.isStatus('cancelled')).toBe(false);
    expect(payrollItemTransitions.can('paid', 'processing')).toBe(false);
    expect(payrollItemTransitions.can('failed', 'queued')).toBe(false);
    expect(payrollItemTransitions.can('paid', 'returned')).toBe(true);
    expect(caught(() => payrollItemTransitions.assert('pending', 'paid')).code).toBe('payroll_item_state_changed');
  });
});

describe('status groups and summary (spec 4.4)', () => {
  it('maps statuses; draft and approved match no group', () => {
    expect(payrollStatusGroup('reviewed')).toBe('needs_you');
    expect(payrollStatusGroup('funding_pending')).toBe('needs_you');
    expect(payrollStatusGroup('executing')).toBe('in_progress');
    expect(payrollStatusGroup('cancelled')).toBe('done');
    expect(payrollStatusGroup('draft')).toBeNull();
    expect(payrollStatusGroup('approved')).toBeNull();
  });

  it('folds counts into the summary with draft runs in the total only', () => {
    expect(payrollRunSummary({ reviewed: 2, funding_pending: 1, funded: 1, completed: 3, cancelled: 1, draft: 4 })).toEqual({
      needs_action: 3,
      in_progress: 1,
      completed: 4,
      total: 12,
    });
  });
});

describe('caps (spec 8)', () => {
  it('accepts exactly 10,000 USD per item and 25,000 USD per run', () => {
    expect(() => checkPayrollCaps([1_000_000n, 1_000_000n, 500_000n], 'USD')).not.toThrow();
  });

  it('names the first row over the item cap', () => {
    const e = caught(() => checkPayrollCaps([100n, 1_000_001n], 'USD'));
    expect(e).toMatchObject({ status: 422, code: 'payroll_cap_exceeded', param: 'rows[1].amount' });
    expect(e.details).toMatchObject({ cap: 'item', row: 1, limit: usd('1000000') });
  });

  it('refuses a run total over 25,000 USD and more than 500 rows', () => {
    expect(caught(() => checkPayrollCaps([1_000_000n, 1_000_000n, 500_001n], 'USD'))).toMatchObject({
      param: 'rows',
      details: { cap: 'run' },
    });
    expect(caught(() => checkPayrollCaps(Array(501).fill(1n), 'USD'))).toMatchObject({ status: 422, details: { cap: 'rows', limit: 500 } });
  });

  it('compares other currencies by their US-dollar value at the reference rate, rounded up', () => {
    expect(usdCentsCeil(100n, 'EUR')).toBe(108n); // 1 EUR = 1.08 USD
    expect(usdCentsCeil(1n, 'MXN')).toBe(1n); // 0.0058 USD rounds up to a cent
    // 10,000 EUR is 10,800 USD: over the item cap; 9,259.25 EUR is 9,999.99 USD
    expect(caught(() => checkPayrollCaps([1_000_000n], 'EUR')).details).toMatchObject({ cap: 'item', usd_value: usd('1080000') });
    expect(() => checkPayrollCaps([925_925n], 'EUR')).not.toThrow();
    // 100,000 MXN is 5,800 USD: under the item cap though the nominal figure is ten times it
    expect(() => checkPayrollCaps([10_000_000n], 'MXN')).not.toThrow();
    expect(caught(() => usdCentsCeil(100n, 'JPY')).code).toBe('currency_invalid');
  });
});

describe('run_reference (spec 2.7)', () => {
  it('is PAYROLL- plus the first 12 alphanumerics of the id, upper-cased', () => {
    expect(runReference('pr_aB3dE6gH9jK2mN5pQ8')).toBe('PAYROLL-PRAB3DE6GH9J');
    expect(runReference('pr_x-y')).toBe('PAYROLL-PRXY');
    expect(normalizeRunReference(' payroll-prab3de6 gh9j ')).toBe('PAYROLL-PRAB3DE6GH9J');
  });
});

describe('funding reducer (spec 2.7)', () => {
  const req = { amount: 10_000n, currency: 'USD' };
  const obs = (amount: bigint, confirmed = true, currency = 'USD') => ({ amount, currency, confirmed });

  it('is unfunded with a null confirmed amount before any money', () => {
    expect(reduceFunding(req, [])).toEqual({
      funding_state: 'unfunded',
      needs_attention: false,
      confirmed: null,
      shortfall: 10_000n,
      surplus: 0n,
      observed: false,
    });
  });

  it('sums confirmed deposits: short, exact, surplus', () => {
    expect(reduceFunding(req, [obs(4_000n)])).toMatchObject({
      funding_state: 'partially_funded',
      needs_attention: true,
      confirmed: 4_000n,
      shortfall: 6_000n,
    });
    expect(reduceFunding(req, [obs(4_000n), obs(6_000n)])).toMatchObject({
      funding_state: 'funded',
      needs_attention: false,
      confirmed: 10_000n,
      shortfall: 0n,
    });
    expect(reduceFunding(req, [obs(12_000n)])).toMatchObject({ funding_state: 'overfunded', needs_attention: true, surplus: 2_000n });
  });

  it('flags money observed but never confirmed, or in another currency', () => {
    expect(reduceFunding(req, [obs(10_000n, false)])).toMatchObject({
      funding_state: 'unfunded',
      needs_attention: true,
      confirmed: null,
      observed: true,
    });
    expect(reduceFunding(req, [obs(10_000n), obs(5n, true, 'EUR')])).toMatchObject({
      funding_state: 'funded',
      needs_attention: true,
      confirmed: 10_000n,
    });
  });
});

describe('execute gate and outcome (spec 3, 4.4)', () => {
  it('refuses an underfunded run naming the shortfall', () => {
    const f = reduceFunding({ amount: 10_000n, currency: 'USD' }, [{ amount: 7_500n, currency: 'USD', confirmed: true }]);
    expect(caught(() => assertExecutable('funded', f, 'USD'))).toMatchObject({
      status: 409,
      code: 'payroll_run_underfunded',
      details: { funding_state: 'partially_funded', shortfall: usd('2500') },
    });
    expect(caught(() => assertExecutable('funding_pending', reduceFunding({ amount: 1n, currency: 'USD' }, []), 'USD')).code).toBe(
      'payroll_run_underfunded',
    );
  });

  it('lets a funded or overfunded run execute, and nothing else', () => {
    const full = reduceFunding({ amount: 10n, currency: 'USD' }, [{ amount: 11n, currency: 'USD', confirmed: true }]);
    expect(() => assertExecutable('funded', full, 'USD')).not.toThrow();
    expect(caught(() => assertExecutable('cancelled', full, 'USD')).code).toBe('payroll_run_state_changed');
  });

  it('ends completed, partial or failed', () => {
    expect(executionOutcome(['paid', 'paid'])).toBe('completed');
    expect(executionOutcome(['paid', 'failed'])).toBe('partial');
    expect(executionOutcome(['failed', 'failed'])).toBe('failed');
    expect(executionOutcome([])).toBe('failed');
  });
});

describe('crypto funding and readiness (spec 2.7, 4.4, 4.6)', () => {
  const acct = { accessState: 'active', verified: true, cryptoSwitchOn: true };

  it('gives the reason in order: switch, currency, verification', () => {
    expect(cryptoFundingVerdict('USD', { switchOn: false, verified: false }).reason).toBe('crypto_funding_not_enabled');
    expect(cryptoFundingVerdict('BRL', { switchOn: true, verified: false }).reason).toBe('provider_funding_currency_unsupported');
    expect(cryptoFundingVerdict('USD', { switchOn: true, verified: false }).reason).toBe('verification_required');
    expect(cryptoFundingVerdict('EUR', { switchOn: true, verified: true })).toEqual({ available: true, reason: null });
  });

  it('lists blockers including run_has_no_rows', () => {
    expect(payrollReadiness({ status: 'reviewed', rows: 0, fundingMethod: 'fiat', currency: 'USD' }, acct)).toEqual({
      ready: false,
      blockers: ['run_has_no_rows'],
    });
    expect(payrollReadiness({ status: 'reviewed', rows: 2, fundingMethod: 'fiat', currency: 'USD' }, acct)).toEqual({
      ready: true,
      blockers: [],
    });
    expect(
      payrollReadiness({ status: 'reviewed', rows: 2, fundingMethod: 'crypto', currency: 'BRL' }, { ...acct, verified: false }).blockers,
    ).toEqual(['verification_required', 'provider_funding_currency_unsupported']);
    expect(payrollReadiness({ status: 'cancelled', rows: 1, fundingMethod: 'fiat', currency: 'USD' }, acct).blockers).toEqual([
      'run_not_open',
    ]);
  });
});

describe('rows', () => {
  const row = (o: Partial<PayrollRowInput>): PayrollRowInput => ({
    email: 'Ana@Example.com ',
    name: ' Ana Diaz ',
    amount: usd('150000'),
    ...o,
  });

  it('normalizes contact rows and keeps id rows', () => {
    expect(validateRows([row({}), { recipient_id: 'prc_abc', amount: usd('1'), memo: ' Nov ' }], 'USD')).toEqual([
      { recipientId: null, email: 'ana@example.com', name: 'Ana Diaz', amount: 150000n, memo: null },
      { recipientId: 'prc_abc', email: null, name: null, amount: 1n, memo: 'Nov' },
    ]);
    expect(validateRows([], 'USD')).toEqual([]);
  });

  it('names the offending row and field', () => {
    expect(caught(() => validateRows([row({}), row({ email: 'nope' })], 'USD'))).toMatchObject({
      status: 400,
      code: 'email_invalid',
      param: 'rows[1].email',
    });
    expect(caught(() => validateRows([row({ recipient_id: 'prc_x' })], 'USD')).code).toBe('recipient_ambiguous');
    expect(caught(() => validateRows([{ amount: usd('1') }], 'USD')).code).toBe('recipient_required');
    expect(caught(() => validateRows([row({ name: '  ' })], 'USD'))).toMatchObject({ code: 'parameter_missing', param: 'rows[0].name' });
    expect(caught(() => validateRows([row({ amount: usd('0') })], 'USD'))).toMatchObject({
      code: 'amount_invalid',
      param: 'rows[0].amount',
    });
    expect(caught(() => validateRows([row({ amount: { amount: '1', currency: 'EUR', decimals: 2 } })], 'USD')).code).toBe(
      'currency_mismatch',
    );
    expect(caught(() => validateRows([row({}), row({ email: 'ana@example.com' })], 'USD'))).toMatchObject({
      code: 'duplicate_recipient',
      param: 'rows[1].email',
      details: { first_row: 0 },
    });
    expect(caught(() => validateRows([row({}), row({ email: 'b@example.com', amount: usd('1000001') })], 'USD'))).toMatchObject({
      status: 422,
      param: 'rows[1].amount',
    });
  });
});

describe('CSV export (RFC 4180)', () => {
  it('quotes separators, quotes and line breaks, and neutralizes formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('-5', true)).toBe('-5');
    expect(csvField(null)).toBe('');
  });

  it('writes a header and one CRLF line per item', () => {
    const csv = payrollExportCsv([
      {
        item_id: 'pri_1',
        recipient_id: 'prc_1',
        recipient_name: 'Diaz, Ana',
        recipient_email: 'ana@example.com',
        amount: usd('150000'),
        status: 'paid',
        destination: 'ach ****6789',
        failure_reason: null,
        paid_at: '2026-11-23T10:00:00.000Z',
        memo: null,
      },
    ]);
    expect(csv).toBe(
      'item_id,recipient_id,recipient_name,recipient_email,amount,currency,status,destination,failure_reason,paid_at,memo\r\n' +
        'pri_1,prc_1,"Diaz, Ana",ana@example.com,1500.00,USD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n',
    );
  });
});
