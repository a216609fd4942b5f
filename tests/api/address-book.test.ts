/**
 * Address book over HTTP against the running product (spec 2.11, 4.10, 5; destinations of
 * payment links, 2.3 / 4.1): dashboard-session only (keys 403 role_denied), member roles, create
 * validation per chain (EIP-55 through viem, base58check / bech32), duplicates, travel-rule and
 * counterparty fields, bank details set once and read back masked (encrypted at rest),
 * screening at create and on recheck (`address_book.entry_rechecked`, provider outage 503, a
 * signal never a block), delete rules when links use the entry, lists and cross-account 404s,
 * and payment links created and activated with an address-book destination.
 */
import type { DevCredentials } from '../../activities/accounts/commands';
import { db } from '../../lib/db';
import { decrypt } from '../../lib/secrets';
import { addressBookEntryOut, addressBookListOut, deletedEntryOut } from '../../views/address-book';
import { call, client, expectError, idem, newAccount, type Res, memberSession } from '../helpers/api';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

let a: DevCredentials;
let b: DevCredentials;
let ses: ReturnType<typeof client>;
let other: ReturnType<typeof client>;

const ok = (res: Res, status = 200) => {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A fresh random EVM address (all lower-case: no checksum carried). */
const randomEvm = () => `0x${[...Array(40)].map(() => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}`;

async function cryptoEntry(api: ReturnType<typeof client>, extra: Record<string, unknown> = {}): Promise<any> {
  return ok(await api.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: randomEvm(), label: 'Treasury', ...extra }), 201);
}

const ACH = {
  account_owner_type: 'business',
  account_holder_name: 'Acme Ltd',
  bank_name: 'Chase',
  rail: 'ach',
  account_number: '000123456789',
  routing_number: '021000021',
};

beforeAll(async () => {
  a = await newAccount();
  b = await newAccount();
  ses = client(a.session_token);
  other = client(b.session_token);
});

/** A live key is refused by the caller class (403 role_denied); a test key by test mode first (spec 1 rule 5: 503). */
const refusedTo = (key: string): [number, string, string] =>
  key.startsWith('sk_test_') ? [503, 'temporarily_unavailable', 'test_mode_not_supported'] : [403, 'permission_error', 'role_denied'];

describe('who may call', () => {
  test('API keys are refused on every operation: live 403 role_denied, test 503 (test mode first)', async () => {
    const e = await cryptoEntry(ses);
    for (const key of [a.live_key, a.test_key]) {
      const k = client(key);
      expectError(await k.get('/v1/address_book'), ...refusedTo(key));
      expectError(await k.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: randomEvm() }), ...refusedTo(key));
      expectError(await k.get(`/v1/address_book/${e.id}`), ...refusedTo(key));
      expectError(await k.patch(`/v1/address_book/${e.id}`, { label: 'x' }), ...refusedTo(key));
      expectError(await k.del(`/v1/address_book/${e.id}`), ...refusedTo(key));
      expectError(await k.post(`/v1/address_book/${e.id}/recheck`), ...refusedTo(key));
      expectError(await k.post(`/v1/address_book/${e.id}/beneficiary`, ACH), ...refusedTo(key));
    }
    expectError(await call('GET', '/v1/address_book'), 401, 'authentication_error');
  });

  test('viewers read, developers may recheck only, admins manage', async () => {
    const e = await cryptoEntry(ses);
    const viewer = client(await memberSession(a.account_id, 'viewer'));
    const developer = client(await memberSession(a.account_id, 'developer'));
    const admin = client(await memberSession(a.account_id, 'admin'));
    expect(ok(await viewer.get(`/v1/address_book/${e.id}`)).id).toBe(e.id);
    expectError(await viewer.post('/v1/address_book', { kind: 'bank' }), 403, 'permission_error', 'scope_denied');
    expectError(await viewer.post(`/v1/address_book/${e.id}/recheck`), 403, 'permission_error', 'scope_denied');
    expectError(await developer.post('/v1/address_book', { kind: 'bank' }), 403, 'permission_error', 'scope_denied');
    expectError(await developer.patch(`/v1/address_book/${e.id}`, { label: 'x' }), 403, 'permission_error', 'scope_denied');
    expectError(await developer.del(`/v1/address_book/${e.id}`), 403, 'permission_error', 'scope_denied');
    ok(await developer.post(`/v1/address_book/${e.id}/recheck`));
    expect(ok(await admin.patch(`/v1/address_book/${e.id}`, { label: 'By admin' })).label).toBe('By admin');
    ok(await admin.post('/v1/address_book', { kind: 'bank', label: 'Admin bank' }), 201);
  });
});

