/**
 * Bank pay-in rules (issue 12; domain/bank-collection.ts): the provider-settled reducer (spec 2.4,
 * part 3, part 6: plus or minus 1% band, events at most once, a later underpaid overriding
 * paid/settled), settlement owed, the fiat caps of `payer_type` and the `payer_state` rule; the
 * sandbox provider's CLABE check digit against the beneficiary validator.
 */
import {
  applyBankCredit,
  applyBankReturn,
  bankBand,
  bankSettlementDue,
  bankTolerance,
  BANK_MATCHING,
  checkBankPayer,
  fiatCapMinor,
} from '../../domain/bank-collection';
import { isValidClabe } from '../../domain/bank-details';
import { DomainError } from '../../domain/errors';
import { amountVerdict, newPaymentLedger } from '../../domain/verdicts';
import { clabeFor, referenceFor } from '../../providers/bank-collection';

const fresh = () => newPaymentLedger(100000n);

function fails(f: () => unknown, type: string, code: string, param?: string): DomainError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect([(e as DomainError).type, (e as DomainError).code]).toEqual([type, code]);
    if (param) expect((e as DomainError).param).toBe(param);
    return e as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('the 1% band', () => {
  test('tolerance floors 1% of the link amount; the band is inclusive', () => {
    expect(bankTolerance(100000n)).toBe(1000n);
    expect(bankTolerance(199n)).toBe(1n);
    expect(bankBand(99000n, 100000n)).toBe('within');
    expect(bankBand(98999n, 100000n)).toBe('short');
    expect(bankBand(101000n, 100000n)).toBe('within');
    expect(bankBand(101001n, 100000n)).toBe('over');
  });
});

describe('applyBankCredit', () => {
  test('short is underpaid with the received amount, once; a top-up into the band is paid', () => {
    const a = applyBankCredit(fresh(), 40000n);
    expect(a).toMatchObject({ effect: 'applied', events: ['payment.underpaid'], next: { status: 'underpaid', received: 40000n } });
    const b = applyBankCredit(a.next, 10000n);
    expect(b).toMatchObject({ events: [], next: { status: 'underpaid', received: 50000n } });
    const c = applyBankCredit(b.next, 49100n);
    expect(c).toMatchObject({ events: ['payment.paid'], next: { status: 'paid', received: 99100n } });
  });

  test('within 1% above is paid, beyond is overpaid once; a paid one reads amount_verdict null', () => {
    const paid = applyBankCredit(fresh(), 100900n);
    expect(paid.next.status).toBe('paid');
    expect(amountVerdict(paid.next, { providerSettled: true })).toBeNull();
    expect(amountVerdict({ ...paid.next, status: 'settled' }, { providerSettled: true })).toBeNull();
    const over = applyBankCredit(fresh(), 101001n);
    expect(over).toMatchObject({ events: ['payment.overpaid'], next: { status: 'overpaid', overpaidEmitted: true } });
    expect(amountVerdict(over.next, { providerSettled: true })).toBe('overpaid');
  });

  test('a credit in another currency is recorded only; closed payments become unmatched deposit_after_close; later ones are recorded only', () => {
    expect(applyBankCredit(fresh(), 100000n, false)).toMatchObject({
      effect: 'recorded_only',
      events: [],
      next: { status: 'awaiting', received: 0n },
    });
    for (const status of ['expired', 'abandoned'] as const) {
      expect(applyBankCredit({ ...fresh(), status }, 5n)).toMatchObject({
        events: ['payment.unmatched'],
        unmatchedReason: 'deposit_after_close',
        next: { status: 'unmatched', received: 5n },
      });
    }
    for (const status of ['paid', 'settled', 'unmatched', 'refunded'] as const) {
      expect(applyBankCredit({ ...fresh(), status }, 5n)).toMatchObject({ effect: 'recorded_only', events: [] });
    }
    fails(() => applyBankCredit(fresh(), 0n), 'invalid_request', 'amount_invalid', 'amount');
  });
});

