import { DomainError } from '../../domain/errors';
import { LINK_CANCELLABLE_STATUSES, LINK_EXPIRABLE_STATUSES, paymentLinkTransitions } from '../../domain/payment-links';
import { LIVE_PAYMENT_STATUSES, paymentTransitions } from '../../domain/payments';
import { IllegalTransition } from '../../domain/transitions';
import { LINK_STATUSES, LEDGER_PAYMENT_STATUSES } from '../../domain/verdicts';

function refused(f: () => unknown, code: string): void {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(IllegalTransition);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).type).toBe('conflict');
    expect((e as DomainError).code).toBe(code);
    expect((e as Error).name).toBe('IllegalTransition');
    return;
  }
  throw new Error('expected an IllegalTransition');
}

describe('payment link transition table', () => {
  const allowed: Array<[string, string]> = [
    ['draft', 'active'],
    ['draft', 'cancelled'],
    ['active', 'viewed'],
    ['active', 'processing'],
    ['active', 'paid'],
    ['active', 'settled'],
    ['active', 'cancelled'],
    ['active', 'expired'],
    ['viewed', 'processing'],
    ['viewed', 'paid'],
    ['viewed', 'settled'],
    ['viewed', 'cancelled'],
    ['viewed', 'expired'],
    ['processing', 'viewed'],
    ['processing', 'paid'],
    ['processing', 'settled'],
    ['processing', 'cancelled'],
    ['processing', 'expired'],
    ['paid', 'settled'],
    ['paid', 'refunded'],
    // Issue 12: a merchant refund of a settled link; a bank return reopening a paid/settled link as processing.
    ['settled', 'refunded'],
    ['paid', 'processing'],
    ['settled', 'processing'],
  ];

  it('covers every spec 2.3 status', () => {
    expect([...paymentLinkTransitions.statuses].sort()).toEqual([...LINK_STATUSES].sort());
    expect([...paymentLinkTransitions.terminal].sort()).toEqual(['cancelled', 'expired', 'refunded']);
  });

  it.each(allowed)('accepts %s -> %s', (from, to) => {
    expect(paymentLinkTransitions.assert(from, to as never)).toBe(to);
  });

  it('accepts nothing else', () => {
    for (const from of LINK_STATUSES) {
      for (const to of LINK_STATUSES) {
        const ok = allowed.some(([f, t]) => f === from && t === to);
        expect([from, to, paymentLinkTransitions.can(from, to)]).toEqual([from, to, ok]);
      }
    }
  });

  it.each([
    ['draft', 'paid'],
    ['cancelled', 'active'],
    ['expired', 'viewed'],
    ['settled', 'paid'],
    ['viewed', 'active'],
    ['draft', 'draft'],
    ['bogus', 'active'],
  ])('refuses %s -> %s with 409 payment_link_state_changed', (from, to) => {
    refused(() => paymentLinkTransitions.assert(from, to as never), 'payment_link_state_changed');
  });

  it('derives the cancel and expiry sets used by the commands', () => {
    expect(LINK_CANCELLABLE_STATUSES).toEqual(['draft', 'active', 'viewed', 'processing']);
    expect(LINK_EXPIRABLE_STATUSES).toEqual(['active', 'viewed', 'processing']);
  });
});

describe('payment transition table', () => {
  const allowed: Array<[string, string]> = [
    ['awaiting', 'underpaid'],
    ['awaiting', 'paid'],
    ['awaiting', 'overpaid'],
    ['awaiting', 'expired'],
    ['awaiting', 'abandoned'],
    ['underpaid', 'paid'],
    ['underpaid', 'overpaid'],
    ['underpaid', 'unmatched'],
    ['paid', 'settled'],
    ['overpaid', 'settled'],
    ['expired', 'unmatched'],
    ['abandoned', 'unmatched'],
    // Issue 12 (provider-settled rails): a bank return overrides paid/settled; refunds.
    ['paid', 'underpaid'],
    ['overpaid', 'underpaid'],
    ['settled', 'underpaid'],
    ['overpaid', 'paid'],
    ['paid', 'refunded'],
    ['overpaid', 'refunded'],
    ['settled', 'refunded'],
  ];

  it('covers every status the ledger produces', () => {
    expect([...paymentTransitions.statuses].sort()).toEqual([...LEDGER_PAYMENT_STATUSES].sort());
    expect([...paymentTransitions.terminal].sort()).toEqual(['refunded', 'unmatched']);
    expect(LIVE_PAYMENT_STATUSES).toEqual(['awaiting', 'underpaid']);
  });

  it.each(allowed)('accepts %s -> %s', (from, to) => {
    expect(paymentTransitions.assert(from, to as never)).toBe(to);
  });

  it('accepts nothing else', () => {
    for (const from of LEDGER_PAYMENT_STATUSES) {
      for (const to of LEDGER_PAYMENT_STATUSES) {
        const ok = allowed.some(([f, t]) => f === from && t === to);
        expect([from, to, paymentTransitions.can(from, to)]).toEqual([from, to, ok]);
      }
    }
  });

  it.each([
    ['settled', 'paid'],
    ['unmatched', 'paid'],
    ['refunded', 'underpaid'],
    ['expired', 'paid'],
    ['awaiting', 'settled'],
    ['underpaid', 'expired'],
    ['awaiting', 'refunded'],
  ])('refuses %s -> %s with 409 payment_state_changed', (from, to) => {
    refused(() => paymentTransitions.assert(from, to as never), 'payment_state_changed');
  });
});