describe('create', () => {
  test('a crypto entry: address verbatim, chain canonical, screened, read-only fields null', async () => {
    const res = await ses.post('/v1/address_book', { kind: 'crypto', chain: 'ETH', address: ` ${EVM} `, label: ' Cold wallet ' });
    const e = ok(res, 201);
    expect(e).toMatchObject({
      object: 'address_book_entry',
      livemode: true,
      kind: 'crypto',
      label: 'Cold wallet',
      chain: 'ethereum',
      address: EVM,
      currency: null,
      beneficiary: null,
      proof_of_control: null,
      travel_rule_required: false,
      travel_rule_last_attested_at: null,
      counterparty_name: null,
      counterparty_country: null,
      counterparty_vasp_name: null,
      counterparty_vasp_jurisdiction: null,
    });
    expect(e.id).toMatch(/^adr_[A-Za-z0-9]+$/);
    expect(e.screening).toMatchObject({ status: 'completed', risk_level: 'low', verdict: 'clear', action: 'proceed', flags: [] });
    expect(e.screening.risk_score).toBeLessThan(25);
    expect(ok(await ses.get(`/v1/address_book/${e.id}`))).toEqual(e);
    expect(ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 8453, address: EVM }), 201).chain).toBe('base');
  });

  test('other chains: bitcoin on the environment network, solana, tron', async () => {
    const tb = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    expect(ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'btc', address: tb }), 201)).toMatchObject({
      chain: 'bitcoin',
      address: tb,
    });
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'bitcoin', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }),
      400,
      'invalid_request',
      'address_invalid',
      'address',
    );
    expect(
      ok(
        await ses.post('/v1/address_book', { kind: 'crypto', chain: 'solana', address: 'So11111111111111111111111111111111111111112' }),
        201,
      ).chain,
    ).toBe('solana');
    expect(
      ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'tron', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }), 201).chain,
    ).toBe('tron');
  });

  test('validation errors name the field', async () => {
    expectError(await ses.post('/v1/address_book', { chain: 'base', address: EVM }), 400, 'invalid_request', 'parameter_missing', 'kind');
    expectError(await ses.post('/v1/address_book', { kind: 'wallet' }), 400, 'invalid_request', 'parameter_invalid', 'kind');
    expectError(await ses.post('/v1/address_book', { kind: 'crypto', address: EVM }), 400, 'invalid_request', 'parameter_missing', 'chain');
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base' }),
      400,
      'invalid_request',
      'parameter_missing',
      'address',
    );
    const unsupported = await ses.post('/v1/address_book', { kind: 'crypto', chain: 'dogecoin', address: EVM });
    expectError(unsupported, 400, 'invalid_request', 'parameter_invalid', 'chain');
    expect(unsupported.body.error.details.supported_chains).toContain('ethereum');
    const badSum = await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: EVM.replace('E7', 'e7') });
    expectError(badSum, 400, 'invalid_request', 'address_invalid', 'address');
    expect(badSum.body.error.details).toMatchObject({ chain: 'base', reason: expect.stringContaining('EIP-55') });
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: `0x${'0'.repeat(40)}` }),
      400,
      'invalid_request',
      'address_invalid',
      'address',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'solana', address: EVM }),
      400,
      'invalid_request',
      'address_invalid',
      'address',
    );
    expectError(await ses.post('/v1/address_book', { kind: 'bank', chain: 'base' }), 400, 'invalid_request', 'parameter_invalid', 'chain');
    expectError(await ses.post('/v1/address_book', { kind: 'bank', address: EVM }), 400, 'invalid_request', 'parameter_invalid', 'address');
    expectError(
      await ses.post('/v1/address_book', { kind: 'bank', counterparty_vasp_name: 'Exchange' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'counterparty_vasp_name',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'bank', iban: 'DE89370400440532013000' }),
      400,
      'invalid_request',
      'parameter_unknown',
      'iban',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'bank', counterparty_country: 'ZZ' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'counterparty_country',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'bank', counterparty_country: 'GBR' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'counterparty_country',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: randomEvm(), proof_of_control: { method: 'x' } }),
      400,
      'invalid_request',
      'parameter_unknown',
      'proof_of_control',
    );
    expectError(
      await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: randomEvm(), travel_rule_required: true }),
      400,
      'invalid_request',
      'parameter_unknown',
      'travel_rule_required',
    );
  });

  test('the same live address on the same chain is 409 address_book_entry_exists (EVM case-insensitive)', async () => {
    const addr = randomEvm();
    const e = ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'polygon', address: addr }), 201);
    const dup = await ses.post('/v1/address_book', { kind: 'crypto', chain: 'matic', address: `0x${addr.slice(2).toUpperCase()}` });
    expectError(dup, 409, 'conflict', 'address_book_entry_exists');
    expect(dup.body.error.details.address_book_id).toBe(e.id);
    ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'arbitrum', address: addr }), 201);
    ok(await other.post('/v1/address_book', { kind: 'crypto', chain: 'polygon', address: addr }), 201);
  });

  test('Idempotency-Key replays the same entry', async () => {
    const key = idem();
    const body = { kind: 'crypto', chain: 'base', address: randomEvm() };
    const first = ok(await ses.post('/v1/address_book', body, { idem: key }), 201);
    const again = await ses.post('/v1/address_book', body, { idem: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.id);
  });
});

