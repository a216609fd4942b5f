/**
 * Properties of the money ledgers: a pay-in's deposits on the crypto rails (spec 2.4 verdict rules,
 * part 3, 6: exact, underpaid while short, overpaid above the total due, each event at most once),
 * the provider-settled credits and returns (spec 6: plus or minus 1%), what a bank destination is
 * owed, a payroll run's funding (spec 2.7 `funding_state`) and the money it owes back. Laws: the
 * running total is the sum of the applied legs, expected = received + shortfall - surplus, nothing
 * is ever negative, sums of parts equal the total. Functions: domain/verdicts.ts,
 * domain/bank-collection.ts, domain/payroll.ts reduceFunding, domain/payroll-returns.ts.
 */
import fc from 'fast-check';
import { applyBankCredit, applyBankReturn, bankBand, bankSettlementDue } from '../../../domain/bank-collection';
import { reduceFunding } from '../../../domain/payroll';
import { fundsOwedBack, fundsPosition, planFundsReturns, type FundingSource } from '../../../domain/payroll-returns';
import { amountVerdict, applyDeposit, ledgerFigures, newPaymentLedger, type PaymentLedger } from '../../../domain/verdicts';
import { nonNegativeMinor, params, positiveMinor } from './arbitraries';

/** A total due and deposit legs around it: many small legs, one exact leg, or legs that cross it. */
const dueAndLegs = positiveMinor(10n ** 12n).chain((expected) =>
  fc.tuple(
    fc.constant(expected),
    fc.oneof(
      fc.array(positiveMinor(expected), { minLength: 1, maxLength: 8 }),
      fc.constant([expected]),
      fc.array(fc.bigInt(1n, expected / 3n + 1n), { minLength: 1, maxLength: 6 }),
    ),
  ),
);

describe('crypto pay-in ledger (spec 2.4, 3, 6)', () => {
  it('received is the sum of the legs applied until the payment leaves awaiting/underpaid; figures balance', () => {
    fc.assert(
      fc.property(dueAndLegs, ([expected, legs]) => {
        let ledger: PaymentLedger = newPaymentLedger(expected);
        let applied = 0n;
        const events: string[] = [];
        for (const leg of legs) {
          const live = ledger.status === 'awaiting' || ledger.status === 'underpaid';
          const out = applyDeposit(ledger, leg);
          expect(out.effect).toBe(live ? 'applied' : 'recorded_only');
          if (live) applied += leg;
          events.push(...out.events);
          ledger = out.next;
          expect(ledger.received).toBe(applied);
          expect(out.surplus >= 0n && out.shortfall >= 0n).toBe(true);
          expect(ledger.received + out.shortfall - out.surplus).toBe(expected);
          const want = applied < expected ? 'underpaid' : applied === expected ? 'paid' : 'overpaid';
          expect(ledger.status).toBe(want);
          expect(out.verdict).toBe(want === 'paid' ? 'exact' : want);
        }
        expect(events.filter((e) => e === 'payment.underpaid').length).toBeLessThanOrEqual(1);
        expect(events.filter((e) => e === 'payment.overpaid').length).toBeLessThanOrEqual(1);
        expect(events.filter((e) => e === 'payment.paid').length).toBe(ledger.status === 'paid' ? 1 : 0);
      }),
      params,
    );
  });

  it('exact only when exactly the total due was observed and no other payment of the link holds money', () => {
    fc.assert(
      fc.property(positiveMinor(), fc.bigInt(-3n, 3n), fc.boolean(), (expected, delta, others) => {
        fc.pre(expected + delta > 0n);
        const { next } = applyDeposit(newPaymentLedger(expected), expected + delta);
        const v = amountVerdict(next, { otherPaymentsHoldMoney: others });
        const want = delta < 0n ? 'underpaid' : delta > 0n || others ? 'overpaid' : 'exact';
        expect(v).toBe(want);
      }),
      params,
    );
  });

  it('money reaching a closed unpaid payment is unmatched and counts toward no surplus', () => {
    fc.assert(
      fc.property(
        positiveMinor(),
        positiveMinor(),
        fc.constantFrom('expired', 'abandoned') as fc.Arbitrary<'expired' | 'abandoned'>,
        (expected, leg, closed) => {
          const out = applyDeposit({ ...newPaymentLedger(expected), status: closed }, leg);
          expect([out.next.status, out.unmatchedReason, out.next.received]).toEqual(['unmatched', 'deposit_after_close', leg]);
          expect(ledgerFigures(out.next)).toEqual({ surplus: 0n, shortfall: 0n });
        },
      ),
      params,
    );
  });
});

