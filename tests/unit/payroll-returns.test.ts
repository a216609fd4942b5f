/**
 * Money a payroll run owes back (issue 24; domain/payroll-returns.ts): what is owed per currency
 * received (cancelled: everything confirmed; finished: unpaid items and overfunding, crypto funding
 * at the per-item USDC cost; open runs nothing), where it stands with returns, which sources it goes
 * back to (newest first, never more than a source sent, nothing twice), the return table, keys and
 * failure reasons.
 */
import {
  fundsReturnTransitions,
  fundsOwedBack,
  fundsPosition,
  fundsReturnKey,
  hasUnreturnedFunds,
  normalizeFundsReturnFailure,
  planFundsReturns,
  type FundingSource,
  type FundsReturnRecord,
} from '../../domain/payroll-returns';
import { caught } from '../helpers/domain';

const credit = (ref: string, amount: bigint, confirmed = true): FundingSource => ({
  kind: 'bank_credit',
  ref,
  amount,
  currency: 'USD',
  confirmed,
});
const usdc = (ref: string, amount: bigint): FundingSource => ({
  kind: 'chain_transfer',
  ref: `tempo:${ref}`,
  amount,
  currency: 'USDC',
  confirmed: true,
});
const usd = { runCurrency: 'USD', fundingCurrency: 'USD' };

describe('what a run owes back', () => {
  it('a cancelled run owes everything confirmed, per currency received; a credit its sender returned is not owed', () => {
    const owed = fundsOwedBack({
      ...usd,
      status: 'cancelled',
      sources: [credit('bcp_1', 7000n), credit('bcp_2', 3000n), credit('bcp_3', 500n, false), usdc('0xa', 1_000_000n)],
      paidItems: [],
    });
    expect(owed).toEqual([
      { currency: 'USD', received: 10000n, spent: 0n, owed: 10000n },
      { currency: 'USDC', received: 1_000_000n, spent: 0n, owed: 1_000_000n },
    ]);
  });

  it('a run not over owes nothing yet (funding, funded, executing), even in another currency', () => {
    for (const status of ['reviewed', 'funding_pending', 'funded', 'executing']) {
      const owed = fundsOwedBack({ ...usd, status, sources: [credit('bcp_1', 12500n), usdc('0xa', 5n)], paidItems: [] });
      expect(owed.map((o) => o.owed)).toEqual([0n, 0n]);
    }
  });

  it('a finished bank-funded run owes its unpaid items and overfunding; completed and exact owes nothing', () => {
    expect(fundsOwedBack({ ...usd, status: 'completed', sources: [credit('bcp_1', 10000n)], paidItems: [6000n, 4000n] })[0].owed).toBe(0n);
    expect(fundsOwedBack({ ...usd, status: 'completed', sources: [credit('bcp_1', 12500n)], paidItems: [6000n, 4000n] })[0]).toEqual({
      currency: 'USD',
      received: 12500n,
      spent: 10000n,
      owed: 2500n,
    });
    expect(fundsOwedBack({ ...usd, status: 'partial', sources: [credit('bcp_1', 10000n)], paidItems: [6000n] })[0].owed).toBe(4000n);
    expect(fundsOwedBack({ ...usd, status: 'failed', sources: [credit('bcp_1', 10000n)], paidItems: [] })[0].owed).toBe(10000n);
    // Paid more than was confirmed (never by the execute gate): nothing owed, never negative.
    expect(fundsOwedBack({ ...usd, status: 'completed', sources: [credit('bcp_1', 100n)], paidItems: [6000n] })[0].owed).toBe(0n);
  });

  it('a crypto-funded run owes USDC less each paid item at its USDC cost rounded up; any other currency in full', () => {
    // EUR at 1.08 USDC: 1.00 EUR = 1,080,000; the price of 100.01 EUR is 108,010,800.
    const sources = [usdc('0xa', 108_010_800n), credit('bcp_x', 2000n)];
    const eur = { runCurrency: 'EUR', fundingCurrency: 'USDC', sources };
    expect(fundsOwedBack({ ...eur, status: 'completed', paidItems: [10000n, 1n] })).toEqual([
      { currency: 'USD', received: 2000n, spent: 0n, owed: 2000n },
      { currency: 'USDC', received: 108_010_800n, spent: 108_010_800n, owed: 0n },
    ]);
    expect(fundsOwedBack({ ...eur, status: 'partial', paidItems: [10000n] })[1]).toMatchObject({ spent: 108_000_000n, owed: 10_800n });
    expect(() => fundsOwedBack({ runCurrency: 'EUR', fundingCurrency: 'GBP', status: 'completed', sources, paidItems: [1n] })).toThrow(
      RangeError,
    );
  });
});

