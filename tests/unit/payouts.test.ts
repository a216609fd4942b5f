/**
 * Payout rules (spec 2.6, 4.3, 4.6, 8): corridor table, eligibility verdicts, payer type, funding
 * quote (rounded up to the cent, buffer <= 0.05%, gross-up for 100 bps), fiat payable, settled
 * tolerance (0.05% + 10 minor units, 25 for MXN), funding surplus and held USDC, refund address rules,
 * cancel hold, views (bank details: tests/unit/bank-details.test.ts).
 */
import {
  canTransition,
  assertPayoutTransition,
  payoutAttemptTransitions,
  PAYOUT_STATUSES,
  PAYOUT_TERMINAL,
  payoutTransitions,
  payoutAttemptSources,
  payoutSources,
  type PayoutStatus,
} from '../../domain/payouts/statuses';
import { CORRIDORS, corridorById, corridorVerdict, checkInvoiceAmount } from '../../domain/payouts/corridors';
import { fiatPayable, fundingQuote, grossUp, walletSendEstimate } from '../../domain/payouts/pricing';
import { settledTolerance, settlementVerdict, fundingSurplus, heldForReturn } from '../../domain/payouts/verdicts';
import { walletSendCancelBlock } from '../../domain/payouts/deadlines';
import { derivePayerType } from '../../domain/payouts/payer-type';
import { normalizeRefundAddress } from '../../domain/payouts/refund-address';
import { IllegalTransition } from '../../domain/transitions';
import { caught } from '../helpers/domain';
import { fundingInstructionsView, payoutEventView, payoutView } from '../../views/payout';
import type { Payout, PayoutAttempt } from '../../entities';

const open = { accessState: 'active', previewOpen: true, payoutsOpen: true };

