import { DomainError } from '../../domain/errors';
import {
  amountVerdict,
  applyDeposit,
  closeOnLinkCancel,
  closeOnLinkEnd,
  closeOnLinkExpiry,
  expire,
  isLinkEditable,
  isLinkOpenForPayment,
  isLinkTerminal,
  isPaymentStatusFilterValue,
  LEDGER_PAYMENT_STATUSES,
  ledgerFigures,
  LINK_EDITABLE_STATUSES,
  LINK_STATUS_GROUPS,
  LINK_STATUSES,
  LINK_TERMINAL_STATUSES,
  linkStatusAfterPayment,
  linkStatusGroups,
  LinkStatus,
  NEEDS_ATTENTION_STATUS,
  newPaymentLedger,
  PAYMENT_STATUS_FILTER_VALUES,
  PaymentLedger,
  PaymentStatus,
} from '../../domain/verdicts';

const TOTAL = 101000000n; // 100 USD + 1% fee, in USDC units

const ledger = (over: Partial<PaymentLedger> = {}): PaymentLedger => ({
  status: 'awaiting',
  expected: TOTAL,
  received: 0n,
  underpaidEmitted: false,
  overpaidEmitted: false,
  ...over,
});

describe('status lists', () => {
  it('filter list has the 12 closed values', () => {
    expect(PAYMENT_STATUS_FILTER_VALUES).toEqual([
      'awaiting',
      'processing',
      'funds_received',
      'underpaid',
      'paid',
      'overpaid',
      'settled',
      'unmatched',
      'expired',
      'abandoned',
      'refunded',
      'failed',
    ]);
    expect(new Set(PAYMENT_STATUS_FILTER_VALUES).size).toBe(12);
    for (const s of LEDGER_PAYMENT_STATUSES) expect(PAYMENT_STATUS_FILTER_VALUES).toContain(s);
    expect(isPaymentStatusFilterValue('funds_received')).toBe(true);
    expect(isPaymentStatusFilterValue('pending')).toBe(false);
    expect(isPaymentStatusFilterValue(3)).toBe(false);
  });
});

describe('newPaymentLedger', () => {
  it('starts awaiting with nothing received', () => {
    expect(newPaymentLedger(TOTAL)).toEqual(ledger());
    expect(() => newPaymentLedger(0n)).toThrow(RangeError);
  });
});

