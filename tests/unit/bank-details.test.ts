/**
 * Bank beneficiary details (domain/bank-details.ts; spec 2.6 "Beneficiary", 2.11): the one set of
 * rules of payouts and the address book. Check digits, Pix key kinds, each rail normalized and
 * masked (never more than the last four of an account identifier), the errors naming the field,
 * a payout's rail, every payable corridor mapped to a rail, details stored by the former payout
 * code masked the same way, and the masked shape against the response schema.
 */
import { maskedBeneficiaryOut } from '../../views/beneficiary';
import {
  BANK_RAILS,
  beneficiaryRailOf,
  isValidAbaRouting,
  isValidClabe,
  maskBankDetails,
  maskedAccountEnding,
  normalizeBeneficiary,
  normalizePayoutBeneficiary,
  pixKeyType,
  RAIL_CURRENCY,
  type BeneficiaryInput,
  type StoredBankDetails,
} from '../../domain/bank-details';
import { CORRIDORS } from '../../domain/payouts/corridors';
import { caught } from '../helpers/domain';

const base = { account_owner_type: 'business' as const, account_holder_name: 'Acme Ltd' };

/** One valid input per rail. */
const VALID: Record<(typeof BANK_RAILS)[number], BeneficiaryInput> = {
  ach: { ...base, rail: 'ach', account_number: '0001234-5678', routing_number: '021000021' },
  wire: { ...base, rail: 'wire', account_number: '987654321', routing_number: '021000021' },
  sepa: { ...base, rail: 'sepa', iban: 'de89 3704 0044 0532 0130 00', bic: 'deutdeff' },
  faster_payments: { ...base, rail: 'faster_payments', account_number: '12345678', sort_code: '12-34-56' },
  pix: { ...base, rail: 'pix', pix_key: '+5511912345678' },
  spei: { ...base, rail: 'spei', clabe: '032180000118359719' },
};

describe('check digits and key kinds', () => {
  it('ABA routing and CLABE', () => {
    const cases: Array<[(s: string) => boolean, string, boolean]> = [
      [isValidAbaRouting, '021000021', true],
      [isValidAbaRouting, '021000022', false],
      [isValidAbaRouting, '000000000', false],
      [isValidClabe, '032180000118359719', true],
      [isValidClabe, '032180000118359718', false],
      [isValidClabe, '002010077777777771', true],
      [isValidClabe, '002010077777777772', false],
    ];
    for (const [check, value, valid] of cases) expect([value, check(value)]).toEqual([value, valid]);
  });
  it('pix key kinds', () => {
    expect(pixKeyType('a@b.co')).toBe('email');
    expect(pixKeyType('+5511912345678')).toBe('phone');
    expect(pixKeyType('12345678901')).toBe('cpf');
    expect(pixKeyType('12345678000199')).toBe('cnpj');
    expect(pixKeyType('123e4567-e89b-42d3-a456-426614174000')).toBe('evp');
    expect(pixKeyType('nope')).toBeNull();
  });
});

