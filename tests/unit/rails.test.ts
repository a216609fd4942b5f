import {
  BANK_RAILS,
  computePayableRails,
  CRYPTO_RAILS,
  expectedPayerTypeOf,
  isRail,
  offerableRails,
  PayableRailsInput,
  RAILS_CLOSED,
  validateAllowedRails,
} from '../../domain/rails';
import { caught } from '../helpers/domain';

const ALL = [...RAILS_CLOSED];

describe('rail lists', () => {
  it('closed enum, crypto and bank partitions', () => {
    expect(RAILS_CLOSED).toEqual(['crypto_native', 'crypto_xchain', 'ach', 'wire', 'sepa', 'faster_payments', 'pix', 'spei']);
    expect([...CRYPTO_RAILS, ...BANK_RAILS].sort()).toEqual([...RAILS_CLOSED].sort());
    expect(isRail('sepa')).toBe(true);
    expect(isRail('fps')).toBe(false);
    expect(isRail('crypto_transfer')).toBe(false);
  });

  it.each([
    ['USD', ['crypto_native', 'crypto_xchain', 'ach', 'wire']],
    ['EUR', ['sepa']],
    ['GBP', ['faster_payments']],
    ['BRL', ['pix']],
    ['MXN', ['spei']],
    ['COP', []],
    ['JPY', []],
    ['usd', []],
    ['constructor', []],
  ])('offerableRails(%s)', (c, rails) => {
    expect(offerableRails(c)).toEqual(rails);
  });

  it('offerableRails returns a fresh array', () => {
    offerableRails('USD').push('x');
    expect(offerableRails('USD')).toHaveLength(4);
  });
});

describe('computePayableRails (spec 2.3)', () => {
  const base: PayableRailsInput = {
    status: 'active',
    currency: 'USD',
    allowedRails: null,
    cryptoOnly: false,
    settlementKind: 'fiat_provider',
    expectedPayerType: null,
    executableRails: ALL,
  };

  it('offerable ∩ executable when unrestricted', () => {
    expect(computePayableRails(base)).toEqual(['crypto_native', 'crypto_xchain', 'ach', 'wire']);
    expect(computePayableRails({ ...base, executableRails: ['wire', 'crypto_native'] })).toEqual(['crypto_native', 'wire']);
  });

  it.each(['draft', 'paid', 'settled', 'cancelled', 'expired', 'refunded', 'whatever'])('nothing is payable while %s', (status) => {
    expect(computePayableRails({ ...base, status })).toEqual([]);
  });

  it.each(['active', 'viewed', 'processing'])('payable while %s', (status) => {
    expect(computePayableRails({ ...base, status })).not.toEqual([]);
  });

  it('allowed rails restrict, in canonical order, deduplicated', () => {
    expect(computePayableRails({ ...base, allowedRails: ['wire', 'crypto_native', 'wire'] })).toEqual(['crypto_native', 'wire']);
  });

  it('a stored allowed rail that is not offerable for the currency is never payable', () => {
    expect(computePayableRails({ ...base, allowedRails: ['sepa', 'ach'] })).toEqual(['ach']);
  });

  it('crypto-only removes bank rails (flag or settlement kind)', () => {
    expect(computePayableRails({ ...base, cryptoOnly: true })).toEqual(['crypto_native', 'crypto_xchain']);
    expect(computePayableRails({ ...base, settlementKind: 'crypto_only' })).toEqual(['crypto_native', 'crypto_xchain']);
    expect(computePayableRails({ ...base, currency: 'EUR', cryptoOnly: true })).toEqual([]);
  });

  it('expected payer type narrows', () => {
    expect(computePayableRails({ ...base, expectedPayerType: 'crypto' })).toEqual(['crypto_native', 'crypto_xchain']);
    expect(computePayableRails({ ...base, expectedPayerType: 'bank' })).toEqual(['ach', 'wire']);
    expect(computePayableRails({ ...base, expectedPayerType: 'any' })).toHaveLength(4);
    expect(computePayableRails({ ...base, expectedPayerType: 'bank', cryptoOnly: true })).toEqual([]);
  });

  it('non-USD currencies', () => {
    expect(computePayableRails({ ...base, currency: 'EUR' })).toEqual(['sepa']);
    expect(computePayableRails({ ...base, currency: 'GBP', executableRails: [] })).toEqual([]);
    expect(computePayableRails({ ...base, currency: 'CAD' })).toEqual([]);
  });
});