describe('applyDeposit (spec part 3, 2.4, 6)', () => {
  it('exact deposit: awaiting -> paid, payment.paid, verdict exact', () => {
    const r = applyDeposit(ledger(), TOTAL);
    expect(r.next).toEqual(ledger({ status: 'paid', received: TOTAL }));
    expect(r.effect).toBe('applied');
    expect(r.events).toEqual(['payment.paid']);
    expect(r.verdict).toBe('exact');
    expect(r.unmatchedReason).toBeNull();
    expect([r.surplus, r.shortfall]).toEqual([0n, 0n]);
  });

  it('short deposit: underpaid once, then top-ups stay quiet until paid', () => {
    const a = applyDeposit(ledger(), 50000000n);
    expect(a.next.status).toBe('underpaid');
    expect(a.next.received).toBe(50000000n);
    expect(a.next.underpaidEmitted).toBe(true);
    expect(a.events).toEqual(['payment.underpaid']);
    expect(a.verdict).toBe('underpaid');
    expect(a.shortfall).toBe(51000000n);
    expect(a.surplus).toBe(0n);

    const b = applyDeposit(a.next, 1000000n);
    expect(b.next.status).toBe('underpaid');
    expect(b.events).toEqual([]);
    expect(b.shortfall).toBe(50000000n);

    const c = applyDeposit(b.next, 50000000n);
    expect(c.next.status).toBe('paid');
    expect(c.next.received).toBe(TOTAL);
    expect(c.events).toEqual(['payment.paid']);
    expect(c.verdict).toBe('exact');
  });

  it('over deposit: overpaid with surplus, only payment.overpaid', () => {
    const r = applyDeposit(ledger(), TOTAL + 5n);
    expect(r.next.status).toBe('overpaid');
    expect(r.next.overpaidEmitted).toBe(true);
    expect(r.events).toEqual(['payment.overpaid']);
    expect(r.verdict).toBe('overpaid');
    expect(r.surplus).toBe(5n);
    expect(r.shortfall).toBe(0n);
  });

  it('top-up beyond the total: underpaid -> overpaid', () => {
    const a = applyDeposit(ledger(), 1n);
    const b = applyDeposit(a.next, TOTAL);
    expect(b.next.status).toBe('overpaid');
    expect(b.events).toEqual(['payment.overpaid']);
    expect(b.surplus).toBe(1n);
    expect(b.next.received).toBe(TOTAL + 1n);
  });

  it('does not re-emit overpaid when the flag is already set', () => {
    const r = applyDeposit(ledger({ overpaidEmitted: true }), TOTAL * 2n);
    expect(r.events).toEqual([]);
    expect(r.next.status).toBe('overpaid');
  });

  it('does not re-emit underpaid when a previous producer already emitted it', () => {
    const r = applyDeposit(ledger({ underpaidEmitted: true }), 1n);
    expect(r.events).toEqual([]);
    expect(r.next.status).toBe('underpaid');
  });

  it.each(['expired', 'abandoned'] as const)('deposit on a closed unpaid (%s) payment -> unmatched deposit_after_close', (status) => {
    const r = applyDeposit(ledger({ status }), 7n);
    expect(r.next.status).toBe('unmatched');
    expect(r.next.received).toBe(7n);
    expect(r.effect).toBe('applied');
    expect(r.events).toEqual(['payment.unmatched']);
    expect(r.unmatchedReason).toBe('deposit_after_close');
    expect(r.verdict).toBe('unmatched');
    expect([r.surplus, r.shortfall]).toEqual([0n, 0n]);
  });

  it.each(['paid', 'overpaid', 'settled', 'unmatched'] as const)('deposit on %s is recorded only', (status) => {
    const p = ledger({ status, received: TOTAL });
    const r = applyDeposit(p, 123n);
    expect(r.effect).toBe('recorded_only');
    expect(r.next).toEqual(p);
    expect(r.next).not.toBe(p);
    expect(r.events).toEqual([]);
    expect(r.unmatchedReason).toBeNull();
  });

  it('treats a stored status the ledger does not produce as recorded only', () => {
    const p = ledger({ status: 'refunded' as PaymentStatus });
    expect(applyDeposit(p, 1n).effect).toBe('recorded_only');
  });

  it('does not mutate its input', () => {
    const p = ledger();
    const copy = { ...p };
    applyDeposit(p, 1n);
    expect(p).toEqual(copy);
  });

  it.each([0n, -1n])('rejects a non-positive amount %s', (amount) => {
    expect(() => applyDeposit(ledger(), amount)).toThrow(DomainError);
    try {
      applyDeposit(ledger(), amount);
    } catch (e) {
      expect((e as DomainError).code).toBe('amount_invalid');
    }
  });

  it('rejects a number amount', () => {
    expect(() => applyDeposit(ledger(), 5 as unknown as bigint)).toThrow(DomainError);
  });
});

describe('closing', () => {
  it('closeOnLinkCancel: underpaid -> unmatched partial_before_cancel, money kept', () => {
    const r = closeOnLinkCancel(ledger({ status: 'underpaid', received: 10n, underpaidEmitted: true }));
    expect(r.next).toEqual(ledger({ status: 'unmatched', received: 10n, underpaidEmitted: true }));
    expect(r.changed).toBe(true);
    expect(r.events).toEqual(['payment.unmatched']);
    expect(r.unmatchedReason).toBe('partial_before_cancel');
  });

  it('closeOnLinkCancel: awaiting -> abandoned, no event', () => {
    const r = closeOnLinkCancel(ledger());
    expect(r.next.status).toBe('abandoned');
    expect(r.events).toEqual([]);
    expect(r.unmatchedReason).toBeNull();
    expect(r.changed).toBe(true);
  });

  it.each(['paid', 'overpaid', 'settled', 'unmatched', 'expired', 'abandoned'] as const)(
    'closeOnLinkCancel leaves %s unchanged',
    (status) => {
      const p = ledger({ status });
      const r = closeOnLinkCancel(p);
      expect(r).toEqual({ next: p, changed: false, events: [], unmatchedReason: null });
    },
  );

  it('expire: awaiting -> expired with payment.expired; underpaid stays', () => {
    const a = expire(ledger());
    expect(a.next.status).toBe('expired');
    expect(a.events).toEqual(['payment.expired']);
    const u = expire(ledger({ status: 'underpaid', received: 3n }));
    expect(u.next.status).toBe('underpaid');
    expect(u.changed).toBe(false);
    expect(u.events).toEqual([]);
    expect(expire(ledger({ status: 'paid', received: TOTAL })).changed).toBe(false);
  });

  it('closeOnLinkExpiry: awaiting -> expired, underpaid -> unmatched partial_before_cancel', () => {
    expect(closeOnLinkExpiry(ledger()).events).toEqual(['payment.expired']);
    const u = closeOnLinkExpiry(ledger({ status: 'underpaid', received: 3n }));
    expect(u.next.status).toBe('unmatched');
    expect(u.next.received).toBe(3n);
    expect(u.events).toEqual(['payment.unmatched']);
    expect(u.unmatchedReason).toBe('partial_before_cancel');
    expect(closeOnLinkExpiry(ledger({ status: 'settled', received: TOTAL })).changed).toBe(false);
  });

  it('closeOnLinkEnd dispatches', () => {
    expect(closeOnLinkEnd(ledger(), 'cancel').next.status).toBe('abandoned');
    expect(closeOnLinkEnd(ledger(), 'expiry').next.status).toBe('expired');
  });

  it('a deposit after cancel of an awaiting payment is unmatched deposit_after_close', () => {
    const closed = closeOnLinkCancel(ledger()).next;
    const r = applyDeposit(closed, TOTAL);
    expect(r.next.status).toBe('unmatched');
    expect(r.unmatchedReason).toBe('deposit_after_close');
    expect(applyDeposit(r.next, 1n).effect).toBe('recorded_only');
  });
});