describe('travel rule and counterparty fields', () => {
  test('a VASP-hosted counterparty requires the travel rule; countries are upper-cased; writes stamp the attestation', async () => {
    const e = await cryptoEntry(ses, {
      counterparty_name: 'Jane Doe',
      counterparty_country: 'gb',
      counterparty_vasp_name: 'Example Exchange',
      counterparty_vasp_jurisdiction: 'sg',
    });
    expect(e).toMatchObject({
      travel_rule_required: true,
      counterparty_country: 'GB',
      counterparty_vasp_jurisdiction: 'SG',
      counterparty_name: 'Jane Doe',
    });
    expect(typeof e.travel_rule_last_attested_at).toBe('string');
    const relabeled = ok(await ses.patch(`/v1/address_book/${e.id}`, { label: 'Jane' }));
    expect(relabeled.travel_rule_last_attested_at).toBe(e.travel_rule_last_attested_at);
    await new Promise((r) => setTimeout(r, 5));
    const selfHosted = ok(
      await ses.patch(`/v1/address_book/${e.id}`, { counterparty_vasp_name: null, counterparty_vasp_jurisdiction: null }),
    );
    expect(selfHosted).toMatchObject({
      travel_rule_required: false,
      counterparty_vasp_name: null,
      counterparty_vasp_jurisdiction: null,
      counterparty_name: 'Jane Doe',
      label: 'Jane',
    });
    expect(selfHosted.travel_rule_last_attested_at > e.travel_rule_last_attested_at).toBe(true);
    const plain = await cryptoEntry(ses);
    expect(plain.travel_rule_last_attested_at).toBeNull();
  });

  test('PATCH: null clears, chain/address/kind are not writable, bad country 400, unknown id 404', async () => {
    const e = await cryptoEntry(ses, { counterparty_name: 'X' });
    expect(ok(await ses.patch(`/v1/address_book/${e.id}`, { label: null, counterparty_name: '' }))).toMatchObject({
      label: null,
      counterparty_name: null,
      address: e.address,
    });
    expectError(
      await ses.patch(`/v1/address_book/${e.id}`, { address: randomEvm() }),
      400,
      'invalid_request',
      'parameter_unknown',
      'address',
    );
    expectError(await ses.patch(`/v1/address_book/${e.id}`, { chain: 'ethereum' }), 400, 'invalid_request', 'parameter_unknown', 'chain');
    expectError(await ses.patch(`/v1/address_book/${e.id}`, { kind: 'bank' }), 400, 'invalid_request', 'parameter_unknown', 'kind');
    expectError(
      await ses.patch(`/v1/address_book/${e.id}`, { counterparty_vasp_jurisdiction: 'XX' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'counterparty_vasp_jurisdiction',
    );
    expectError(await ses.patch('/v1/address_book/adr_doesnotexist', { label: 'x' }), 404, 'not_found');
  });
});

describe('bank entries and beneficiary details', () => {
  test('details are set once, stored encrypted, read back masked only', async () => {
    const e = ok(
      await ses.post('/v1/address_book', {
        kind: 'bank',
        label: 'Payroll bank',
        counterparty_name: 'Acme Ltd',
        counterparty_country: 'us',
      }),
      201,
    );
    expect(e).toMatchObject({
      kind: 'bank',
      chain: null,
      address: null,
      beneficiary: null,
      screening: null,
      currency: null,
      travel_rule_required: false,
      counterparty_country: 'US',
    });
    const set = await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, tax_id: '98-7654321', country: 'us' });
    const masked = ok(set);
    expect(masked.currency).toBe('USD');
    expect(masked.beneficiary).toEqual({
      beneficiary_owner_type: 'business',
      account_holder_name: 'Acme Ltd',
      bank_name: 'Chase',
      rail: 'ach',
      currency: 'USD',
      account_type: 'checking',
      account_number_last4: '6789',
      routing_number: '021000021',
      sort_code: null,
      iban_country: null,
      iban_last4: null,
      bic: null,
      clabe_last4: null,
      pix_key_type: null,
      pix_key_last4: null,
    });
    const read = await ses.get(`/v1/address_book/${e.id}`);
    for (const text of [
      JSON.stringify(set.body),
      JSON.stringify(read.body),
      JSON.stringify((await ses.get('/v1/address_book?kind=bank')).body),
    ]) {
      expect(text).not.toContain('000123456789');
      expect(text).not.toContain('98-7654321');
      expect(text).not.toContain('account_owner_type');
    }
    const [row] = await db().query('SELECT bank_details_ciphertext, beneficiary_masked FROM address_book_entries WHERE id = $1', [e.id]);
    expect(row.bank_details_ciphertext).not.toContain('000123456789');
    expect(JSON.parse(decrypt(row.bank_details_ciphertext))).toMatchObject({
      account_number: '000123456789',
      routing_number: '021000021',
      account_owner_type: 'business',
      tax_id: '98-7654321',
      country: 'US',
    });
    const [idemRow] = await db().query(
      `SELECT response_body::text AS body FROM idempotency_records WHERE account_id = $1 AND route LIKE '%/beneficiary'`,
      [a.account_id],
    );
    expect(idemRow.body).not.toContain('000123456789');
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, account_number: '99999999' }),
      409,
      'conflict',
      'beneficiary_already_set',
    );
  });

  test('beneficiary validation per rail and kind', async () => {
    const e = ok(await ses.post('/v1/address_book', { kind: 'bank' }), 201);
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, routing_number: '021000022' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'routing_number',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, rail: undefined }),
      400,
      'invalid_request',
      'parameter_missing',
      'rail',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, rail: 'swift' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'rail',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, account_owner_type: undefined }),
      400,
      'invalid_request',
      'parameter_missing',
      'account_owner_type',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, beneficiary_owner_type: 'business' }),
      400,
      'invalid_request',
      'parameter_unknown',
      'beneficiary_owner_type',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, {
        account_owner_type: 'individual',
        account_holder_name: 'Jo',
        rail: 'sepa',
        iban: 'DE89370400440532013001',
      }),
      400,
      'invalid_request',
      'parameter_invalid',
      'iban',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { account_owner_type: 'individual', account_holder_name: 'Jo', rail: 'sepa' }),
      400,
      'invalid_request',
      'parameter_missing',
      'iban',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, clabe: '032180000118359719' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'clabe',
    );
    expectError(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, { ...ACH, country: 'XX' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'country',
    );
    // The refusals above stored nothing: valid SEPA details still go through once.
    const sepa = ok(
      await ses.post(`/v1/address_book/${e.id}/beneficiary`, {
        account_owner_type: 'individual',
        account_holder_name: 'Jo',
        rail: 'sepa',
        iban: 'DE89 3704 0044 0532 0130 00',
        bic: 'DEUTDEFF',
      }),
    );
    expect(sepa.beneficiary).toMatchObject({
      beneficiary_owner_type: 'individual',
      rail: 'sepa',
      currency: 'EUR',
      iban_country: 'DE',
      iban_last4: '3000',
      bic: 'DEUTDEFF',
    });
    const crypto = await cryptoEntry(ses);
    expectError(
      await ses.post(`/v1/address_book/${crypto.id}/beneficiary`, ACH),
      400,
      'invalid_request',
      'address_book_entry_kind_mismatch',
    );
  });
});