describe('corridor table', () => {
  it('lists the seven corridors with faster_payments spelled out and cop blocked', () => {
    expect(CORRIDORS.map((c) => c.id)).toEqual([
      'usd_ach',
      'usd_wire',
      'eur_sepa',
      'gbp_faster_payments',
      'brl_pix',
      'mxn_spei',
      'cop_co_bank_transfer',
    ]);
    expect(corridorById('gbp_faster_payments')!.fiat_rail).toBe('faster_payments');
    expect(JSON.stringify(CORRIDORS, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).not.toMatch(/"fps"/);
    const cop = corridorById('cop_co_bank_transfer')!;
    expect(corridorVerdict(cop, open)).toEqual({ executable: false, blocked_reason: 'corridor_blocked', action: 'none' });
    for (const c of CORRIDORS.filter((x) => x.lifecycle !== 'blocked')) expect(c.source_chains).toContain('base');
  });

  it('gates corridors on switches, access state and the preview flag', () => {
    const pix = corridorById('brl_pix')!;
    expect(corridorVerdict(pix, open).executable).toBe(true);
    expect(corridorVerdict(pix, { ...open, previewOpen: false }).blocked_reason).toBe('preview_not_enabled');
    expect(corridorVerdict(corridorById('usd_ach')!, { ...open, previewOpen: false }).executable).toBe(true);
    expect(corridorVerdict(corridorById('usd_ach')!, { ...open, accessState: 'restricted' }).blocked_reason).toBe('account_restricted');
    expect(corridorVerdict(corridorById('usd_ach')!, { ...open, payoutsOpen: false }).blocked_reason).toBe('payouts_disabled');
  });

  it('checks invoice currency and limits', () => {
    const ach = corridorById('usd_ach')!;
    expect(caught(() => checkInvoiceAmount(ach, { amount: '1000', currency: 'EUR', decimals: 2 }, 1000n))).toMatchObject({
      code: 'currency_mismatch',
      param: 'invoice_amount',
    });
    expect(caught(() => checkInvoiceAmount(ach, { amount: '99', currency: 'USD', decimals: 2 }, 99n))).toMatchObject({
      code: 'amount_invalid',
    });
    expect(caught(() => checkInvoiceAmount(ach, { amount: '10000001', currency: 'USD', decimals: 2 }, 10_000_001n))).toMatchObject({
      code: 'amount_invalid',
      details: { max_amount: { amount: '10000000', currency: 'USD', decimals: 2 } },
    });
    expect(() => checkInvoiceAmount(ach, { amount: '100', currency: 'USD', decimals: 2 }, 100n)).not.toThrow();
  });
});

describe('payer type', () => {
  it('derives from the customer type and refuses a different declaration with 422', () => {
    expect(derivePayerType('business', undefined)).toBe('business');
    expect(derivePayerType('individual', 'individual')).toBe('individual');
    const e = caught(() => derivePayerType('business', 'individual'));
    expect(e).toMatchObject({
      type: 'invalid_request',
      code: 'payer_type_mismatch',
      status: 422,
      param: 'payer_type',
      details: { expected: 'business', received: 'individual' },
    });
  });
});

describe('funding quote', () => {
  it('USD 1000.00: 1000 USDC, buffer 0.50, gross = amount x 10000 / 9900 rounded up', () => {
    const q = fundingQuote(100000n, 'USD', 2);
    expect(q.quote).toBe(1_000_000_000n);
    expect(q.rounded).toBe(1_000_000_000n);
    expect(q.buffer).toBe(500_000n);
    expect(q.amount).toBe(1_000_500_000n);
    expect(q.gross).toBe(1_010_606_061n); // ceil(1000.5 / 0.99) at 6 decimals
    expect(q.fee).toBe(q.gross - q.amount);
    expect(q.gross * 9900n >= q.amount * 10000n).toBe(true);
    expect((q.gross - 1n) * 9900n < q.amount * 10000n).toBe(true);
  });

  it('rounds the quote up to the cent and keeps the buffer at most 0.05%, on the cent', () => {
    for (const [minor, cur] of [
      [12345n, 'EUR'],
      [999n, 'GBP'],
      [123457n, 'MXN'],
      [1n, 'BRL'],
      [77777n, 'USD'],
    ] as Array<[bigint, string]>) {
      const q = fundingQuote(minor, cur, 2);
      expect(q.rounded % 10000n).toBe(0n);
      expect(q.rounded >= q.quote && q.rounded - q.quote < 10000n).toBe(true);
      expect(q.buffer % 10000n).toBe(0n);
      expect(q.buffer * 10000n <= q.rounded * 5n).toBe(true);
      expect(q.amount).toBe(q.rounded + q.buffer);
    }
    expect(fundingQuote(12345n, 'EUR', 2).quote).toBe(133_326_000n); // 123.45 x 1.08
  });

  it('grossUp is exact or rounds up and refuses bps outside 0..9999', () => {
    expect(grossUp(990000n, 100)).toBe(1000000n);
    expect(grossUp(1n, 100)).toBe(2n);
    expect(grossUp(5n, 0)).toBe(5n);
    expect(() => grossUp(1n, 10000)).toThrow(RangeError);
  });

  it('fiat payable takes the fee on the gross received, converts, caps at the invoice', () => {
    const q = fundingQuote(100000n, 'USD', 2);
    expect(fiatPayable(q.gross, 100000n, 'USD', 2).fiat).toBe(100000n);
    const short = fiatPayable(500_000_000n, 100000n, 'USD', 2);
    expect(short.fee).toBe(5_000_000n);
    expect(short.fiat).toBe(49500n);
    expect(fiatPayable(1n, 100000n, 'USD', 2).fiat).toBe(0n);
  });

  it('wallet send estimate adds the cross-network cost (10 bps, at least a cent) only across chains', () => {
    expect(walletSendEstimate(1_000_000_000n, true)).toBe(1_000_000_000n);
    expect(walletSendEstimate(1_000_000_000n, false)).toBe(1_001_000_000n);
    expect(walletSendEstimate(1_000_000n, false)).toBe(1_010_000n);
  });
});

describe('settled tolerance', () => {
  it('is 0.05% of the invoice plus 10 minor units, 25 for MXN', () => {
    expect(settledTolerance(100000n, 'USD')).toBe(60n);
    expect(settledTolerance(100000n, 'MXN')).toBe(75n);
    expect(settledTolerance(1999n, 'EUR')).toBe(10n);
  });

  it('settled within tolerance, paid_with_shortfall below, needs attention above', () => {
    expect(settlementVerdict(100000n, 100000n, 'USD')).toEqual({ status: 'settled', shortfall: null, needsAttention: false });
    expect(settlementVerdict(100000n, 100060n, 'USD').status).toBe('settled');
    expect(settlementVerdict(100000n, 100061n, 'USD')).toEqual({ status: 'paid', shortfall: null, needsAttention: true });
    expect(settlementVerdict(100000n, 100075n, 'MXN').status).toBe('settled');
    expect(settlementVerdict(100000n, 100076n, 'MXN').status).toBe('paid');
    expect(settlementVerdict(100000n, 99999n, 'USD')).toEqual({ status: 'paid_with_shortfall', shortfall: 1n, needsAttention: false });
  });

  it('paid_with_shortfall is terminal and never becomes settled', () => {
    expect(canTransition('paid_with_shortfall', 'settled')).toBe(false);
    expect(canTransition('paid', 'settled')).toBe(true);
    expect(canTransition('draft', 'paid')).toBe(false);
  });
});

describe('refund address', () => {
  const lower = '0x52908400098527886e0f7030069857d2e4169ee7';
  const checksummed = '0x52908400098527886E0F7030069857D2E4169EE7';
  it('accepts lower-case and valid EIP-55, returns EIP-55', () => {
    expect(normalizeRefundAddress(lower)).toBe(checksummed);
    expect(normalizeRefundAddress(checksummed)).toBe(checksummed);
    expect(normalizeRefundAddress('0xde709f2102306220921060314715629080e2fb77')).toBe('0xde709f2102306220921060314715629080e2fb77');
  });
  it('refuses a bad checksum, the zero address and malformed input', () => {
    expect(caught(() => normalizeRefundAddress('0x52908400098527886E0F7030069857D2E4169Ee7'))).toMatchObject({
      code: 'parameter_invalid',
      param: 'refund_address',
    });
    expect(caught(() => normalizeRefundAddress(`0x${'0'.repeat(40)}`))).toMatchObject({ param: 'refund_address' });
    expect(caught(() => normalizeRefundAddress('0x1234'))).toMatchObject({ param: 'refund_address' });
  });
});

describe('wallet funding cancel hold', () => {
  it('blocks while signable and for 30 minutes after expiry', () => {
    const until = 1_000_000;
    expect(walletSendCancelBlock({ status: 'signable', signableUntilMs: until }, until - 1)).toBe(until + 1_800_000);
    expect(walletSendCancelBlock({ status: 'signable', signableUntilMs: until }, until + 1_799_999)).toBe(until + 1_800_000);
    expect(walletSendCancelBlock({ status: 'signable', signableUntilMs: until }, until + 1_800_000)).toBeNull();
    expect(walletSendCancelBlock({ status: 'closed', signableUntilMs: until }, until)).toBeNull();
  });
});

describe('views', () => {
  const now = new Date('2026-11-21T00:00:00Z');
  const p = {
    id: 'po_x',
    account_id: 'acct_x',
    livemode: false,
    status: 'awaiting_funds',
    invoice_minor: '100000',
    currency: 'USD',
    decimals: 2,
    corridor_id: 'usd_ach',
    fiat_rail: 'ach',
    source_chain: null,
    source_asset: 'USDC',
    payer_type: 'business',
    fee_bps: 100,
    notify_recipient: false,
    recipient_email: null,
    note: null,
    capability_version: '2026-11-01',
    snapshot_frozen_at: null,
    sender_display: null,
    legal_entity_name: null,
    needs_attention: false,
    settled_minor: null,
    provider_paid_minor: null,
    shortfall_minor: null,
    failure_reason: null,
    return_reason: null,
    held_minor: null,
    beneficiary_ciphertext: null,
    beneficiary_masked: null,
    funding_source: 'external_wallet',
    refund_address: null,
    current_attempt_id: 'poa_x',
    replaces_id: null,
    replaced_by_id: null,
    marked_sent_at: null,
    funded_at: now,
    paid_at: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
  } as Payout;
  const a = {
    id: 'poa_x',
    payout_id: 'po_x',
    account_id: 'acct_x',
    livemode: false,
    status: 'awaiting_funds',
    funding_source: 'external_wallet',
    source_chain: 'base',
    source_currency: 'USDC',
    source_tx_hash: null,
    refund_address: null,
    provider_transfer_id: 'btr_x',
    deposit_address: '0xAbC0000000000000000000000000000000000001',
    deposit_message: 'BRG-1',
    transfer_reference: 'PO-X',
    rail_payment_id: null,
    amount_minor: '1000500000',
    buffer_minor: '500000',
    fee_minor: '10106061',
    gross_minor: '1010606061',
    received_minor: '0',
    expires_at: now,
    created_at: now,
    updated_at: now,
  } as PayoutAttempt;

  it('a pre-freeze payout has no sender_display and a null legal_entity_name; events carry the stored source_chain', () => {
    const v = payoutView(p);
    expect(v.source_chain).toBe('base');
    expect(v.source_chain_chosen).toBe(false);
    expect(v.capability_snapshot).toEqual({
      version: '2026-11-01',
      eta_seconds: 172800,
      minimum: { amount: '100', currency: 'USD', decimals: 2 },
      legal_entity_name: null,
    });
    const e = payoutEventView(p);
    expect(e.source_chain).toBeNull();
    expect('source_chain_chosen' in e).toBe(false);
    expect(payoutView({ ...p, snapshot_frozen_at: now, sender_display: null } as Payout).capability_snapshot).toMatchObject({
      sender_display: 'unknown',
    });
  });

  it('funding instructions: sandbox only in test mode, steps only for dashboard sessions, address verbatim', () => {
    const test = fundingInstructionsView(p, a, null, 'business_key');
    expect(test.sandbox).toBe(true);
    expect(test.send_instructions).toBeUndefined();
    expect(test.funding_source).toBeUndefined();
    expect(test.deposit_address).toBe('0xAbC0000000000000000000000000000000000001');
    const live = fundingInstructionsView({ ...p, livemode: true } as Payout, a, null, 'dashboard_session');
    expect(live.sandbox).toBeUndefined();
    expect((live.send_instructions as { steps: unknown[] }).steps).toEqual([
      {
        type: 'transfer',
        chain: 'base',
        asset: 'USDC',
        to_address: a.deposit_address,
        amount: { amount: '1010606061', currency: 'USDC', decimals: 6 },
        memo: null,
      },
    ]);
  });

  it('failure_reason reads missing_return_policy while USDC is held with no return address', () => {
    expect(payoutView({ ...p, status: 'returned', held_minor: '5', return_reason: 'r' } as Payout).failure_reason).toBe(
      'missing_return_policy',
    );
    expect(payoutView({ ...p, status: 'returned', held_minor: '5', refund_address: '0x1' } as Payout).failure_reason).toBeNull();
  });
});

describe('funding surplus and USDC held for return', () => {
  it('the surplus is what arrived above the quoted gross; the fiat payment uses the gross and pays the invoice exactly', () => {
    const q = fundingQuote(100000n, 'USD', 2);
    expect(fundingSurplus(q.gross, q.gross)).toBe(0n);
    expect(fundingSurplus(q.gross - 1n, q.gross)).toBe(0n);
    expect(fundingSurplus(q.gross + 7_000_000n, q.gross)).toBe(7_000_000n);
    expect(fiatPayable(q.gross, 100000n, 'USD', 2).fiat).toBe(100000n);
  });

  it('held = observed - consumed - returned; null when nothing; inconsistent figures throw', () => {
    expect(heldForReturn(1_010_000_000n, 1_000_000_000n, 0n)).toBe(10_000_000n);
    expect(heldForReturn(1_010_000_000n, 1_000_000_000n, 10_000_000n)).toBeNull();
    expect(heldForReturn(1_010_000_000n, 0n, 10_000_000n)).toBe(1_000_000_000n);
    expect(() => heldForReturn(5n, 4n, 2n)).toThrow(RangeError);
  });
});

describe('payout transition table (spec 3)', () => {
  it('is built on transitionTable: statuses are the 11 of spec 2.6, terminal ones have no way out', () => {
    expect([...payoutTransitions.statuses].sort()).toEqual([...PAYOUT_STATUSES].sort());
    expect([...payoutTransitions.terminal].sort()).toEqual([...PAYOUT_TERMINAL].sort());
    for (const s of payoutTransitions.terminal) for (const to of PAYOUT_STATUSES) expect(payoutTransitions.can(s, to)).toBe(false);
    expect(payoutTransitions.can('paid', 'paid')).toBe(false);
    expect(payoutTransitions.can('nonsense', 'draft')).toBe(false);
  });

  it('allows the happy path and the exits the activities write', () => {
    const path: PayoutStatus[] = ['draft', 'awaiting_funds', 'funds_received', 'processing', 'paid', 'settled'];
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1], path[i])).toBe(true);
    expect(canTransition('draft', 'cancelled')).toBe(true);
    expect(canTransition('awaiting_funds', 'cancelled')).toBe(true);
    expect(canTransition('awaiting_funds', 'expired')).toBe(true);
    expect(canTransition('funds_received', 'failed')).toBe(true);
    expect(canTransition('processing', 'returned')).toBe(true);
    expect(canTransition('paid', 'returned')).toBe(true);
    expect(canTransition('paid', 'paid_with_shortfall')).toBe(true);
    expect(canTransition('funds_received', 'cancelled')).toBe(false);
    expect(canTransition('settled', 'returned')).toBe(false);
  });

  it('an illegal transition is 409 payout_state_changed (IllegalTransition)', () => {
    const e = caught(() => assertPayoutTransition('settled', 'failed'));
    expect(e).toBeInstanceOf(IllegalTransition);
    expect(e).toMatchObject({ name: 'IllegalTransition', type: 'conflict', code: 'payout_state_changed' });
    expect(() => assertPayoutTransition('draft', 'awaiting_funds')).not.toThrow();
    expect(payoutTransitions.assert('processing', 'paid')).toBe('paid');
  });

  it('attempt table: creating until the transfer exists; SQL sources are the statuses allowed to move', () => {
    expect(payoutAttemptTransitions.can('creating', 'awaiting_funds')).toBe(true);
    expect(payoutAttemptTransitions.can('creating', 'cancelled')).toBe(true);
    expect(payoutAttemptTransitions.can('settled', 'returned')).toBe(false);
    expect(payoutAttemptSources('cancelled').sort()).toEqual(['awaiting_funds', 'creating']);
    expect(payoutAttemptSources('expired').sort()).toEqual(['awaiting_funds', 'creating']);
    expect(payoutAttemptSources('returned').sort()).toEqual(['funds_received', 'paid', 'processing']);
    expect(payoutSources('settled')).toEqual(['paid']);
    expect(caught(() => payoutAttemptTransitions.assert('failed', 'paid'))).toMatchObject({ code: 'payout_attempt_state_changed' });
  });
});