describe('amountVerdict (spec 2.4)', () => {
  it.each([
    ['awaiting, nothing received', ledger(), null],
    ['underpaid', ledger({ status: 'underpaid', received: 1n }), 'underpaid'],
    ['paid exactly', ledger({ status: 'paid', received: TOTAL }), 'exact'],
    ['settled exactly', ledger({ status: 'settled', received: TOTAL }), 'exact'],
    ['settled above total', ledger({ status: 'settled', received: TOTAL + 1n }), 'overpaid'],
    ['overpaid', ledger({ status: 'overpaid', received: TOTAL + 1n }), 'overpaid'],
    ['paid short (provider)', ledger({ status: 'paid', received: TOTAL - 1n }), null],
    ['unmatched', ledger({ status: 'unmatched', received: 5n }), 'unmatched'],
    ['expired', ledger({ status: 'expired' }), null],
    ['abandoned', ledger({ status: 'abandoned' }), null],
  ] as Array<[string, PaymentLedger, string | null]>)('%s -> %s', (_label, p, v) => {
    expect(amountVerdict(p)).toBe(v);
  });

  it('exact becomes overpaid when another payment of the link holds money', () => {
    expect(amountVerdict(ledger({ status: 'paid', received: TOTAL }), { otherPaymentsHoldMoney: true })).toBe('overpaid');
    expect(amountVerdict(ledger({ status: 'underpaid', received: 1n }), { otherPaymentsHoldMoney: true })).toBe('underpaid');
  });

  it('provider-settled paid/settled reads null; overpaid and underpaid still read', () => {
    expect(amountVerdict(ledger({ status: 'paid', received: TOTAL }), { providerSettled: true })).toBeNull();
    expect(amountVerdict(ledger({ status: 'settled', received: TOTAL }), { providerSettled: true })).toBeNull();
    expect(amountVerdict(ledger({ status: 'overpaid', received: TOTAL + 1n }), { providerSettled: true })).toBe('overpaid');
    expect(amountVerdict(ledger({ status: 'underpaid', received: 1n }), { providerSettled: true })).toBe('underpaid');
  });
});

describe('ledgerFigures', () => {
  it('computes surplus and shortfall', () => {
    expect(ledgerFigures(ledger())).toEqual({ surplus: 0n, shortfall: TOTAL });
    expect(ledgerFigures(ledger({ status: 'overpaid', received: TOTAL + 9n }))).toEqual({ surplus: 9n, shortfall: 0n });
    expect(ledgerFigures(ledger({ status: 'unmatched', received: TOTAL + 9n }))).toEqual({ surplus: 0n, shortfall: 0n });
    expect(ledgerFigures(ledger({ status: 'expired' }))).toEqual({ surplus: 0n, shortfall: 0n });
  });
});

describe('link status lists', () => {
  it('terminal, editable and open sets', () => {
    expect([...LINK_TERMINAL_STATUSES].sort()).toEqual(['cancelled', 'expired', 'refunded', 'settled']);
    expect(LINK_EDITABLE_STATUSES).toEqual(['draft', 'active', 'viewed']);
    for (const s of ['active', 'viewed', 'processing']) expect(isLinkOpenForPayment(s)).toBe(true);
    for (const s of ['draft', 'paid', 'settled', 'cancelled', 'expired', 'refunded', 'bogus']) expect(isLinkOpenForPayment(s)).toBe(false);
    expect(isLinkTerminal('paid')).toBe(false);
    expect(isLinkTerminal('settled')).toBe(true);
    expect(isLinkEditable('viewed')).toBe(true);
    expect(isLinkEditable('processing')).toBe(false);
    expect(LINK_STATUSES).toHaveLength(9);
  });
});

