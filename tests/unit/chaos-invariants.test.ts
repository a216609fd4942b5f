/**
 * The chaos harness's object and money invariants (bench/chaos/checks.ts) against planted
 * violations: each check passes on a healthy run's data (tests/helpers/chaos-run.ts), then fails,
 * naming the object, once one violation is planted in it.
 */
import { deadlineCheck, moneyChecks, objectStateChecks, type CheckResult } from '../../bench/chaos/checks';
import { healthyRun, NOW } from '../helpers/chaos-run';

const PAYOUTS = { kind: 'payout', live: ['awaiting_funds', 'funds_received', 'processing', 'paid'] };
const named = (checks: CheckResult[], name: string): CheckResult => {
  const c = checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check named ${name}: ${checks.map((x) => x.name).join(', ')}`);
  return c;
};

describe('objects terminal or explainable, live ones with their workflow', () => {
  it('holds on a healthy run', () => {
    const checks = objectStateChecks(PAYOUTS, 4, healthyRun().open.payout);
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['payouts terminal or explainable', true],
      ['payouts live => workflow running', true],
    ]);
    expect(checks[0].detail).toBe(
      '2 of 4 terminal; open: 1 awaiting_funds: funds at the deposit address; 1 processing: the rail to report paid',
    );
  });

  it('fails on a live payout whose workflow is missing, naming it', () => {
    const run = healthyRun();
    run.open.payout[1] = { ...run.open.payout[1], workflow: 'missing', waitingFor: null };
    const c = named(objectStateChecks(PAYOUTS, 4, run.open.payout), 'payouts live => workflow running');
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('1 live without a running workflow e.g. po_processing (processing, workflow missing)');
  });

  it('fails on a running workflow that cannot say what it waits for', () => {
    const run = healthyRun();
    run.open.payout[0] = { ...run.open.payout[0], waitingFor: '' };
    const c = named(objectStateChecks(PAYOUTS, 4, run.open.payout), 'payouts terminal or explainable');
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('UNEXPLAINED 1 e.g. po_open (awaiting_funds, empty waiting_for)');
  });

  it('lets an open object outside a live status wait without a workflow (a draft)', () => {
    const open = [{ id: 'po_draft', status: 'draft', workflow: 'missing' as const, waitingFor: null, deadline: null }];
    expect(objectStateChecks(PAYOUTS, 1, open).every((c) => c.ok)).toBe(true);
  });
});

describe('objects closed by their deadline plus its slack', () => {
  it('holds on a healthy run: deadlines in the future', () => {
    const c = deadlineCheck('payment', healthyRun().open.payment, NOW);
    expect(c).toEqual({ name: 'payments closed by their deadline + slack', ok: true, detail: '1 open with a deadline, none past it' });
  });

  it('holds inside the slack and fails past it, whatever waiting_for says', () => {
    const run = healthyRun();
    const open = run.open.payment[0];
    open.deadline = { atMs: NOW - 120_000, what: 'payment TTL (expires_at)', slackMs: 120_000 };
    expect(deadlineCheck('payment', [open], NOW).ok).toBe(true);
    open.deadline.atMs = NOW - 120_001;
    const c = deadlineCheck('payment', [open], NOW);
    expect(open.waitingFor).toBe('a deposit until expires_at');
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('1 open past the deadline e.g. pay_open (awaiting, payment TTL (expires_at) 120 s ago, slack 120 s)');
  });

  it('fails on a payout stuck in awaiting_funds after its funds arrived (the progress deadline)', () => {
    const run = healthyRun();
    run.open.payout[0].deadline = { atMs: NOW - 91_000, what: 'funds arrived', slackMs: 90_000 };
    const c = deadlineCheck('payout', run.open.payout, NOW);
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('po_open (awaiting_funds, funds arrived 91 s ago, slack 90 s)');
  });
});

describe('money in = money out + held', () => {
  const failing = (checks: CheckResult[]) => checks.filter((c) => !c.ok).map((c) => [c.name, c.detail]);

  it('holds on a healthy run', () => {
    expect(failing(moneyChecks(healthyRun().money))).toEqual([]);
  });

  it.each([
    [
      'a payment settling out more than it received',
      (m: ReturnType<typeof healthyRun>['money']) => (m.payments[0].out = 202_000_000n),
      'payments: settled out <= received',
      'pay_settled (settled, out 202000000, received 101000000)',
    ],
    [
      'a settled payment that paid nobody',
      (m: ReturnType<typeof healthyRun>['money']) => (m.payments[1].out = 0n),
      'payments: settled out <= received',
      'pay_bank (settled, out 0, received 150000)',
    ],
    [
      'a payment saying it received more than arrived',
      (m: ReturnType<typeof healthyRun>['money']) => (m.payments[1].received = 300_000n),
      'payments: received = deposits + credits',
      'pay_bank (received 300000, applied 150000)',
    ],
    [
      'a deposit never applied',
      (m: ReturnType<typeof healthyRun>['money']) => m.pending.push('pay_open deposit dep_1'),
      'payments: no deposit or credit left unapplied',
      'pay_open deposit dep_1',
    ],
    [
      'a payout paid out before it was funded',
      (m: ReturnType<typeof healthyRun>['money']) => (m.payouts[0].deposited = 1_000_000_000n),
      'payouts: funded before paid out',
      'po_settled (deposited 1000000000 < 1010500000)',
    ],
    [
      'a payout paid twice at the rail',
      (m: ReturnType<typeof healthyRun>['money']) => (m.payouts[0].paidRailPayments = 2),
      'payouts: one paid rail payment when paid',
      'po_settled (2 paid)',
    ],
    [
      'an off-ramp refunded and paid out too',
      (m: ReturnType<typeof healthyRun>['money']) => (m.offramps[1].paidRailPayments = 1),
      'off-ramps: in = out, or refunded',
      'ofr_back (refunded',
    ],
    [
      'an off-ramp processed on less than its amount',
      (m: ReturnType<typeof healthyRun>['money']) => (m.offramps[0].received = 19_999_999n),
      'off-ramps: in = out, or refunded',
      'ofr_done (payment_processed, received 19999999 of 20000000',
    ],
    [
      'a send settled by two transfers',
      (m: ReturnType<typeof healthyRun>['money']) => (m.sends[0].transfersOfAmount = 2),
      'sends: one on-chain transfer of the amount',
      'si_done (2 transfers)',
    ],
  ])('fails on %s, naming it', (_what, plant, check, names) => {
    const run = healthyRun();
    plant(run.money);
    const bad = failing(moneyChecks(run.money));
    expect(bad).toHaveLength(1);
    expect(bad[0][0]).toBe(check);
    expect(bad[0][1]).toContain(names);
  });
});
