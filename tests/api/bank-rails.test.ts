/**
 * Bank rails of payment links over HTTP (issue 12; spec 2.1 BankDepositInstructions, 2.3, 2.4,
 * 4.1, 4.6, 7): activation with a bank destination, payable rails per currency, bank deposit
 * instructions of every rail, reuse of the live attempt, the payer checks (`payer_type` fiat cap,
 * `payer_state`), every named error of the bank payment and refund calls, `/sim/bank/credits`
 * matching, and the capabilities document.
 */
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { activeBankLink, bankCredit, bankDestination, RAIL_CURRENCY, session } from '../helpers/bank';

beforeAll(async () => {
  await connectDb();
});

const RAIL_FIELDS: Record<string, string[]> = {
  ach: ['account_number', 'routing_number'],
  wire: ['account_number', 'routing_number', 'bank_address'],
  sepa: ['iban', 'bic'],
  faster_payments: ['sort_code', 'account_number'],
  pix: ['pix_key'],
  spei: ['clabe'],
};

const BDI_KEYS = [
  'currency',
  'rail',
  'bank_name',
  'beneficiary_name',
  'holder_kind',
  'account_number',
  'routing_number',
  'sort_code',
  'clabe',
  'pix_key',
  'bank_address',
  'iban',
  'bic',
  'reference',
  'matching',
].sort();

describe('activation and payable rails', () => {
  test.each([
    ['ach', ['ach', 'wire']],
    ['sepa', ['sepa']],
    ['faster_payments', ['faster_payments']],
    ['pix', ['pix']],
    ['spei', ['spei']],
  ])('a %s destination activates fiat_provider with payable rails %j and expected_payer_type bank', async (rail, payable) => {
    const { link, token } = await activeBankLink(rail, '10000');
    expect(link).toMatchObject({
      status: 'active',
      settlement_kind: 'fiat_provider',
      settlement_asset: null,
      payable_rails: payable,
      expected_payer_type: 'bank',
    });
    const s = expectOk(await session(token));
    expect(s.rails).toEqual(payable);
    expect(s.rails_not_allowed).toContain('crypto_native');
  });
});

test('409 conflict settlement_destination_currency_mismatch for a bank destination in another currency', async () => {
  const creds = await newAccount();
  const api = client(creds.live_key);
  const dest = await bankDestination(creds, 'sepa');
  const l = expectOk(
    await api.post('/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: 'x',
      settlement_destination: { address_book_id: dest },
    }),
    201,
  );
  const r = await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  expectError(r, 409, 'conflict', 'settlement_destination_currency_mismatch', 'settlement_destination');
  expect(r.body.error.details).toEqual({ destination_currency: 'EUR', currency: 'USD' });
  expect(
    expectOk(await api.patch(`/v1/payment_links/${l.id}`, { amount: { amount: '1000', currency: 'EUR', decimals: 2 } })).amount.currency,
  ).toBe('EUR');
  expect(expectOk(await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true })).payable_rails).toEqual(['sepa']);
});

describe('bank deposit instructions', () => {
  test.each(['ach', 'wire', 'sepa', 'faster_payments', 'pix', 'spei'])(
    '%s: every BankDepositInstructions field, deposit_instructions null, live attempt reused',
    async (rail) => {
      const { token } = await activeBankLink(rail === 'wire' ? 'ach' : rail, '25000');
      const p = await session(token, '/payments', { rail, payer_type: 'business', payer_email: 'payer@example.com' });
      expect(p.status).toBe(201);
      expect(p.body).toMatchObject({
        status: 'awaiting',
        payment_rail: rail,
        deposit_instructions: null,
        fee: { amount: '0' },
        amount_verdict: null,
        return_reason: null,
      });
      expect(p.body.amount_expected).toEqual({ amount: '25000', ...RAIL_CURRENCY[rail] });
      const bdi = p.body.bank_deposit_instructions;
      expect(Object.keys(bdi).sort()).toEqual(BDI_KEYS);
      expect(bdi).toMatchObject({
        currency: RAIL_CURRENCY[rail].currency,
        rail,
        matching: rail === 'sepa' ? 'reference' : 'account_number',
      });
      expect(bdi.reference).toMatch(/^PL[A-Z2-9]{10}$/);
      expect(['own_name', 'provider_name', 'developer_name']).toContain(bdi.holder_kind);
      for (const f of RAIL_FIELDS[rail]) expect(typeof bdi[f]).toBe('string');
      if (rail === 'spei') expect(bdi.clabe).toMatch(/^[0-9]{18}$/);
      if (rail === 'faster_payments') expect(bdi.sort_code).toMatch(/^[0-9]{6}$/);
      const again = await session(token, '/payments', { rail, payer_type: 'business' });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(p.body.id);
      expect(again.body.bank_deposit_instructions).toEqual(bdi);
    },
  );
});