describe('linkStatusAfterPayment (spec 2.3, part 3)', () => {
  it.each(['active', 'viewed'] as const)('underpaid on %s -> processing, partial set, partially_paid', (s) => {
    expect(linkStatusAfterPayment(s, 'underpaid')).toEqual({
      status: 'processing',
      partialPayment: 'set',
      events: ['payment_link.partially_paid'],
    });
  });

  it('underpaid again on processing with a partial: set the new partial, no second event', () => {
    expect(linkStatusAfterPayment('processing', 'underpaid', true)).toEqual({ status: 'processing', partialPayment: 'set', events: [] });
    expect(linkStatusAfterPayment('processing', 'underpaid', false).events).toEqual(['payment_link.partially_paid']);
  });

  it.each(['paid', 'overpaid'] as const)('%s payment on an open link -> paid, partial cleared', (ps) => {
    for (const s of ['active', 'viewed', 'processing'] as const) {
      expect(linkStatusAfterPayment(s, ps)).toEqual({ status: 'paid', partialPayment: 'clear', events: ['payment_link.paid'] });
    }
  });

  it('settled: paid -> settled; open -> settled with paid first', () => {
    expect(linkStatusAfterPayment('paid', 'settled')).toEqual({
      status: 'settled',
      partialPayment: 'clear',
      events: ['payment_link.settled'],
    });
    expect(linkStatusAfterPayment('processing', 'settled')).toEqual({
      status: 'settled',
      partialPayment: 'clear',
      events: ['payment_link.paid', 'payment_link.settled'],
    });
  });

  it.each(['unmatched', 'expired', 'abandoned'] as const)('%s on processing -> viewed, partial cleared (no-funds failure)', (ps) => {
    expect(linkStatusAfterPayment('processing', ps)).toEqual({ status: 'viewed', partialPayment: 'clear', events: [] });
  });

  it.each(['active', 'viewed', 'paid', 'settled', 'cancelled', 'expired', 'refunded', 'draft'] as const)(
    'no-funds failure leaves a %s link unchanged',
    (s) => {
      for (const ps of ['unmatched', 'expired', 'abandoned'] as const) {
        expect(linkStatusAfterPayment(s, ps)).toEqual({ status: s, partialPayment: 'keep', events: [] });
      }
    },
  );

  it('a paid or settled link reopens as processing only when a bank return leaves its payment underpaid (issue 12)', () => {
    for (const s of ['paid', 'settled'] as LinkStatus[]) {
      expect(linkStatusAfterPayment(s, 'underpaid')).toEqual({
        status: 'processing',
        partialPayment: 'set',
        events: ['payment_link.partially_paid'],
      });
    }
  });

  it('never reopens or moves a paid or terminal link on underpaid/paid otherwise', () => {
    for (const s of ['cancelled', 'expired', 'refunded', 'draft'] as LinkStatus[]) {
      expect(linkStatusAfterPayment(s, 'underpaid')).toEqual({ status: s, partialPayment: 'keep', events: [] });
    }
    for (const s of ['paid', 'settled', 'cancelled', 'expired', 'refunded', 'draft'] as LinkStatus[]) {
      expect(linkStatusAfterPayment(s, 'paid')).toEqual({ status: s, partialPayment: 'keep', events: [] });
    }
    for (const s of ['settled', 'cancelled', 'expired', 'refunded', 'draft'] as LinkStatus[]) {
      expect(linkStatusAfterPayment(s, 'settled')).toEqual({ status: s, partialPayment: 'keep', events: [] });
    }
  });

  it('awaiting changes nothing', () => {
    expect(linkStatusAfterPayment('viewed', 'awaiting')).toEqual({ status: 'viewed', partialPayment: 'keep', events: [] });
  });
});

describe('status groups (spec 4.1)', () => {
  it('LINK_STATUS_GROUPS lists statuses for SQL', () => {
    expect(LINK_STATUS_GROUPS).toEqual({
      open: ['draft', 'active', 'viewed', 'processing'],
      paid: ['paid', 'settled'],
      ended: ['cancelled', 'expired', 'refunded'],
    });
    expect(NEEDS_ATTENTION_STATUS).toBe('processing');
  });

  it.each([
    ['draft', false, ['open']],
    ['active', false, ['open']],
    ['viewed', true, ['open']],
    ['processing', false, ['open']],
    ['processing', true, ['open', 'needs_attention']],
    ['paid', false, ['paid']],
    ['settled', true, ['paid']],
    ['cancelled', false, ['ended']],
    ['expired', false, ['ended']],
    ['refunded', false, ['ended']],
    ['mystery', true, []],
  ] as Array<[string, boolean, string[]]>)('%s (partial %s) -> %j', (s, partial, groups) => {
    expect(linkStatusGroups(s, partial)).toEqual(groups);
  });

  it('every named status is in exactly one plain group', () => {
    for (const s of LINK_STATUSES) {
      const n = (['open', 'paid', 'ended'] as const).filter((g) => LINK_STATUS_GROUPS[g].includes(s)).length;
      expect(n).toBe(1);
    }
  });
});