describe('applyBankReturn', () => {
  test('a return leaving a settled payment short overrides it with underpaid, the event at most once', () => {
    const settled = { ...applyBankCredit(fresh(), 100000n).next, status: 'settled' as const };
    const r = applyBankReturn(settled, 100000n);
    expect(r).toMatchObject({ events: ['payment.underpaid'], next: { status: 'underpaid', received: 0n, underpaidEmitted: true } });
    const again = applyBankReturn({ ...r.next, status: 'paid', received: 100000n }, 50000n);
    expect(again).toMatchObject({ events: [], next: { status: 'underpaid', received: 50000n } });
  });

  test('a return keeping the total within the band changes no status; an overpaid one back in the band is paid', () => {
    const paid = applyBankCredit(applyBankCredit(fresh(), 100000n).next, 500n, true);
    expect(applyBankReturn({ ...fresh(), status: 'paid', received: 100500n }, 500n)).toMatchObject({
      events: [],
      next: { status: 'paid', received: 100000n },
    });
    expect(paid.effect).toBe('recorded_only');
    expect(applyBankReturn({ ...fresh(), status: 'overpaid', received: 105000n }, 5000n).next.status).toBe('paid');
    expect(applyBankReturn({ ...fresh(), status: 'underpaid', received: 3000n }, 5000n).next).toMatchObject({
      status: 'underpaid',
      received: 0n,
    });
  });
});

test('settlement owed: received capped at the invoice, less what was paid out', () => {
  expect(bankSettlementDue(99500n, 100000n, 0n)).toBe(99500n);
  expect(bankSettlementDue(103000n, 100000n, 0n)).toBe(100000n);
  expect(bankSettlementDue(100000n, 100000n, 100000n)).toBe(0n);
  expect(bankSettlementDue(50000n, 100000n, 100000n)).toBe(0n);
});

describe('payer checks', () => {
  const base = {
    rail: 'ach',
    currency: 'USD',
    decimals: 2,
    amountMinor: 500000n,
    payerType: 'individual' as const,
    payerState: 'CA',
    merchantType: 'business' as const,
  };
  test('payer_type decides the cap', () => {
    expect(fiatCapMinor('USD', 2, 'individual')).toBe(1000000n);
    expect(fiatCapMinor('XXX', 2, 'business')).toBeNull();
    const e = fails(() => checkBankPayer({ ...base, amountMinor: 1000001n }), 'capability_unavailable', 'fiat_cap_exceeded');
    expect(e.details).toEqual({ cap: { amount: '1000000', currency: 'USD', decimals: 2 }, payer_type: 'individual' });
    expect(() => checkBankPayer({ ...base, amountMinor: 1000001n, payerType: 'business' })).not.toThrow();
  });

  test('payer_state only for an individual payer on a US rail against an individual merchant', () => {
    expect(() => checkBankPayer({ ...base, payerState: null })).not.toThrow();
    expect(() => checkBankPayer({ ...base, merchantType: 'individual', payerType: 'business', payerState: null })).not.toThrow();
    expect(() => checkBankPayer({ ...base, merchantType: 'individual', rail: 'sepa', currency: 'EUR', payerState: null })).not.toThrow();
    const ind = { ...base, merchantType: 'individual' as const };
    fails(() => checkBankPayer({ ...ind, payerState: null }), 'invalid_request', 'parameter_missing', 'payer_state');
    fails(() => checkBankPayer({ ...ind, payerState: 'QQ' }), 'invalid_request', 'parameter_invalid', 'payer_state');
    fails(() => checkBankPayer({ ...ind, rail: 'wire', payerState: 'HI' }), 'capability_unavailable', 'payer_state_unsupported');
    expect(() => checkBankPayer({ ...ind, payerState: 'TX' })).not.toThrow();
  });
});

test('sandbox provider: CLABE check digit is valid, references are typable, matching per rail', () => {
  for (const seed of ['pay_a', 'pay_b', 'pay_c', 'pay_d']) {
    expect(isValidClabe(clabeFor(seed))).toBe(true);
    expect(referenceFor(seed)).toMatch(/^PL[A-HJ-NP-Z2-9]{10}$/);
  }
  expect(BANK_MATCHING).toEqual({
    ach: 'account_number',
    wire: 'account_number',
    faster_payments: 'account_number',
    pix: 'account_number',
    spei: 'account_number',
    sepa: 'reference',
  });
});