describe('provider-settled ledger (spec 2.4, 3, 6)', () => {
  it('credits and returns keep received = credits - returns (never below 0) and the status follows the 1% band', () => {
    const step = fc.tuple(fc.boolean(), positiveMinor(10n ** 12n));
    fc.assert(
      fc.property(positiveMinor(10n ** 12n), fc.array(step, { minLength: 1, maxLength: 8 }), (expected, steps) => {
        let ledger: PaymentLedger = newPaymentLedger(expected);
        let received = 0n;
        let underpaid = 0;
        for (const [isReturn, amount] of steps) {
          const before = ledger.status;
          const out = isReturn ? applyBankReturn(ledger, amount) : applyBankCredit(ledger, amount);
          if (isReturn) received = received > amount ? received - amount : 0n;
          else if (before === 'awaiting' || before === 'underpaid') received += amount;
          ledger = out.next;
          underpaid += out.events.filter((e) => e === 'payment.underpaid').length;
          expect(ledger.received).toBe(received);
          const band = bankBand(received, expected);
          if (!isReturn && (before === 'awaiting' || before === 'underpaid'))
            expect(ledger.status).toBe({ short: 'underpaid', within: 'paid', over: 'overpaid' }[band]);
          if (isReturn && ['paid', 'overpaid', 'settled'].includes(before) && band === 'short') expect(ledger.status).toBe('underpaid');
        }
        expect(underpaid).toBeLessThanOrEqual(1);
      }),
      params,
    );
  });

  it('what the bank destination is owed sums to min(received, invoice) over successive settlements, never negative', () => {
    fc.assert(
      fc.property(positiveMinor(10n ** 12n), fc.array(nonNegativeMinor(10n ** 12n), { minLength: 1, maxLength: 6 }), (invoice, credits) => {
        let received = 0n;
        let settled = 0n;
        for (const c of credits) {
          received += c;
          const due = bankSettlementDue(received, invoice, settled);
          expect(due >= 0n).toBe(true);
          settled += due;
        }
        expect(settled).toBe(received < invoice ? received : invoice);
      }),
      params,
    );
  });
});

const sourceArb = (currency: fc.Arbitrary<string>) =>
  fc.record({
    kind: fc.constantFrom('bank_credit', 'chain_transfer') as fc.Arbitrary<FundingSource['kind']>,
    ref: fc.uuid(),
    amount: positiveMinor(10n ** 12n),
    currency,
    confirmed: fc.boolean(),
  });

describe('payroll funding and money owed back (spec 2.7, 4.4)', () => {
  it('funding: confirmed is the sum of confirmed legs in the required currency; required = got + shortfall - surplus', () => {
    fc.assert(
      fc.property(
        positiveMinor(10n ** 12n),
        fc.array(sourceArb(fc.constantFrom('USD', 'USD', 'USDC')), { maxLength: 6 }),
        (required, obs) => {
          const r = reduceFunding({ amount: required, currency: 'USD' }, obs);
          const counted = obs.filter((o) => o.confirmed && o.currency === 'USD');
          const got = counted.reduce((n, o) => n + o.amount, 0n);
          expect(r.confirmed).toBe(counted.length ? got : null);
          expect(r.shortfall >= 0n && r.surplus >= 0n).toBe(true);
          expect(got + r.shortfall - r.surplus).toBe(required);
          const state = got === 0n ? 'unfunded' : got < required ? 'partially_funded' : got === required ? 'funded' : 'overfunded';
          expect(r.funding_state).toBe(state);
        },
      ),
      params,
    );
  });

  it('owed back never exceeds what was received; planned returns take exactly the outstanding, each within its source', () => {
    fc.assert(
      fc.property(
        fc.array(sourceArb(fc.constantFrom('USD', 'EUR')), { minLength: 1, maxLength: 6 }),
        fc.array(positiveMinor(10n ** 12n), { maxLength: 5 }),
        fc.constantFrom('completed', 'partial', 'failed', 'cancelled'),
        (sources, paidItems, status) => {
          const owed = fundsOwedBack({ status, runCurrency: 'USD', fundingCurrency: 'USD', sources, paidItems });
          for (const o of owed) {
            expect(o.owed >= 0n && o.owed <= o.received).toBe(true);
            if (status === 'cancelled' || o.currency !== 'USD') expect(o.owed).toBe(o.received);
            else {
              const spent = paidItems.reduce((n, a) => n + a, 0n);
              expect(o.owed).toBe(o.received > spent ? o.received - spent : 0n);
            }
          }
          const position = fundsPosition(owed, []);
          const plan = planFundsReturns(sources, position, []);
          for (const p of position) {
            const mine = plan.filter((x) => x.currency === p.currency);
            expect(mine.reduce((n, x) => n + x.amount, 0n)).toBe(p.outstanding);
            for (const x of mine) {
              const src = sources.filter((s) => s.ref === x.ref);
              expect(x.amount > 0n && x.amount <= src.reduce((n, s) => n + s.amount, 0n)).toBe(true);
            }
          }
        },
      ),
      params,
    );
  });
});