describe('normalizeBeneficiary', () => {
  it('ach: normalized, masked to last 4, currency USD, account_type defaults to checking', () => {
    const { details, masked } = normalizeBeneficiary(VALID.ach);
    expect(details).toMatchObject({
      account_number: '00012345678',
      routing_number: '021000021',
      currency: 'USD',
      account_type: 'checking',
    });
    expect(masked).toMatchObject({
      beneficiary_owner_type: 'business',
      rail: 'ach',
      currency: 'USD',
      account_number_last4: '5678',
      routing_number: '021000021',
      iban_last4: null,
    });
    expect(JSON.stringify(masked)).not.toContain('00012345678');
    expect('account_owner_type' in masked).toBe(false);
  });
  it('sepa: IBAN electronic format, mod-97, SEPA country, optional BIC upper-cased', () => {
    const { details, masked } = normalizeBeneficiary(VALID.sepa);
    expect(details.iban).toBe('DE89370400440532013000');
    expect(masked).toMatchObject({ currency: 'EUR', iban_country: 'DE', iban_last4: '3000', bic: 'DEUTDEFF' });
    expect(JSON.stringify(masked)).not.toContain('0532013');
    expect(normalizeBeneficiary({ ...base, rail: 'sepa', iban: 'DE89370400440532013000' }).masked.bic).toBeNull();
    expect(caught(() => normalizeBeneficiary({ ...base, rail: 'sepa', iban: 'DE89370400440532013001' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'iban',
    });
    expect(caught(() => normalizeBeneficiary({ ...base, rail: 'sepa', iban: 'DE00370400440532013000' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'iban',
    });
    expect(caught(() => normalizeBeneficiary({ ...base, rail: 'sepa', iban: 'BR1800360305000010009795493C1' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'iban',
    });
    expect(caught(() => normalizeBeneficiary({ ...base, rail: 'sepa', iban: 'DE89370400440532013000', bic: 'XX' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'bic',
    });
  });
  it('wire, faster_payments, spei, pix', () => {
    expect(normalizeBeneficiary(VALID.wire).masked).toMatchObject({
      currency: 'USD',
      account_type: null,
      account_number_last4: '4321',
      routing_number: '021000021',
    });
    const fp = normalizeBeneficiary(VALID.faster_payments);
    expect(fp.details.sort_code).toBe('123456');
    expect(fp.masked).toMatchObject({ currency: 'GBP', sort_code: '123456', account_number_last4: '5678' });
    expect(normalizeBeneficiary(VALID.spei).masked).toMatchObject({ currency: 'MXN', clabe_last4: '9719', account_number_last4: null });
    expect(normalizeBeneficiary(VALID.pix).masked).toMatchObject({ currency: 'BRL', pix_key_type: 'phone', pix_key_last4: '5678' });
  });
  it('the masked projection never holds more than the last four of an account identifier', () => {
    for (const input of Object.values(VALID)) {
      const { details, masked } = normalizeBeneficiary(input);
      const json = JSON.stringify(masked);
      for (const id of [details.account_number, details.iban, details.clabe, details.pix_key]) {
        if (id) expect(json).not.toContain(id.slice(-5));
      }
      for (const k of ['account_number_last4', 'iban_last4', 'clabe_last4', 'pix_key_last4'] as const)
        expect((masked[k] ?? '').length).toBeLessThanOrEqual(4);
    }
  });
  it('tax_id and country of the holder are kept in the details only; empty optional strings become null', () => {
    const { details, masked } = normalizeBeneficiary({ ...VALID.pix, tax_id: '12345678909', country: 'BR', bank_name: '' });
    expect(details).toMatchObject({ tax_id: '12345678909', country: 'BR', bank_name: null });
    expect(JSON.stringify(masked)).not.toContain('12345678909');
    expect(masked).not.toHaveProperty('tax_id');
    expect(masked).not.toHaveProperty('country');
    expect(normalizeBeneficiary({ ...VALID.ach, tax_id: '', country: null }).details).toMatchObject({ tax_id: null, country: null });
  });
  it('missing, foreign and malformed fields name the param', () => {
    const cases: Array<[BeneficiaryInput, string, string]> = [
      [{ ...base, rail: 'ach', routing_number: '021000021' }, 'parameter_missing', 'account_number'],
      [{ ...base, rail: 'ach', account_number: '1234' }, 'parameter_missing', 'routing_number'],
      [{ ...base, rail: 'ach', account_number: '12345678', routing_number: '021000022' }, 'parameter_invalid', 'routing_number'],
      [{ ...base, rail: 'ach', account_number: '12', routing_number: '021000021' }, 'parameter_invalid', 'account_number'],
      [
        { ...base, rail: 'ach', account_number: '12345678', routing_number: '021000021', iban: 'DE89370400440532013000' },
        'parameter_invalid',
        'iban',
      ],
      [{ ...base, rail: 'pix', pix_key: '12345678901', iban: 'DE89370400440532013000' }, 'parameter_invalid', 'iban'],
      [
        { ...base, rail: 'wire', account_number: '12345678', routing_number: '021000021', account_type: 'savings' },
        'parameter_invalid',
        'account_type',
      ],
      [{ ...base, rail: 'faster_payments', account_number: '1234567', sort_code: '123456' }, 'parameter_invalid', 'account_number'],
      [{ ...base, rail: 'faster_payments', account_number: '12345678', sort_code: '12345' }, 'parameter_invalid', 'sort_code'],
      [{ ...base, rail: 'spei', clabe: '032180000118359718' }, 'parameter_invalid', 'clabe'],
      [{ ...base, rail: 'spei', clabe: '002010077777777772' }, 'parameter_invalid', 'clabe'],
      [{ ...base, rail: 'pix' }, 'parameter_missing', 'pix_key'],
      [{ ...base, rail: 'pix', pix_key: 'not a key' }, 'parameter_invalid', 'pix_key'],
    ];
    for (const [input, code, param] of cases)
      expect(caught(() => normalizeBeneficiary(input))).toMatchObject({ type: 'invalid_request', status: 400, code, param });
  });
});

describe('payouts use the same rules', () => {
  it('every payable corridor pays on a rail of this module, in its currency; the blocked one takes no bank details', () => {
    for (const c of CORRIDORS) {
      const rail = beneficiaryRailOf(c.fiat_rail);
      if (c.lifecycle === 'blocked') {
        expect(rail).toBeNull();
      } else {
        expect(rail).toBe(c.fiat_rail);
        expect(RAIL_CURRENCY[rail!]).toBe(c.currency);
      }
    }
    expect(new Set(CORRIDORS.filter((c) => c.lifecycle !== 'blocked').map((c) => c.fiat_rail))).toEqual(new Set(BANK_RAILS));
  });
  it("a payout's details take its rail: omitted is the payout's, another is refused", () => {
    const { rail: _rail, ...noRail } = VALID.spei;
    expect(normalizePayoutBeneficiary('spei', noRail)).toEqual(normalizeBeneficiary(VALID.spei));
    expect(normalizePayoutBeneficiary('spei', { ...noRail, rail: 'spei' }).masked.rail).toBe('spei');
    expect(caught(() => normalizePayoutBeneficiary('spei', { ...noRail, rail: 'ach' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'rail',
      details: { expected: 'spei', received: 'ach' },
    });
    expect(caught(() => normalizePayoutBeneficiary('co_bank_transfer', noRail))).toMatchObject({
      code: 'parameter_invalid',
      param: 'rail',
    });
    // A CLABE sent for an ach payout: the field of another rail is named first.
    expect(caught(() => normalizePayoutBeneficiary('ach', noRail))).toMatchObject({ code: 'parameter_invalid', param: 'clabe' });
    expect(caught(() => normalizePayoutBeneficiary('ach', { ...base, routing_number: '021000021' }))).toMatchObject({
      code: 'parameter_missing',
      param: 'account_number',
    });
  });
});

describe('maskBankDetails', () => {
  it('masks details stored by the former payout code (no currency, unused fields absent) like new ones', () => {
    const old: StoredBankDetails = {
      rail: 'faster_payments',
      account_owner_type: 'individual',
      account_holder_name: 'Jo',
      bank_name: null,
      tax_id: null,
      country: null,
      account_number: '12345678',
      sort_code: '123456',
    };
    expect(maskBankDetails(old)).toEqual(
      normalizeBeneficiary({
        account_owner_type: 'individual',
        account_holder_name: 'Jo',
        rail: 'faster_payments',
        account_number: '12345678',
        sort_code: '123456',
      }).masked,
    );
    const oldPix: StoredBankDetails = {
      rail: 'pix',
      account_owner_type: 'business',
      account_holder_name: 'A',
      pix_key: 'pagamentos@loja.com.br',
    };
    expect(maskBankDetails(oldPix)).toMatchObject({
      currency: 'BRL',
      pix_key_type: 'email',
      pix_key_last4: 'm.br',
      bank_name: null,
      bic: null,
    });
    const oldAch: StoredBankDetails = {
      rail: 'ach',
      account_owner_type: 'business',
      account_holder_name: 'A',
      account_number: '123456789',
      routing_number: '021000021',
      account_type: 'savings',
    };
    expect(maskBankDetails(oldAch)).toMatchObject({ currency: 'USD', account_type: 'savings', account_number_last4: '6789' });
  });
  it('the masked shape of every rail is the response schema of payouts and the address book', () => {
    for (const input of Object.values(VALID)) {
      const { error } = maskedBeneficiaryOut.validate(normalizeBeneficiary(input).masked, { presence: 'required' });
      expect(error).toBeUndefined();
    }
  });
  it('the account ending of any rail (for messages)', () => {
    expect(maskedAccountEnding(normalizeBeneficiary(VALID.ach).masked)).toBe('5678');
    expect(maskedAccountEnding(normalizeBeneficiary(VALID.sepa).masked)).toBe('3000');
    expect(maskedAccountEnding(normalizeBeneficiary(VALID.spei).masked)).toBe('9719');
    expect(maskedAccountEnding(normalizeBeneficiary(VALID.pix).masked)).toBe('5678');
  });
});