describe('returns', () => {
  const sources = [credit('bcp_1', 7000n), credit('bcp_2', 3000n), credit('bcp_3', 500n)];
  const owed = fundsOwedBack({ ...usd, status: 'cancelled', sources, paidItems: [] });

  it('plans the outstanding amount newest source first, each within what it sent; nothing twice', () => {
    const pos = fundsPosition(owed, []);
    expect(pos).toEqual([{ currency: 'USD', owed: 10500n, returned: 0n, in_flight: 0n, outstanding: 10500n, unreturned: 10500n }]);
    expect(hasUnreturnedFunds(pos)).toBe(true);
    const plan = planFundsReturns(sources, pos, []);
    expect(plan).toEqual([
      { kind: 'bank_credit', ref: 'bcp_3', currency: 'USD', amount: 500n },
      { kind: 'bank_credit', ref: 'bcp_2', currency: 'USD', amount: 3000n },
      { kind: 'bank_credit', ref: 'bcp_1', currency: 'USD', amount: 7000n },
    ]);
    // The same request again while they are in flight, or once returned: nothing more.
    const inFlight: FundsReturnRecord[] = plan.map((p) => ({
      sourceRef: p.ref,
      currency: p.currency,
      amount: p.amount,
      status: 'submitted',
    }));
    const pos2 = fundsPosition(owed, inFlight);
    expect(pos2[0]).toMatchObject({ in_flight: 10500n, outstanding: 0n, unreturned: 10500n });
    expect(planFundsReturns(sources, pos2, inFlight)).toEqual([]);
    const done = inFlight.map((r) => ({ ...r, status: 'returned' as const }));
    const pos3 = fundsPosition(owed, done);
    expect(pos3[0]).toMatchObject({ returned: 10500n, outstanding: 0n, unreturned: 0n });
    expect(hasUnreturnedFunds(pos3)).toBe(false);
    expect(planFundsReturns(sources, pos3, done)).toEqual([]);
  });

  it('a failed return is owed again and goes back to the same source; a partial owed amount takes the newest sources', () => {
    const failed: FundsReturnRecord[] = [{ sourceRef: 'bcp_3', currency: 'USD', amount: 500n, status: 'failed' }];
    const surplus = fundsOwedBack({ ...usd, status: 'completed', sources, paidItems: [10000n] });
    const pos = fundsPosition(surplus, failed);
    expect(pos[0]).toMatchObject({ owed: 500n, returned: 0n, in_flight: 0n, outstanding: 500n });
    expect(planFundsReturns(sources, pos, failed)).toEqual([{ kind: 'bank_credit', ref: 'bcp_3', currency: 'USD', amount: 500n }]);
    // An item returned later raises what is owed: the rest comes from the next newest source.
    const more = fundsOwedBack({ ...usd, status: 'completed', sources, paidItems: [6000n] });
    const returned: FundsReturnRecord[] = [{ sourceRef: 'bcp_3', currency: 'USD', amount: 500n, status: 'returned' }];
    const pos2 = fundsPosition(more, returned);
    expect(pos2[0]).toMatchObject({ owed: 4500n, returned: 500n, outstanding: 4000n, unreturned: 4000n });
    expect(planFundsReturns(sources, pos2, returned)).toEqual([
      { kind: 'bank_credit', ref: 'bcp_2', currency: 'USD', amount: 3000n },
      { kind: 'bank_credit', ref: 'bcp_1', currency: 'USD', amount: 1000n },
    ]);
  });

  it('returns of a currency no longer owed stay in the position; a source returned by its sender is never a destination', () => {
    const pos = fundsPosition([], [{ sourceRef: 'tempo:0xa', currency: 'USDC', amount: 5n, status: 'returned' }]);
    expect(pos).toEqual([{ currency: 'USDC', owed: 0n, returned: 5n, in_flight: 0n, outstanding: 0n, unreturned: 0n }]);
    const bounced = [credit('bcp_1', 7000n, false), credit('bcp_2', 3000n)];
    const o = fundsOwedBack({ ...usd, status: 'cancelled', sources: bounced, paidItems: [] });
    expect(planFundsReturns(bounced, fundsPosition(o, []), [])).toEqual([
      { kind: 'bank_credit', ref: 'bcp_2', currency: 'USD', amount: 3000n },
    ]);
  });

  it('moves pending -> submitted -> returned | failed; keys and failure reasons', () => {
    expect(fundsReturnTransitions.can('pending', 'submitted')).toBe(true);
    expect(fundsReturnTransitions.can('pending', 'returned')).toBe(true);
    expect(fundsReturnTransitions.can('submitted', 'failed')).toBe(true);
    expect(fundsReturnTransitions.terminal).toEqual(['returned', 'failed']);
    expect(caught(() => fundsReturnTransitions.assert('returned', 'failed')).code).toBe('payroll_funds_return_state_changed');
    expect(fundsReturnKey('pr_abc', 2)).toBe('pr_abc:return:2');
    expect(normalizeFundsReturnFailure('sender_unknown')).toBe('sender_unknown');
    expect(normalizeFundsReturnFailure('R03 No account / unable to locate')).toBe('provider_error');
    expect(normalizeFundsReturnFailure(null)).toBe('provider_error');
  });
});
