/**
 * The chaos harness's progress verdict (bench/chaos/progress.ts): a fault fails the run when the
 * load completes fewer journeys than its floor, or when a journey fails outside the fault's stated
 * tolerance; the tolerance of the faults that cut requests (bench/chaos/faults.ts) matches the
 * harness client's own message for a burnt key and nothing else.
 */
import { allFaults } from '../../bench/chaos/faults';
import { progressVerdict, type JourneyEnd, type Tolerance } from '../../bench/chaos/progress';

const FAULT = 100_000;
const done = (kind: string, startedAt: number, endedAt: number): JourneyEnd => ({ kind, ok: true, startedAt, endedAt });
const failed = (kind: string, endedAt: number, error: string): JourneyEnd => ({
  kind,
  ok: false,
  startedAt: endedAt - 5000,
  endedAt,
  error,
});
/** A healthy window: one journey ended in the warm-up, five in play, all completed. */
const healthy = (): JourneyEnd[] => [
  done('subscription', FAULT - 1500, FAULT - 200),
  done('crypto_link', FAULT - 1000, FAULT + 3000),
  done('bank_link', FAULT - 900, FAULT + 6000),
  done('payout', FAULT + 3000, FAULT + 9000),
  done('wallet_send', FAULT + 6000, FAULT + 8000),
  done('payroll', FAULT - 1500, FAULT + 20_000),
];
const BURNT = '409 {"error":{"type":"idempotency_error","code":"idempotency_failed","message":"An earlier request with this key failed"}}';
const tolerance = (name: string): Tolerance | undefined => allFaults(true, true).find((f) => f.name === name)?.tolerance;

describe('progress through a fault', () => {
  it('passes when every journey in play completes; the floor counts those not ended before the fault', () => {
    const v = progressVerdict(healthy(), FAULT, 3);
    expect(v).toMatchObject({ ok: true, inPlay: 5, completed: 5, failed: 0, floor: 5 });
    expect(v.detail).toBe('5 of 5 journeys in play completed (floor 5); 0 failed');
  });

  it('fails on one failed journey when the fault tolerates none', () => {
    const ends = [...healthy(), failed('payroll', FAULT + 50_000, 'POST /v1/payroll_runs/pr_1/execute: 422 {"error":{}}')];
    const v = progressVerdict(ends, FAULT, 3);
    expect(v.ok).toBe(false);
    expect(v.detail).toBe('5 of 6 journeys in play completed (floor 6); 1 failed: completed 5 < floor 6; 1 failed outside the tolerance');
  });

  it("allows one journey per fault that only missed the client's wait, and fails on a second", () => {
    const late = (id: number) =>
      failed('payroll', FAULT + 50_000, `GET /v1/payroll_runs/pr_${id} completed|partial|failed: not within 50 s`);
    const one = progressVerdict([...healthy(), late(1)], FAULT, 3);
    expect(one.ok).toBe(true);
    expect(one.detail).toBe(
      "5 of 6 journeys in play completed (floor 5); 1 failed, 1 late (missed the client's wait; its object is checked by the invariants)",
    );
    const two = progressVerdict([...healthy(), late(1), late(2)], FAULT, 3);
    expect(two.ok).toBe(false);
    expect(two.detail).toContain('1 failed outside the tolerance');
  });

  it('fails on a journey failed before the fault started', () => {
    const ends = [...healthy(), failed('offramp', FAULT - 10, 'POST /v1/wallet/offramp_intents: 422 ...')];
    const v = progressVerdict(ends, FAULT, 3);
    expect(v.ok).toBe(false);
    expect(v.detail).toContain('1 failed outside the tolerance');
  });

  it('fails when the load stalls: fewer journeys completed than its concurrency, none failed', () => {
    const v = progressVerdict([done('crypto_link', FAULT - 1000, FAULT + 3000), done('payroll', FAULT - 1000, FAULT + 40_000)], FAULT, 3);
    expect(v).toMatchObject({ ok: false, completed: 2, floor: 3 });
    expect(v.detail).toContain('completed 2 < floor 3');
  });

  it('lets a PostgreSQL restart burn up to two keys, with its reason, and fails on a third', () => {
    const t = tolerance('pg-restart-immediate');
    expect(t).toBeDefined();
    const two = [
      ...healthy(),
      failed('payout', FAULT + 4000, `POST /v1/payouts/po_1/funding_instructions: ${BURNT}`),
      failed('payroll', FAULT + 5000, `POST /v1/payroll_runs/pr_1/execute: ${BURNT}`),
    ];
    const v = progressVerdict(two, FAULT, 3, t);
    expect(v).toMatchObject({ ok: true, completed: 5, inPlay: 7, failed: 2, tolerated: 2, floor: 5 });
    expect(v.detail).toContain('2 tolerated (a request cut after it may have taken effect: 409 idempotency_failed (spec 7)');
    const three = [...two, failed('payout', FAULT + 6000, `POST /v1/payouts/po_2/funding_instructions: ${BURNT}`)];
    expect(progressVerdict(three, FAULT, 3, t).ok).toBe(false);
  });

  it('tolerates no other failure under a PostgreSQL restart, nor a burnt key under a fault without the tolerance', () => {
    const other = [...healthy(), failed('bank_link', FAULT + 5000, 'POST /v1/payment_sessions/tok_1/payments: 500 {"error":{}}')];
    expect(progressVerdict(other, FAULT, 3, tolerance('pg-restart-fast')).ok).toBe(false);
    const burnt = [...healthy(), failed('payout', FAULT + 4000, `POST /v1/payouts/po_1/funding_instructions: ${BURNT}`)];
    expect(tolerance('worker-kill-0')).toBeUndefined();
    expect(progressVerdict(burnt, FAULT, 3, tolerance('worker-kill-0')).ok).toBe(false);
  });

  it.each([
    'POST /sim/bank/credits: UND_ERR_SOCKET: fetch failed (not retried: the call may have landed)',
    'POST /sim/bank/credits: 503 {"error":{"type":"temporarily_unavailable"}}',
  ])('lets a fault that cuts requests cut a bank credit the client sends once: %s', (error) => {
    const cut = [...healthy(), failed('bank_link', FAULT + 100, error)];
    expect(progressVerdict(cut, FAULT, 3, tolerance('api-kill'))).toMatchObject({ ok: true, tolerated: 1 });
    expect(progressVerdict(cut, FAULT, 3, tolerance('pg-restart-immediate'))).toMatchObject({ ok: true, tolerated: 1 });
    expect(progressVerdict(cut, FAULT, 3, tolerance('temporal-restart')).ok).toBe(false);
  });

  it('does not tolerate a 503 on a call of the product itself', () => {
    const refused = [...healthy(), failed('payout', FAULT + 100, 'POST /v1/payouts: 503 {"error":{"type":"temporarily_unavailable"}}')];
    expect(progressVerdict(refused, FAULT, 3, tolerance('pg-pause')).ok).toBe(false);
  });

  it('states a tolerance only for the faults that cut requests mid-flight', () => {
    const withTolerance = allFaults(true, true)
      .filter((f) => f.tolerance)
      .map((f) => f.name);
    expect(withTolerance).toEqual(['api-kill', 'pg-restart-fast', 'pg-restart-immediate', 'pg-pause']);
  });
});