describe('screening and recheck', () => {
  test('recheck reports what the provider now says and emits address_book.entry_rechecked; a high risk is a signal, not a block', async () => {
    const e = await cryptoEntry(ses);
    ok(
      await call('POST', '/sim/providers/screening/signals', {
        chain: 'base',
        address: e.address,
        risk_score: 88,
        flags: ['sanctions_exposure'],
      }),
      201,
    );
    const res = await ses.post(`/v1/address_book/${e.id}/recheck`);
    const r = ok(res);
    expect(r.screening).toMatchObject({
      status: 'completed',
      risk_score: 88,
      risk_level: 'severe',
      verdict: 'high_risk',
      action: 'avoid',
      flags: ['sanctions_exposure'],
    });
    expect(r.screening.screened_at >= e.screening.screened_at).toBe(true);
    const events = await db().query(`SELECT type, object_type, data, request_id, idempotency_key FROM events WHERE object_id = $1`, [e.id]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'address_book.entry_rechecked', object_type: 'address_book_entry' });
    expect(events[0].data.object).toMatchObject({
      id: e.id,
      screening: { risk_level: 'severe' },
      previous_screening: { risk_level: 'low' },
    });
    expect(events[0].idempotency_key).toBeTruthy();
    // Still usable as a destination: screening never blocks.
    const link = ok(
      await client(a.live_key).post('/v1/payment_links', {
        amount: usd('1000'),
        title: 'Risky',
        settlement_destination: { address_book_id: e.id },
      }),
      201,
    );
    expect(link.settlement_destination).toEqual({ address_book_id: e.id });
  });

  test('provider outage: create still succeeds (screening unavailable); recheck 503 keeps the previous result', async () => {
    const addr = randomEvm();
    ok(
      await call('POST', '/sim/providers/screening/signals', { chain: 'optimism', address: addr, risk_score: 10, unavailable: true }),
      201,
    );
    const e = ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'optimism', address: addr }), 201);
    expect(e.screening).toMatchObject({ status: 'unavailable', risk_score: null, risk_level: null, verdict: null });
    const res = await ses.post(`/v1/address_book/${e.id}/recheck`);
    expectError(res, 503, 'temporarily_unavailable', 'screening_unavailable');
    expect(res.headers.get('retry-after')).toBe('30');
    expect(ok(await ses.get(`/v1/address_book/${e.id}`)).screening.status).toBe('unavailable');
    ok(await call('POST', '/sim/providers/screening/signals', { chain: 'optimism', address: addr, risk_score: 30 }), 201);
    expect(ok(await ses.post(`/v1/address_book/${e.id}/recheck`)).screening).toMatchObject({
      status: 'completed',
      risk_score: 30,
      risk_level: 'medium',
      verdict: 'review',
    });
  });

  test('recheck of a bank entry is 400 address_book_entry_kind_mismatch', async () => {
    const e = ok(await ses.post('/v1/address_book', { kind: 'bank' }), 201);
    expectError(await ses.post(`/v1/address_book/${e.id}/recheck`), 400, 'invalid_request', 'address_book_entry_kind_mismatch');
  });
});