describe('errors of a bank payment', () => {
  test('400 rail_not_allowed for a crypto rail on a bank link and a rail of another currency', async () => {
    const { token } = await activeBankLink('sepa', '10000');
    expectError(await session(token, '/payments', { rail: 'crypto_native' }), 400, 'invalid_request', 'rail_not_allowed', 'rail');
    const r = await session(token, '/payments', { rail: 'ach' });
    expectError(r, 400, 'invalid_request', 'rail_not_allowed', 'rail');
    expect(r.body.error.details).toEqual({ rails: ['sepa'] });
  });

  test('409 capability_unavailable fiat_cap_exceeded: payer_type decides the cap', async () => {
    const { token } = await activeBankLink('sepa', '1500000'); // EUR 15,000: above the individual cap, within the business cap
    const r = await session(token, '/payments', { rail: 'sepa', payer_type: 'individual' });
    expectError(r, 409, 'capability_unavailable', 'fiat_cap_exceeded');
    expect(r.body.error.details).toEqual({ cap: { amount: '1000000', currency: 'EUR', decimals: 2 }, payer_type: 'individual' });
    expectError(await session(token, '/payments', { rail: 'sepa' }), 409, 'capability_unavailable', 'fiat_cap_exceeded');
    expect((await session(token, '/payments', { rail: 'sepa', payer_type: 'business' })).status).toBe(201);
  });

  test('payer_state: consulted for an individual payer on a US rail against an individual merchant only', async () => {
    const creds = await newAccount();
    await db().query(`UPDATE accounts SET customer_type = 'individual' WHERE id = $1`, [creds.account_id]);
    const { token } = await activeBankLink('ach', '10000', { creds });
    expectError(
      await session(token, '/payments', { rail: 'ach', payer_type: 'individual' }),
      400,
      'invalid_request',
      'parameter_missing',
      'payer_state',
    );
    expectError(
      await session(token, '/payments', { rail: 'ach', payer_type: 'individual', payer_state: 'ZZ' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'payer_state',
    );
    expectError(await session(token, '/payments', { rail: 'ach', payer_state: 'ny' }), 400, 'invalid_request', undefined, 'payer_state');
    const ny = await session(token, '/payments', { rail: 'wire', payer_type: 'individual', payer_state: 'NY' });
    expectError(ny, 409, 'capability_unavailable', 'payer_state_unsupported');
    expect(ny.body.error.details).toEqual({ payer_state: 'NY' });
    expect((await session(token, '/payments', { rail: 'ach', payer_type: 'business' })).status).toBe(201);
    expect((await session(token, '/payments', { rail: 'wire', payer_type: 'individual', payer_state: 'CA' })).status).toBe(201);
  });

  test('409 payment_link_not_payable once the link is cancelled', async () => {
    const { api, link, token } = await activeBankLink('pix', '10000');
    expectOk(await api.post(`/v1/payment_links/${link.id}/cancel`));
    expectError(await session(token, '/payments', { rail: 'pix', payer_type: 'business' }), 409, 'conflict', 'payment_link_not_payable');
  });
});

describe('refund errors', () => {
  test('409 payment_link_not_refundable before payment; 404 for another account; 400 for an unknown reason', async () => {
    const { api, link } = await activeBankLink('sepa', '10000');
    expectError(await api.post(`/v1/payment_links/${link.id}/refund`, {}), 409, 'conflict', 'payment_link_not_refundable');
    expectError(await client((await newAccount()).live_key).post(`/v1/payment_links/${link.id}/refund`, {}), 404, 'not_found');
    expectError(await api.post(`/v1/payment_links/${link.id}/refund`, { reason: 'bored' }), 400, 'invalid_request', undefined, 'reason');
  });

  test('409 settlement_in_progress while the payout to the merchant bank is in flight', async () => {
    const { api, link, token } = await activeBankLink('sepa', '10000');
    const p = expectOk(await session(token, '/payments', { rail: 'sepa', payer_type: 'business' }), 201);
    expectOk(await bankCredit(p.bank_deposit_instructions, '10000'), 201);
    await eventually(async () => {
      const r = await db().query('SELECT settlement_rail_payment_id FROM payments WHERE id = $1', [p.id]);
      return r[0].settlement_rail_payment_id;
    }, 'the settlement payout in flight');
    expectError(await api.post(`/v1/payment_links/${link.id}/refund`, {}), 409, 'conflict', 'settlement_in_progress');
  });
});

describe('refunds on crypto rails', () => {
  const transfer = (di: { chain: string; address: string; asset: string; amount: { amount: string } }, from?: string) =>
    call(
      'POST',
      '/sim/chain/transfers',
      { chain: di.chain, to_address: di.address, asset: di.asset, amount: di.amount.amount, ...(from ? { from_address: from } : {}) },
      { idem: null },
    );

  test('409 capability_unavailable refund_unavailable once a crypto payment settled into the merchant wallet', async () => {
    const api = client((await newAccount()).live_key);
    const l = expectOk(
      await api.post('/v1/payment_links', {
        amount: { amount: '1000', currency: 'USD', decimals: 2 },
        title: 'x',
        accepted_rail_kinds: ['crypto'],
      }),
      201,
    );
    const a = expectOk(await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
    const token = String(a.url).split('/pay/')[1];
    const p = expectOk(await session(token, '/payments', { rail: 'crypto_native' }), 201);
    expectOk(await transfer(p.deposit_instructions, `0x${'12'.repeat(20)}`), 201);
    await eventually(async () => (await api.get(`/v1/payment_links/${l.id}`)).body.status === 'settled', 'settled');
    expectError(await api.post(`/v1/payment_links/${l.id}/refund`, {}), 409, 'capability_unavailable', 'refund_unavailable');
  });

  test('a paid crypto payment held for a crypto destination is refunded to its sender; unknown sender is refund_unavailable', async () => {
    const creds = await newAccount();
    const api = client(creds.live_key);
    const adr = newId('adr_');
    await db().query(
      `INSERT INTO address_book_entries(id, account_id, livemode, kind, label, chain, address) VALUES ($1,$2,true,'crypto','Treasury','base',$3)`,
      [adr, creds.account_id, `0x${'ab'.repeat(20)}`],
    );
    const open = async () => {
      const l = expectOk(
        await api.post('/v1/payment_links', {
          amount: { amount: '1000', currency: 'USD', decimals: 2 },
          title: 'x',
          settlement_destination: { address_book_id: adr },
        }),
        201,
      );
      const a = expectOk(await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
      const p = expectOk(await session(String(a.url).split('/pay/')[1], '/payments', { rail: 'crypto_native' }), 201);
      return { l, p };
    };
    const anon = await open();
    expectOk(await transfer(anon.p.deposit_instructions), 201);
    await eventually(async () => (await api.get(`/v1/payment_links/${anon.l.id}`)).body.status === 'paid', 'paid');
    expectError(await api.post(`/v1/payment_links/${anon.l.id}/refund`, {}), 409, 'capability_unavailable', 'refund_unavailable');

    const known = await open();
    expectOk(await transfer(known.p.deposit_instructions, `0x${'34'.repeat(20)}`), 201);
    await eventually(async () => (await api.get(`/v1/payment_links/${known.l.id}`)).body.status === 'paid', 'paid');
    const r = expectOk(await api.post(`/v1/payment_links/${known.l.id}/refund`, { reason: 'duplicate' }));
    expect(r.status).toBe('refunded');
    await eventually(
      async () => (await db().query('SELECT refund_rail_payment_id FROM payments WHERE id = $1', [known.p.id]))[0].refund_rail_payment_id,
      'refund sent',
    );
    const back = await db().query(`SELECT amount_minor FROM sandbox_chain_transfers WHERE idempotency_key = $1`, [`refund:${known.p.id}`]);
    expect(back).toEqual([{ amount_minor: '10100000' }]);
    expect(expectOk(await api.get(`/v1/payments/${known.p.id}`)).status).toBe('refunded');
  });
});

describe('/sim/bank/credits', () => {
  test('a SEPA credit without the reference is received unmatched and held; validation errors are 400', async () => {
    const { token } = await activeBankLink('sepa', '10000');
    const p = expectOk(await session(token, '/payments', { rail: 'sepa', payer_type: 'business' }), 201);
    const miss = expectOk(await bankCredit(p.bank_deposit_instructions, '10000', { reference: 'INVOICE 12' }), 201);
    expect(miss).toMatchObject({ object: 'sim.bank_credit', matched: false, payment_id: null, state: 'received' });
    expect((await session(token, `/payments/${p.id}`)).body.status).toBe('awaiting');
    expectError(await bankCredit(p.bank_deposit_instructions, '0'), 400, 'invalid_request', undefined, 'amount');
    expectError(await bankCredit(p.bank_deposit_instructions, '100', { rail: 'swift' }), 400, 'invalid_request', undefined, 'rail');
    expectError(
      await bankCredit(p.bank_deposit_instructions, '100', { currency: 'XYZ' }),
      400,
      'invalid_request',
      'parameter_invalid',
      'currency',
    );
  });

  test('an account-matched credit needs no reference: faster_payments by sort code and account number', async () => {
    const { token } = await activeBankLink('faster_payments', '5000');
    const p = expectOk(await session(token, '/payments', { rail: 'faster_payments', payer_type: 'business' }), 201);
    const c = expectOk(await bankCredit(p.bank_deposit_instructions, '5000', { reference: '', sender_name: 'Jo Bloggs' }), 201);
    expect(c).toMatchObject({ matched: true, payment_id: p.id });
    await eventually(async () => ['paid', 'settled'].includes((await session(token, `/payments/${p.id}`)).body.status), 'paid');
    const paid = (await session(token, `/payments/${p.id}`)).body;
    expect(paid.amount_verdict).toBeNull();
  });
});

describe('capabilities', () => {
  test('GET /capabilities?product=payment_links lists every rail with the spec fields', async () => {
    const api = client((await newAccount()).live_key);
    const caps = expectOk(await api.get('/v1/capabilities?product=payment_links'));
    expect(caps.corridors.map((c: { corridor_id: string }) => c.corridor_id)).toEqual([
      'crypto_native',
      'crypto_xchain',
      'ach',
      'wire',
      'sepa',
      'faster_payments',
      'pix',
      'spei',
    ]);
    for (const c of caps.corridors) {
      for (const f of [
        'lifecycle',
        'public_claim_status',
        'executable',
        'source_chains',
        'max_amount',
        'action',
        'display_label',
        'logo_url',
      ])
        expect(c).toHaveProperty(f);
    }
    const sepa = caps.corridors.find((c: { corridor_id: string }) => c.corridor_id === 'sepa');
    expect(sepa).toMatchObject({
      currency: 'EUR',
      executable: true,
      lifecycle: 'preview',
      max_amount: { amount: '25000000', currency: 'EUR', decimals: 2 },
    });
    expect(sepa).not.toHaveProperty('blocked_reason');
    expect(caps.fee).toMatchObject({ bps: 100, applies_to: 'payer', rails: ['crypto_native', 'crypto_xchain'] });
  });
});