describe('expectedPayerTypeOf', () => {
  it.each([
    [[], null],
    [['crypto_native'], 'crypto'],
    [['crypto_native', 'crypto_xchain'], 'crypto'],
    [['ach', 'wire'], 'bank'],
    [['sepa'], 'bank'],
    [['crypto_native', 'ach'], 'any'],
    [['future_rail'], 'any'],
  ] as Array<[string[], string | null]>)('%j -> %s', (rails, t) => {
    expect(expectedPayerTypeOf(rails)).toBe(t);
  });
});

describe('validateAllowedRails (spec 2.3, 4.1, 7)', () => {
  it('null means no restriction', () => {
    expect(validateAllowedRails('USD', null, false)).toBeNull();
    expect(validateAllowedRails('USD', null, true)).toBeNull();
  });

  it('returns the canonical, deduplicated list', () => {
    expect(validateAllowedRails('USD', ['wire', 'ach', 'wire'], false)).toEqual(['ach', 'wire']);
    expect(validateAllowedRails('USD', ['crypto_xchain'], true)).toEqual(['crypto_xchain']);
    expect(validateAllowedRails('EUR', ['sepa'], false)).toEqual(['sepa']);
  });

  it('400 allowed_rails_invalid_for_currency with details', () => {
    const e = caught(() => validateAllowedRails('EUR', ['sepa', 'ach'], false));
    expect([e.type, e.status, e.code, e.param]).toEqual(['invalid_request', 400, 'allowed_rails_invalid_for_currency', 'allowed_rails']);
    expect(e.details).toEqual({ offerable_rails: ['sepa'], currency: 'EUR', allowed_rails: ['ach', 'sepa'] });
  });

  it('409 conflict for the same code on activate', () => {
    const e = caught(() => validateAllowedRails('USD', ['pix'], false, { asConflict: true }));
    expect([e.type, e.status, e.code, e.param]).toEqual(['conflict', 409, 'allowed_rails_invalid_for_currency', 'allowed_rails']);
    expect(e.details).toEqual({
      offerable_rails: ['crypto_native', 'crypto_xchain', 'ach', 'wire'],
      currency: 'USD',
      allowed_rails: ['pix'],
    });
  });

  it('a currency with no rails reports an empty offerable list', () => {
    const e = caught(() => validateAllowedRails('CAD', ['ach'], false));
    expect(e.details).toEqual({ offerable_rails: [], currency: 'CAD', allowed_rails: ['ach'] });
  });

  it('400 allowed_rails_invalid_for_settlement when crypto-only names a bank rail', () => {
    const e = caught(() => validateAllowedRails('USD', ['crypto_native', 'ach'], true));
    expect([e.type, e.status, e.code, e.param]).toEqual(['invalid_request', 400, 'allowed_rails_invalid_for_settlement', 'allowed_rails']);
    expect(e.details).toEqual({ allowed_rails: ['crypto_native', 'ach'], bank_rails: ['ach'] });
    // still 400 on activate: only the currency error changes type there
    expect(caught(() => validateAllowedRails('USD', ['ach'], true, { asConflict: true })).status).toBe(400);
  });

  it('the currency error comes first', () => {
    expect(caught(() => validateAllowedRails('USD', ['sepa'], true)).code).toBe('allowed_rails_invalid_for_currency');
  });

  it('unknown rails and empty lists are 400 invalid_request', () => {
    for (const bad of [['fps'], ['ACH'], [1], 'ach', []] as unknown[]) {
      const e = caught(() => validateAllowedRails('USD', bad as string[], false, { asConflict: true }));
      expect([e.type, e.status, e.code, e.param]).toEqual(['invalid_request', 400, 'invalid_request', 'allowed_rails']);
    }
  });
});