describe('payment links with an address-book destination', () => {
  test('a link is created and activated with an entry as destination; foreign entries are 404', async () => {
    const key = client(a.live_key);
    const e = await cryptoEntry(ses);
    const link = ok(
      await key.post('/v1/payment_links', { amount: usd('2500'), title: 'Consulting', settlement_destination: { address_book_id: e.id } }),
      201,
    );
    expect(link).toMatchObject({ status: 'draft', settlement_destination: { address_book_id: e.id }, settlement_kind: null });
    expect(JSON.stringify(link)).not.toContain(e.address);
    const active = ok(await key.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
    expect(active).toMatchObject({ status: 'active', settlement_kind: 'fiat_provider', settlement_destination: { address_book_id: e.id } });
    const theirs = await cryptoEntry(other);
    expectError(
      await key.post('/v1/payment_links', { amount: usd('2500'), title: 'x', settlement_destination: { address_book_id: theirs.id } }),
      404,
      'not_found',
      'not_found',
      'settlement_destination.address_book_id',
    );
    const draft = ok(await key.post('/v1/payment_links', { amount: usd('2500'), title: 'x' }), 201);
    expectError(
      await key.patch(`/v1/payment_links/${draft.id}`, { settlement_destination: { address_book_id: theirs.id } }),
      404,
      'not_found',
      'not_found',
      'settlement_destination.address_book_id',
    );
  });

  test('a bank entry needs its details before it can receive money (409 address_book_entry_incomplete)', async () => {
    const key = client(a.live_key);
    const bank = ok(await ses.post('/v1/address_book', { kind: 'bank', label: 'Ops' }), 201);
    const refused = await key.post('/v1/payment_links', {
      amount: usd('2500'),
      title: 'x',
      settlement_destination: { address_book_id: bank.id },
    });
    expectError(refused, 409, 'conflict', 'address_book_entry_incomplete');
    expect(refused.body.error.details.address_book_id).toBe(bank.id);
    ok(await ses.post(`/v1/address_book/${bank.id}/beneficiary`, ACH));
    const link = ok(
      await key.post('/v1/payment_links', { amount: usd('2500'), title: 'x', settlement_destination: { address_book_id: bank.id } }),
      201,
    );
    expect(link.settlement_destination).toEqual({ address_book_id: bank.id });
  });
});

describe('delete', () => {
  test('refused while an open link uses the entry; allowed once the link ended; then 404 and the address can be saved again', async () => {
    const key = client(a.live_key);
    const e = await cryptoEntry(ses);
    const link = ok(
      await key.post('/v1/payment_links', { amount: usd('100'), title: 'x', settlement_destination: { address_book_id: e.id } }),
      201,
    );
    const refused = await ses.del(`/v1/address_book/${e.id}`);
    expectError(refused, 409, 'conflict', 'address_book_entry_in_use');
    expect(refused.body.error.details.payment_link_ids).toEqual([link.id]);
    ok(await key.post(`/v1/payment_links/${link.id}/cancel`));
    const del = ok(await ses.del(`/v1/address_book/${e.id}`));
    expect(del).toEqual({ id: e.id, object: 'address_book_entry', deleted: true });
    expectError(await ses.get(`/v1/address_book/${e.id}`), 404, 'not_found');
    expectError(await ses.del(`/v1/address_book/${e.id}`), 404, 'not_found');
    expectError(await ses.patch(`/v1/address_book/${e.id}`, { label: 'x' }), 404, 'not_found');
    expectError(await ses.post(`/v1/address_book/${e.id}/recheck`), 404, 'not_found');
    expect((await ses.get('/v1/address_book?limit=100')).body.data.map((x: { id: string }) => x.id)).not.toContain(e.id);
    // The ended link keeps its reference; a new link cannot use the deleted entry.
    expect(ok(await key.get(`/v1/payment_links/${link.id}`)).settlement_destination).toEqual({ address_book_id: e.id });
    expectError(
      await key.post('/v1/payment_links', { amount: usd('100'), title: 'x', settlement_destination: { address_book_id: e.id } }),
      404,
      'not_found',
    );
    const again = ok(await ses.post('/v1/address_book', { kind: 'crypto', chain: 'base', address: e.address }), 201);
    expect(again.id).not.toBe(e.id);
  });

  test('an unused entry deletes at once', async () => {
    const e = await cryptoEntry(ses);
    expect(ok(await ses.del(`/v1/address_book/${e.id}`)).deleted).toBe(true);
  });
});

describe('lists and cross-account ids', () => {
  test('newest first with limit/cursor and filters; other accounts never visible', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const ids: string[] = [];
    ids.push((await cryptoEntry(s, { label: 'Alpha' })).id);
    ids.push(ok(await s.post('/v1/address_book', { kind: 'bank', label: 'Beta bank' }), 201).id);
    ids.push((await cryptoEntry(s, { chain: 'ethereum', label: 'Gamma', counterparty_name: 'Zed Corp' })).id);
    const all = ok(await s.get('/v1/address_book'));
    expect(all).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(all.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    const p1 = ok(await s.get('/v1/address_book?limit=2'));
    expect(p1.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    expect(p1.has_more).toBe(true);
    const p2 = ok(await s.get(`/v1/address_book?limit=2&cursor=${encodeURIComponent(p1.next_cursor)}`));
    expect(p2.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect(ok(await s.get('/v1/address_book?kind=bank')).data.map((x: { id: string }) => x.id)).toEqual([ids[1]]);
    expect(ok(await s.get('/v1/address_book?chain=1')).data.map((x: { id: string }) => x.id)).toEqual([ids[2]]);
    expect(ok(await s.get('/v1/address_book?q=zed')).data.map((x: { id: string }) => x.id)).toEqual([ids[2]]);
    expect(ok(await s.get('/v1/address_book?limit=0')).data).toHaveLength(3);
    expectError(await s.get('/v1/address_book?chain=dogecoin'), 400, 'invalid_request', 'parameter_invalid', 'chain');
    expectError(await s.get('/v1/address_book?kind=card'), 400, 'invalid_request', 'parameter_invalid', 'kind');
    expectError(await s.get('/v1/address_book?cursor=garbage'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
    expect(ok(await ses.get('/v1/address_book?limit=100')).data.map((x: { id: string }) => x.id)).not.toContain(ids[0]);
  });

  test("every operation on another account's entry is 404", async () => {
    const theirs = await cryptoEntry(other);
    const theirBank = ok(await other.post('/v1/address_book', { kind: 'bank' }), 201);
    expectError(await ses.get(`/v1/address_book/${theirs.id}`), 404, 'not_found');
    expectError(await ses.patch(`/v1/address_book/${theirs.id}`, { label: 'mine now' }), 404, 'not_found');
    expectError(await ses.del(`/v1/address_book/${theirs.id}`), 404, 'not_found');
    expectError(await ses.post(`/v1/address_book/${theirs.id}/recheck`), 404, 'not_found');
    expectError(await ses.post(`/v1/address_book/${theirBank.id}/beneficiary`, ACH), 404, 'not_found');
    expect(ok(await other.get(`/v1/address_book/${theirs.id}`)).label).toBe('Treasury');
  });
});

describe('declared response schemas', () => {
  test('every success body matches the response schema of its operation', async () => {
    const strict = (v: unknown, schema: { validate: (v: unknown, o: object) => { error?: Error } }) => {
      const { error } = schema.validate(v, { presence: 'optional', allowUnknown: false });
      if (error) throw new Error(`${error.message}: ${JSON.stringify(v)}`);
    };
    const c = await cryptoEntry(ses, { counterparty_vasp_name: 'VASP', counterparty_vasp_jurisdiction: 'DE' });
    strict(c, addressBookEntryOut);
    const bank = ok(await ses.post('/v1/address_book', { kind: 'bank' }), 201);
    strict(bank, addressBookEntryOut);
    strict(
      ok(
        await ses.post(`/v1/address_book/${bank.id}/beneficiary`, {
          account_owner_type: 'individual',
          account_holder_name: 'Jo',
          rail: 'spei',
          clabe: '032180000118359719',
        }),
      ),
      addressBookEntryOut,
    );
    strict(ok(await ses.post(`/v1/address_book/${c.id}/recheck`)), addressBookEntryOut);
    strict(ok(await ses.patch(`/v1/address_book/${c.id}`, { label: 'L' })), addressBookEntryOut);
    strict(ok(await ses.get(`/v1/address_book/${c.id}`)), addressBookEntryOut);
    strict(ok(await ses.get('/v1/address_book?limit=5')), addressBookListOut);
    strict(ok(await ses.del(`/v1/address_book/${bank.id}`)), deletedEntryOut);
  });
});
