/**
 * Payouts over HTTP against the running product (spec 2.6, 3, 4.3, 4.6, 6, 8): capabilities and
 * eligibility, create with payer type and corridor checks, beneficiary once and masked, the funding
 * money boundary (session only, source chain rules, refund address rules, service wallet), the
 * whole journey driven by the simulator (deposit on the source chain, rail paid, recipient
 * confirmation) to settled with a receipt, shortfall, cancel (idempotent, hold, close failure),
 * mark_sent, replace, attempts, events, list filters and every named error.
 */
import { call, client, connectDb, eventually, expectError, newAccount } from '../helpers/api';
import type Joi from 'joi';
import { db } from '../../lib/db';
import { decrypt } from '../../lib/secrets';
import { PayoutBeneficiaryMasked1763800700000 } from '../../entities/migrations/1763800700000-PayoutBeneficiaryMasked';
import {
  attemptResponse,
  fundingInstructionsResponse,
  payoutListResponse,
  payoutResponse,
  receiptResponse,
  walletFundingQuoteResponse,
} from '../../views/payout';
import { capabilitiesResponse } from '../../views/capabilities';

type Api = ReturnType<typeof client>;
let key: Api;
let session: Api;
let accountId: string;

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
const achBeneficiary = {
  account_owner_type: 'business',
  account_holder_name: 'Supplier LLC',
  account_number: '123456789',
  routing_number: '021000021',
};
/** The body matches the operation's declared `response:` schema exactly (no unknown keys). */
function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });

beforeAll(async () => {
  await connectDb();
  const creds = await newAccount();
  accountId = creds.account_id;
  key = client(creds.live_key);
  session = client(creds.session_token);
});

async function draft(extra: Record<string, unknown> = {}, api: Api = key) {
  const r = await api.post('/v1/payouts', { invoice_amount: usd('100000'), corridor_id: 'usd_ach', ...extra });
  expect(r.status).toBe(201);
  return r.body;
}

async function fundable(extra: Record<string, unknown> = {}) {
  const p = await draft(extra);
  const b = await key.post(`/v1/payouts/${p.id}/beneficiary`, achBeneficiary);
  expect(b.status).toBe(200);
  return b.body;
}

const payout = async (id: string) => (await key.get(`/v1/payouts/${id}`)).body;
const waitStatus = (id: string, status: string) =>
  eventually(async () => (await payout(id)).status === status, `payout ${id} ${status}`, 20000);

test('capabilities: payouts corridors, funding sources; payment_links rails and fee; eligibility has the same contract', async () => {
  const c = await key.get('/v1/capabilities?product=payouts');
  expect(c.status).toBe(200);
  expect(c.body.corridors.map((x: { corridor_id: string }) => x.corridor_id)).toEqual([
    'usd_ach',
    'usd_wire',
    'eur_sepa',
    'gbp_faster_payments',
    'brl_pix',
    'mxn_spei',
    'cop_co_bank_transfer',
  ]);
  const ach = c.body.corridors[0];
  expect(ach).toMatchObject({
    lifecycle: 'public',
    public_claim_status: 'live',
    executable: true,
    fiat_rail: 'ach',
    max_amount: { amount: '10000000', currency: 'USD', decimals: 2 },
  });
  expect(ach.blocked_reason).toBeUndefined();
  expect(ach.source_chains).toContain('base');
  const cop = c.body.corridors[6];
  expect(cop).toMatchObject({ lifecycle: 'blocked', executable: false, blocked_reason: 'corridor_blocked', source_chains: [] });
  expect(c.body.funding_sources.map((f: { funding_source: string }) => f.funding_source)).toEqual(['external_wallet', 'service_wallet']);
  expect(JSON.stringify(c.body)).not.toContain('"fps"');
  conforms(capabilitiesResponse, c.body);
  const e = await key.get('/v1/payouts/eligibility');
  expect(e.status).toBe(200);
  expect(e.body).toEqual(c.body);
  const l = await key.get('/v1/capabilities?product=payment_links');
  conforms(capabilitiesResponse, l.body);
  expect(l.body.fee).toEqual({
    kind: 'percentage',
    bps: 100,
    applies_to: 'payer',
    rails: ['crypto_native', 'crypto_xchain'],
    rounding: 'floor',
    rounding_decimals: 6,
  });
  const x = l.body.corridors.find((r: { corridor_id: string }) => r.corridor_id === 'crypto_xchain');
  expect(x).toMatchObject({ executable: false, blocked_reason: 'xchain_requires_mainnet', source_chains: [] });
  expectError(await key.get('/v1/capabilities'), 400, 'invalid_request', 'parameter_missing', 'product');
  conforms(capabilitiesResponse, (await key.get('/v1/capabilities?product=buy_sell')).body);
  expectError(await key.get('/v1/capabilities?product=bogus'), 400, 'invalid_request', 'parameter_invalid', 'product');
});

test('create: draft with derived payer type, default source chain, frozen snapshot; named errors', async () => {
  const p = await draft({ note: 'INV-7', recipient_email: 'ap@supplier.example', notify_recipient: true });
  expect(p).toMatchObject({
    object: 'payout',
    status: 'draft',
    corridor_id: 'usd_ach',
    fiat_rail: 'ach',
    source_chain: 'base',
    source_chain_chosen: false,
    source_asset: 'USDC',
    payer_type: 'business',
    fee_bps: 100,
    needs_attention: false,
    beneficiary: null,
    settled_amount: null,
  });
  expect(p.id).toMatch(/^po_/);
  conforms(payoutResponse, p);
  expect(p.capability_snapshot).toMatchObject({ version: '2026-11-01', eta_seconds: 172800, minimum: usd('100') });
  expect(typeof p.capability_snapshot.sender_display).toBe('string');
  const chosen = await draft({ source_chain: 'polygon' });
  expect(chosen).toMatchObject({ source_chain: 'polygon', source_chain_chosen: true });

  const mismatch = await key.post('/v1/payouts', { invoice_amount: usd('1000'), corridor_id: 'usd_ach', payer_type: 'individual' });
  expectError(mismatch, 422, 'invalid_request', 'payer_type_mismatch', 'payer_type');
  expect(mismatch.body.error.details).toEqual({ expected: 'business', received: 'individual' });
  expectError(
    await key.post('/v1/payouts', {
      invoice_amount: { amount: '1000', currency: 'COP', decimals: 2 },
      corridor_id: 'cop_co_bank_transfer',
    }),
    409,
    'capability_unavailable',
    'capability_unavailable',
  );
  expectError(
    await key.post('/v1/payouts', {
      invoice_amount: { amount: '5000', currency: 'BRL', decimals: 2 },
      corridor_id: 'brl_pix',
      source_chain: 'arbitrum',
    }),
    409,
    'capability_unavailable',
    'capability_unavailable',
    'source_chain',
  );
  expectError(
    await key.post('/v1/payouts', { invoice_amount: usd('1000'), corridor_id: 'usd_ach', notify_recipient: true }),
    400,
    'invalid_request',
    'parameter_missing',
    'recipient_email',
  );
  expectError(
    await key.post('/v1/payouts', { invoice_amount: usd('1000'), corridor_id: 'usd_fps' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'corridor_id',
  );
  expectError(
    await key.post('/v1/payouts', { invoice_amount: { amount: '1000', currency: 'EUR', decimals: 2 }, corridor_id: 'usd_ach' }),
    400,
    'invalid_request',
    'currency_mismatch',
    'invoice_amount',
  );
  expectError(
    await key.post('/v1/payouts', { invoice_amount: usd('0'), corridor_id: 'usd_ach' }),
    400,
    'invalid_request',
    undefined,
    'invoice_amount.amount',
  );
  expectError(
    await key.post('/v1/payouts', { invoice_amount: usd('1000'), corridor_id: 'usd_ach', colour: 'red' }),
    400,
    'invalid_request',
    'parameter_unknown',
    'colour',
  );
  expectError(await key.get('/v1/payouts/po_doesnotexist'), 404, 'not_found');
});

test("beneficiary crosses once, is stored encrypted and read back masked (the address book's shape)", async () => {
  const p = await draft();
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, routing_number: '021000022' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'routing_number',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, iban: 'DE89370400440532013000' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'iban',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, account_number: undefined }),
    400,
    'invalid_request',
    'parameter_missing',
    'account_number',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, rail: 'sepa' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'rail',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, rail: 'swift' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'rail',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, country: 'XX' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'country',
  );
  expectError(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, { ...achBeneficiary, beneficiary_owner_type: 'business' }),
    400,
    'invalid_request',
    'parameter_unknown',
    'beneficiary_owner_type',
  );
  const b = await key.post(`/v1/payouts/${p.id}/beneficiary`, {
    ...achBeneficiary,
    rail: 'ach',
    account_type: 'savings',
    tax_id: '12-3456789',
    country: 'us',
  });
  expect(b.status).toBe(200);
  const masked = {
    beneficiary_owner_type: 'business',
    account_holder_name: 'Supplier LLC',
    bank_name: null,
    rail: 'ach',
    currency: 'USD',
    account_type: 'savings',
    account_number_last4: '6789',
    routing_number: '021000021',
    sort_code: null,
    iban_country: null,
    iban_last4: null,
    bic: null,
    clabe_last4: null,
    pix_key_type: null,
    pix_key_last4: null,
  };
  expect(b.body.beneficiary).toEqual(masked);
  conforms(payoutResponse, b.body);
  expect((await payout(p.id)).beneficiary).toEqual(masked);
  for (const text of [JSON.stringify(b.body), JSON.stringify((await key.get(`/v1/payouts/${p.id}/events`)).body)]) {
    for (const raw of ['123456789', '12-3456789', 'account_owner_type']) expect(text).not.toContain(raw);
  }
  const row = (await db().query('SELECT beneficiary_ciphertext FROM payouts WHERE id = $1', [p.id]))[0];
  expect(row.beneficiary_ciphertext).toMatch(/^v1\./);
  expect(row.beneficiary_ciphertext).not.toContain('123456789');
  expect(JSON.parse(decrypt(row.beneficiary_ciphertext))).toMatchObject({
    rail: 'ach',
    account_number: '123456789',
    tax_id: '12-3456789',
    country: 'US',
  });
  expectError(await key.post(`/v1/payouts/${p.id}/beneficiary`, achBeneficiary), 409, 'conflict', 'beneficiary_already_set');
  const evs = await key.get(`/v1/payouts/${p.id}/events`);
  expect(evs.body.data.map((e: { type: string }) => e.type)).toEqual(['payout.beneficiary_added', 'payout.created']);
  expect(evs.body.data[0].data.object.beneficiary).toEqual(masked);
  expect(evs.body.data[1].data.object.source_chain).toBeNull();
  expect(evs.body.data[1].data.object.source_chain_chosen).toBeUndefined();
});

test('payouts and the address book check bank details alike and show the same masked projection', async () => {
  const sepa = await key.post('/v1/payouts', {
    invoice_amount: { amount: '100000', currency: 'EUR', decimals: 2 },
    corridor_id: 'eur_sepa',
  });
  expect(sepa.status).toBe(201);
  const entry = await session.post('/v1/address_book', { kind: 'bank' });
  expect(entry.status).toBe(201);
  const jo = { account_owner_type: 'individual', account_holder_name: 'Jo Weber', bank_name: 'Deutsche Bank' };
  // A valid IBAN of a country outside SEPA is refused on both.
  const nonSepa = { ...jo, iban: 'BR1800360305000010009795493C1' };
  expectError(await key.post(`/v1/payouts/${sepa.body.id}/beneficiary`, nonSepa), 400, 'invalid_request', 'parameter_invalid', 'iban');
  expectError(
    await session.post(`/v1/address_book/${entry.body.id}/beneficiary`, { ...nonSepa, rail: 'sepa' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'iban',
  );
  const details = { ...jo, iban: 'DE89 3704 0044 0532 0130 00', bic: 'deutdeff' };
  const fromPayout = await key.post(`/v1/payouts/${sepa.body.id}/beneficiary`, details);
  const fromBook = await session.post(`/v1/address_book/${entry.body.id}/beneficiary`, { ...details, rail: 'sepa' });
  expect(fromPayout.status).toBe(200);
  expect(fromBook.status).toBe(200);
  expect(fromPayout.body.beneficiary).toEqual(fromBook.body.beneficiary);
  expect(fromPayout.body.beneficiary).toMatchObject({
    rail: 'sepa',
    currency: 'EUR',
    iban_country: 'DE',
    iban_last4: '3000',
    bic: 'DEUTDEFF',
    account_number_last4: null,
  });
  expect(JSON.stringify(fromPayout.body)).not.toContain('0532013');

  const mxn = await key.post('/v1/payouts', {
    invoice_amount: { amount: '100000', currency: 'MXN', decimals: 2 },
    corridor_id: 'mxn_spei',
  });
  expect(mxn.status).toBe(201);
  expectError(
    await key.post(`/v1/payouts/${mxn.body.id}/beneficiary`, {
      account_owner_type: 'business',
      account_holder_name: 'Proveedor SA',
      clabe: '032180000118359718',
    }),
    400,
    'invalid_request',
    'parameter_invalid',
    'clabe',
  );
  const spei = await key.post(`/v1/payouts/${mxn.body.id}/beneficiary`, {
    account_owner_type: 'business',
    account_holder_name: 'Proveedor SA',
    clabe: '0321 8000 0118 3597 19',
  });
  expect(spei.status).toBe(200);
  expect(spei.body.beneficiary).toMatchObject({ rail: 'spei', currency: 'MXN', clabe_last4: '9719', account_number_last4: null });
  conforms(payoutResponse, spei.body);
});

test('migration 1763800700000 rewrites a payout beneficiary stored in the former masked shape from the encrypted details', async () => {
  const p = await fundable();
  const current = (await payout(p.id)).beneficiary;
  const former = {
    beneficiary_owner_type: 'business',
    account_holder_name: 'Supplier LLC',
    rail: 'ach',
    bank_name: null,
    account_number_last4: '6789',
    routing_number: '021000021',
    iban: null,
    bic: null,
    sort_code: null,
    clabe: null,
    pix_key: null,
  };
  await db().query('UPDATE payouts SET beneficiary_masked = $2 WHERE id = $1', [p.id, JSON.stringify(former)]);
  const runner = db().createQueryRunner();
  try {
    await new PayoutBeneficiaryMasked1763800700000().up(runner);
  } finally {
    await runner.release();
  }
  expect((await payout(p.id)).beneficiary).toEqual(current);
  conforms(payoutResponse, await payout(p.id));
});

test('funding boundary: session only, source chain missing, refund address rules, beneficiary required', async () => {
  const noBen = await draft({ source_chain: 'base' });
  expectError(await session.post(`/v1/payouts/${noBen.id}/funding_instructions`, {}), 409, 'conflict', 'beneficiary_required');
  const p = await fundable();
  expectError(await key.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base' }), 403, 'permission_error', 'role_denied');
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, {}),
    400,
    'invalid_request',
    'payout_source_chain_missing',
    'source_chain',
  );
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
      source_chain: 'base',
      refund_address: '0x52908400098527886E0F7030069857D2E4169Ee7',
    }),
    400,
    'invalid_request',
    'parameter_invalid',
    'refund_address',
  );
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base', refund_address: `0x${'0'.repeat(40)}` }),
    400,
    'invalid_request',
    'parameter_invalid',
    'refund_address',
  );
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base', refund_address: null }),
    400,
    'invalid_request',
    undefined,
    'refund_address',
  );
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
      funding_source: 'service_wallet',
      refund_address: '0x52908400098527886e0f7030069857d2e4169ee7',
    }),
    400,
    'invalid_request',
    'parameter_invalid',
    'refund_address',
  );
  expectError(await key.get(`/v1/payouts/${p.id}/funding_instructions`), 409, 'conflict', 'funding_instructions_unavailable');

  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
    source_chain: 'base',
    refund_address: '0x52908400098527886e0f7030069857d2e4169ee7',
  });
  expect(f.status).toBe(200);
  expect(f.body).toMatchObject({
    object: 'payout_funding_instructions',
    status: 'awaiting_funds',
    chain: 'base',
    asset: 'USDC',
    amount_is_estimate: true,
    amount: { amount: '1000500000', currency: 'USDC', decimals: 6 },
    buffer: { amount: '500000', currency: 'USDC', decimals: 6 },
    gross_amount: { amount: '1010606061', currency: 'USDC', decimals: 6 },
    fee: { amount: '10106061', currency: 'USDC', decimals: 6 },
    refund_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  });
  expect(f.body.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  conforms(fundingInstructionsResponse, f.body);
  expect(f.body.sandbox).toBeUndefined();
  expect(f.body.funding_source).toBeUndefined();
  expect(f.body.send_instructions.steps).toEqual([
    expect.objectContaining({ type: 'transfer', to_address: f.body.deposit_address, chain: 'base', amount: f.body.gross_amount }),
  ]);
  const g = await key.get(`/v1/payouts/${p.id}/funding_instructions`);
  expect(g.body.send_instructions).toBeUndefined();
  expect(g.body.deposit_address).toBe(f.body.deposit_address);
  const locked = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'polygon' });
  expectError(locked, 409, 'conflict', 'payout_source_chain_locked', 'source_chain');
  expect(locked.body.error.details).toEqual({ source_chain: 'base' });
  const again = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
    refund_address: '0xde709f2102306220921060314715629080e2fb77',
  });
  expect(again.status).toBe(200);
  expect(again.body.refund_address).toBe('0xde709f2102306220921060314715629080e2fb77');
  expect(await payout(p.id)).toMatchObject({ status: 'awaiting_funds', source_chain_chosen: true });
  const transfers = await call('GET', `/sim/providers/bridge/transfers?client_reference=${p.id}`);
  expect(transfers.body.data).toHaveLength(1);
});

test('journey: deposit on base, rail paid, recipient confirms within tolerance -> settled with a receipt and a recipient email', async () => {
  const p = await fundable({ recipient_email: 'ap@supplier.example', notify_recipient: true, source_chain: 'base' });
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {});
  expect(f.status).toBe(200);
  expectError(await key.get(`/v1/payouts/${p.id}/receipt`), 409, 'conflict', 'receipt_unavailable');
  const t = await sim('/chain/transfers', {
    chain: 'base',
    to_address: f.body.deposit_address,
    asset: 'USDC',
    amount: f.body.gross_amount.amount,
  });
  expect(t.status).toBe(201);
  await waitStatus(p.id, 'processing');
  expectError(await key.post(`/v1/payouts/${p.id}/cancel`, {}), 409, 'conflict', 'cancel_unavailable');
  expect((await sim(`/providers/fiat_rails/payments/${p.id}`, { state: 'paid' })).status).toBe(200);
  await waitStatus(p.id, 'paid');
  expect((await payout(p.id)).provider_paid_amount).toEqual(usd('100000'));
  await sim(`/providers/fiat_rails/payments/${p.id}`, { recipient_received_amount: '100050' });
  await waitStatus(p.id, 'settled');
  const done = await payout(p.id);
  expect(done).toMatchObject({ settled_amount: usd('100050'), invoice_shortfall_amount: null });
  expect(done.settled_at).not.toBeNull();
  const rc = await key.get(`/v1/payouts/${p.id}/receipt`);
  expect(rc.status).toBe(200);
  expect(rc.body).toMatchObject({
    payout_id: p.id,
    received_amount: { amount: f.body.gross_amount.amount, currency: 'USDC', decimals: 6 },
    sent_amount: usd('100000'),
    fee: null,
    gross: null,
    estimates: { authoritative: false, label: 'estimate' },
  });
  expect(rc.body.provider_reference).toMatch(/^[0-9]{15}$/);
  conforms(receiptResponse, rc.body);
  conforms(payoutResponse, done);
  expect(rc.body.beneficiary).toEqual(p.beneficiary);
  expect(rc.body.beneficiary).toMatchObject({ rail: 'ach', currency: 'USD', account_number_last4: '6789' });
  const att = await key.get(`/v1/payouts/${p.id}/attempts`);
  expect(att.body.data).toHaveLength(1);
  expect(att.body.data[0]).toMatchObject({ status: 'settled', source_chain: 'base', source_currency: 'USDC' });
  expect(att.body.data[0].id).toMatch(/^poa_/);
  expect(att.body.data[0].source_tx_hash).toBe(t.body.tx_hash);
  conforms(attemptResponse, att.body.data[0]);
  const types = (await key.get(`/v1/payouts/${p.id}/events`)).body.data.map((e: { type: string }) => e.type).reverse();
  expect(types).toEqual([
    'payout.created',
    'payout.beneficiary_added',
    'payout.configuration_committed',
    'payout.funded',
    'payout.awaiting_funds',
    'payout.funds_received',
    'payout.processing',
    'payout.paid',
    'payout.settled',
  ]);
  const mails = await eventually(async () => {
    const m = await call('GET', `/sim/emails?related_object_id=${p.id}`);
    return m.body.data.length ? m.body.data : null;
  }, 'recipient email');
  expect(mails[0]).toMatchObject({ to_address: 'ap@supplier.example', template: 'payout_settled' });
  expect(mails[0].body).toContain('account ending 6789');
  const inProgress = await key.get('/v1/payouts?status_group=done&limit=100');
  expect(inProgress.body.data.map((x: { id: string }) => x.id)).toContain(p.id);
  conforms(payoutListResponse, inProgress.body);
  expectError(await key.get('/v1/payouts?status_group=later'), 400, 'invalid_request', undefined, 'status_group');
});

test('a short deposit ends paid_with_shortfall: no receipt, no success email; needs_attention from the reconciliation signal', async () => {
  const p = await fundable({ recipient_email: 'ap@supplier.example', notify_recipient: true, source_chain: 'base' });
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {});
  await sim('/chain/transfers', { chain: 'base', to_address: f.body.deposit_address, asset: 'USDC', amount: '505000000' });
  await waitStatus(p.id, 'processing');
  await sim(`/providers/fiat_rails/payments/${p.id}`, { state: 'paid' });
  await waitStatus(p.id, 'paid');
  expect((await payout(p.id)).provider_paid_amount).toEqual(usd('49995'));
  await sim(`/providers/fiat_rails/payments/${p.id}`, { recipient_received_amount: '49995' });
  await waitStatus(p.id, 'paid_with_shortfall');
  expect((await payout(p.id)).invoice_shortfall_amount).toEqual(usd('50005'));
  expectError(await key.get(`/v1/payouts/${p.id}/receipt`), 409, 'conflict', 'receipt_unavailable');
  expect((await call('GET', `/sim/emails?related_object_id=${p.id}`)).body.data).toHaveLength(0);
  const needsYou = await key.get('/v1/payouts?status_group=needs_you&limit=100');
  expect(needsYou.body.data.map((x: { id: string }) => x.id)).toContain(p.id);
  expect((await sim('/providers/reconciliation', { payout_id: p.id, needs_attention: true })).status).toBe(202);
  await eventually(async () => (await payout(p.id)).needs_attention === true, 'needs_attention');
  expect((await payout(p.id)).status).toBe('paid_with_shortfall');
});

test('cancel is idempotent; a draft with nothing moving cancels; replace makes a new draft once', async () => {
  const p = await fundable({ source_chain: 'base' });
  const c1 = await key.post(`/v1/payouts/${p.id}/cancel`, {});
  expect(c1.body.status).toBe('cancelled');
  const c2 = await key.post(`/v1/payouts/${p.id}/cancel`, {});
  expect(c2.status).toBe(200);
  expect(c2.body.status).toBe('cancelled');
  const types = (await key.get(`/v1/payouts/${p.id}/events`)).body.data.map((e: { type: string }) => e.type);
  expect(types.filter((t: string) => t === 'payout.cancelled')).toHaveLength(1);
  const r = await key.post(`/v1/payouts/${p.id}/replace`, { note: 'second try' });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({
    status: 'draft',
    replaces: p.id,
    note: 'second try',
    beneficiary: p.beneficiary,
    invoice_amount: p.invoice_amount,
  });
  expect(r.body.capability_snapshot.sender_display).toBeDefined();
  expect((await payout(p.id)).replaced_by).toBe(r.body.id);
  const evs = (await key.get(`/v1/payouts/${r.body.id}/events`)).body.data.map((e: { type: string }) => e.type);
  // The replacement's own event, plus the old payout's `payout.replaced` that names it (related object).
  expect(evs.sort()).toEqual(['payout.created_as_replacement', 'payout.replaced']);
  const repEvents = (await key.get(`/v1/payouts/${r.body.id}/events`)).body.data;
  const rep = repEvents.find((e: { type: string }) => e.type === 'payout.created_as_replacement');
  expect(rep.data.object).toMatchObject({ id: r.body.id, replaces: p.id, status: 'draft', source_chain: 'base' });
  expect(repEvents.find((e: { type: string }) => e.type === 'payout.replaced').data.object).toMatchObject({
    id: p.id,
    replaced_by: r.body.id,
  });
  expect(rep.data.object.source_chain_chosen).toBeUndefined();
  expect((await key.get(`/v1/payouts/${p.id}/events`)).body.data.map((e: { type: string }) => e.type)).toContain('payout.replaced');
  expectError(await key.post(`/v1/payouts/${p.id}/replace`, {}), 409, 'conflict', 'payout_already_replaced');
  expectError(await key.post(`/v1/payouts/${r.body.id}/replace`, {}), 409, 'conflict', 'payout_not_replaceable');
});

test('mark_sent never advances status; wallet funding quote says marked_sent', async () => {
  const p = await fundable({ source_chain: 'base' });
  const q0 = await key.get(`/v1/payouts/${p.id}/wallet_funding_quote`);
  expect(q0.body).toMatchObject({ available: true, reason: null, funding_source: 'service_wallet', source_chain: 'base' });
  const m = await key.post(`/v1/payouts/${p.id}/mark_sent`, {});
  expect(m.body).toMatchObject({ status: 'draft', authoritative: false });
  expect(m.body.marked_sent_at).not.toBeNull();
  const q = await key.get(`/v1/payouts/${p.id}/wallet_funding_quote`);
  expect(q.body).toMatchObject({ available: false, reason: 'marked_sent' });
  expect(BigInt(q.body.cross_network_cost.amount)).toBe(
    BigInt(q.body.wallet_send_estimate.amount) - BigInt(q.body.required_delivery.amount),
  );
  const types = (await key.get(`/v1/payouts/${p.id}/events`)).body.data.map((e: { type: string }) => e.type);
  expect(types).toContain('payout.marked_sent');
});

test('service wallet funding: balance checked, prepared send holds cancel, close failure is 503, signing funds the payout', async () => {
  const p = await fundable();
  const w = (await db().query(`SELECT address, chain FROM wallets WHERE account_id = $1`, [accountId]))[0];
  const short = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { funding_source: 'service_wallet' });
  expectError(short, 409, 'conflict', 'wallet_balance_insufficient');
  await sim('/chain/transfers', { chain: w.chain, to_address: w.address, asset: 'USDC', amount: '5000000000' });
  const q = await key.get(`/v1/payouts/${p.id}/wallet_funding_quote`);
  conforms(walletFundingQuoteResponse, q.body);
  expect(q.body).toMatchObject({
    available: true,
    covers: true,
    shortfall: null,
    wallet_balance: { amount: '5000000000', currency: 'USDC', decimals: 6 },
  });
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { funding_source: 'service_wallet' });
  expect(f.status).toBe(200);
  expect(f.body).toMatchObject({
    funding_source: 'service_wallet',
    chain: 'base',
    wallet_send: { status: 'signable', amount: q.body.wallet_send_estimate },
  });
  expect(f.body.send_instructions.steps[0]).toMatchObject({ type: 'sign_wallet_send', to_address: f.body.deposit_address });
  conforms(fundingInstructionsResponse, f.body);
  const pending = await key.post(`/v1/payouts/${p.id}/cancel`, {});
  expectError(pending, 409, 'conflict', 'wallet_funding_pending');
  expect(pending.body.error.details.retry_after).toBeGreaterThan(1800);
  // The send expired more than 30 minutes ago: cancel must close it, and the provider fails to.
  await db().query(`UPDATE wallet_sends SET signable_until = now() - interval '31 minutes' WHERE payout_id = $1`, [p.id]);
  await sim('/providers/faults', { account_id: accountId, name: 'wallet.close_fails', value: 'true' });
  try {
    const failed = await key.post(`/v1/payouts/${p.id}/cancel`, {});
    expectError(failed, 503, 'temporarily_unavailable', 'wallet_funding_cancel_failed');
  } finally {
    await sim('/providers/faults', { account_id: accountId, name: 'wallet.close_fails', value: null });
  }
  expect((await payout(p.id)).status).toBe('awaiting_funds');

  const p2 = await fundable();
  const f2 = await session.post(`/v1/payouts/${p2.id}/funding_instructions`, { funding_source: 'service_wallet' });
  const signed = await sim(`/wallet/sends/${f2.body.wallet_send.id}/sign`, {});
  expect(signed.status).toBe(201);
  await waitStatus(p2.id, 'processing');
  expectError(await key.post(`/v1/payouts/${p2.id}/cancel`, {}), 409, 'conflict', 'cancel_unavailable');
  const attempts = (await key.get(`/v1/payouts/${p2.id}/attempts`)).body.data;
  expect(attempts[0]).toMatchObject({ funding_source: 'service_wallet', amount_received: f2.body.gross_amount });
});

test('sandbox faults are per account: a slow bridge for another merchant never slows this one', async () => {
  const other = await newAccount();
  expectError(
    await sim('/providers/faults', { name: 'bridge.create_delay_ms', value: '60000' }),
    400,
    'invalid_request',
    undefined,
    'account_id',
  );
  expectError(
    await sim('/providers/faults', { account_id: 'acct_missing', name: 'bridge.create_delay_ms', value: '60000' }),
    404,
    'not_found',
    'not_found',
    'account_id',
  );
  const set = await sim('/providers/faults', { account_id: other.account_id, name: 'bridge.create_delay_ms', value: '60000' });
  expect(set.body).toEqual({ object: 'sim.fault', account_id: other.account_id, name: 'bridge.create_delay_ms', value: '60000' });
  try {
    const p = await fundable({ source_chain: 'base' });
    const started = Date.now();
    const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {});
    expect(f.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    await sim('/providers/faults', { account_id: other.account_id, name: 'bridge.create_delay_ms', value: null });
  }
});

test('test-mode keys reach only the per-object event list', async () => {
  const creds = await newAccount();
  const t = client(creds.test_key);
  expectError(await t.get('/v1/payouts'), 503, 'temporarily_unavailable');
  expectError(await t.get('/v1/capabilities?product=payouts'), 503, 'temporarily_unavailable');
  expectError(await t.get('/v1/payouts/po_x/events'), 404, 'not_found');
});

test('after the money boundary: refund address and funding source are locked; a non-draft takes no beneficiary', async () => {
  const p = await fundable({ source_chain: 'base' });
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
    refund_address: '0x52908400098527886e0f7030069857d2e4169ee7',
  });
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, { funding_source: 'service_wallet' }),
    409,
    'conflict',
    'funding_source_locked',
    'funding_source',
  );
  await sim('/chain/transfers', { chain: 'base', to_address: f.body.deposit_address, asset: 'USDC', amount: f.body.gross_amount.amount });
  await waitStatus(p.id, 'processing');
  expectError(
    await session.post(`/v1/payouts/${p.id}/funding_instructions`, { refund_address: '0xde709f2102306220921060314715629080e2fb77' }),
    409,
    'conflict',
    'refund_address_locked',
    'refund_address',
  );
  const same = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {});
  expect(same.status).toBe(200);
  expect(same.body.status).toBe('processing');

  const d = await draft();
  await key.post(`/v1/payouts/${d.id}/cancel`, {});
  expectError(await key.post(`/v1/payouts/${d.id}/beneficiary`, achBeneficiary), 409, 'conflict', 'payout_not_editable');
  expectError(
    await session.post(`/v1/payouts/${d.id}/funding_instructions`, { source_chain: 'base' }),
    409,
    'conflict',
    'payout_not_fundable',
  );
});

test('limits (spec 8): corridor minimum and max_amount with details; list page size falls back to 25 and caps at 100', async () => {
  const low = await key.post('/v1/payouts', { invoice_amount: usd('99'), corridor_id: 'usd_ach' });
  expectError(low, 400, 'invalid_request', 'amount_invalid', 'invoice_amount');
  expect(low.body.error.details).toEqual({ minimum: usd('100') });
  const high = await key.post('/v1/payouts', { invoice_amount: usd('10000001'), corridor_id: 'usd_ach' });
  expectError(high, 400, 'invalid_request', 'amount_invalid', 'invoice_amount');
  expect(high.body.error.details).toEqual({ max_amount: usd('10000000') });
  expect((await key.post('/v1/payouts', { invoice_amount: usd('10000000'), corridor_id: 'usd_ach' })).status).toBe(201);
  expect((await key.post('/v1/payouts', { invoice_amount: usd('100'), corridor_id: 'usd_ach' })).status).toBe(201);
  const mxn = await key.post('/v1/payouts', { invoice_amount: { amount: '1999', currency: 'MXN', decimals: 2 }, corridor_id: 'mxn_spei' });
  expectError(mxn, 400, 'invalid_request', 'amount_invalid', 'invoice_amount');
  const pro = await key.post(`/v1/payouts/po_x/replace`, { invoice_amount: usd('1') });
  expectError(pro, 404, 'not_found');

  const creds = await newAccount();
  const k = client(creds.live_key);
  for (let i = 0; i < 27; i++)
    expect((await k.post('/v1/payouts', { invoice_amount: usd(String(1000 + i)), corridor_id: 'usd_ach' })).status).toBe(201);
  for (const limit of ['0', '-1', '1.5', 'abc']) {
    const r = await k.get(`/v1/payouts?limit=${limit}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(25);
    expect(r.body.has_more).toBe(true);
  }
  const all = await k.get('/v1/payouts?limit=500');
  expect(all.body.data).toHaveLength(27);
  expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
  const one = await k.get('/v1/payouts?limit=1');
  const two = await k.get(`/v1/payouts?limit=1&cursor=${one.body.next_cursor}`);
  expect(two.body.data[0].id).toBe(all.body.data[1].id);
  expectError(await k.get('/v1/payouts?cursor=nope'), 400, 'invalid_request', 'cursor_invalid', 'cursor');
});

test('status_group (spec 4.3): needs_you, in_progress, done; needs_attention joins needs_you whatever the status', async () => {
  const creds = await newAccount();
  const k = client(creds.live_key);
  const mk = async () => (await k.post('/v1/payouts', { invoice_amount: usd('5000'), corridor_id: 'usd_ach' })).body.id as string;
  const ids: Record<string, string> = {};
  for (const st of [
    'draft',
    'awaiting_funds',
    'funds_received',
    'processing',
    'paid',
    'paid_with_shortfall',
    'settled',
    'failed',
    'returned',
    'expired',
    'cancelled',
  ]) {
    ids[st] = await mk();
    // Read-model fixture: the list filter reads only the stored status and flag.
    await db().query('UPDATE payouts SET status = $2 WHERE id = $1', [ids[st], st]);
  }
  const flagged = await mk();
  await db().query(`UPDATE payouts SET status = 'settled', needs_attention = true WHERE id = $1`, [flagged]);
  const group = async (g: string) =>
    new Set((await k.get(`/v1/payouts?status_group=${g}&limit=100`)).body.data.map((x: { id: string }) => x.id));
  expect(await group('needs_you')).toEqual(new Set([ids.draft, ids.awaiting_funds, ids.paid_with_shortfall, flagged]));
  expect(await group('in_progress')).toEqual(new Set([ids.funds_received, ids.processing, ids.paid]));
  expect(await group('done')).toEqual(new Set([ids.settled, ids.failed, ids.returned, ids.expired, ids.cancelled, flagged]));
  expect((await k.get('/v1/payouts?limit=100')).body.data).toHaveLength(12);
  expectError(await k.get('/v1/payouts?status_group=needs_attention'), 400, 'invalid_request', undefined, 'status_group');
});

test('capability_snapshot (spec 2.6): eta and minimum live, version stamped, identity frozen at creation and re-frozen at replacement', async () => {
  const creds = await newAccount();
  const k = client(creds.live_key);
  await db().query(`UPDATE accounts SET display_name = 'Acme Trading Ltd', customer_type = 'business' WHERE id = $1`, [creds.account_id]);
  const p = (await k.post('/v1/payouts', { invoice_amount: usd('50000'), corridor_id: 'usd_wire' })).body;
  expect(p.capability_snapshot).toEqual({
    version: '2026-11-01',
    eta_seconds: 86400,
    minimum: usd('10000'),
    sender_display: 'Acme Trading Ltd',
    legal_entity_name: 'Acme Trading Ltd',
  });
  await db().query(`UPDATE accounts SET display_name = 'Acme Renamed' WHERE id = $1`, [creds.account_id]);
  expect((await k.get(`/v1/payouts/${p.id}`)).body.capability_snapshot).toMatchObject({
    sender_display: 'Acme Trading Ltd',
    legal_entity_name: 'Acme Trading Ltd',
  });
  // eta_seconds and minimum are resolved at read time from the corridor table, never stored.
  const cols = (await db().query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'payouts'`)).map(
    (r: { column_name: string }) => r.column_name,
  );
  expect(cols).not.toContain('eta_seconds');
  expect(cols).not.toContain('minimum_minor');
  await k.post(`/v1/payouts/${p.id}/cancel`, {});
  const r = (await k.post(`/v1/payouts/${p.id}/replace`, {})).body;
  expect(r.capability_snapshot).toMatchObject({ sender_display: 'Acme Renamed', legal_entity_name: 'Acme Renamed', version: '2026-11-01' });
  await db().query(`UPDATE accounts SET display_name = '', customer_type = 'individual' WHERE id = $1`, [creds.account_id]);
  const ind = (await k.post('/v1/payouts', { invoice_amount: usd('5000'), corridor_id: 'usd_ach' })).body;
  expect(ind).toMatchObject({ payer_type: 'individual', capability_snapshot: { sender_display: 'unknown', legal_entity_name: null } });
  const mismatch = await k.post('/v1/payouts', { invoice_amount: usd('5000'), corridor_id: 'usd_ach', payer_type: 'business' });
  expectError(mismatch, 422, 'invalid_request', 'payer_type_mismatch', 'payer_type');
  expect(mismatch.body.error.details).toEqual({ expected: 'individual', received: 'business' });
});

test('eligibility is re-checked at create and at the money boundary: a restricted account gets 409 capability_unavailable', async () => {
  const creds = await newAccount();
  const k = client(creds.live_key);
  const s2 = client(creds.session_token);
  const p = (await k.post('/v1/payouts', { invoice_amount: usd('5000'), corridor_id: 'usd_ach', source_chain: 'base' })).body;
  await k.post(`/v1/payouts/${p.id}/beneficiary`, achBeneficiary);
  await db().query(`UPDATE accounts SET access_state = 'restricted' WHERE id = $1`, [creds.account_id]);
  try {
    const caps = await k.get('/v1/payouts/eligibility');
    expect(caps.body.corridors[0]).toMatchObject({ corridor_id: 'usd_ach', executable: false, blocked_reason: 'account_restricted' });
    expect(caps.body).toEqual((await k.get('/v1/capabilities?product=payouts')).body);
    const f = await s2.post(`/v1/payouts/${p.id}/funding_instructions`, {});
    expectError(f, 409, 'capability_unavailable', 'capability_unavailable');
    expect(f.body.error.details).toEqual({ corridor_id: 'usd_ach', blocked_reason: 'account_restricted' });
    expectError(
      await k.post('/v1/payouts', { invoice_amount: usd('5000'), corridor_id: 'usd_ach' }),
      409,
      'capability_unavailable',
      'capability_unavailable',
    );
    expect((await k.get(`/v1/payouts/${p.id}`)).body.status).toBe('draft');
  } finally {
    await db().query(`UPDATE accounts SET access_state = 'active' WHERE id = $1`, [creds.account_id]);
  }
});

test('overpaid funding: USDC above the quoted gross goes back to the refund address; the receipt shows it returned', async () => {
  const refund = '0xde709f2102306220921060314715629080e2fb77';
  const p = await fundable({ source_chain: 'base' });
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { refund_address: refund });
  const extra = 7_000_000n;
  await sim('/chain/transfers', {
    chain: 'base',
    to_address: f.body.deposit_address,
    asset: 'USDC',
    amount: (BigInt(f.body.gross_amount.amount) + extra).toString(),
  });
  await waitStatus(p.id, 'processing');
  const att = await eventually(async () => {
    const a = (await key.get(`/v1/payouts/${p.id}/attempts`)).body.data[0];
    return a.amount_returned.amount === extra.toString() ? a : null;
  }, 'surplus returned');
  expect(att).toMatchObject({
    surplus: { amount: extra.toString(), currency: 'USDC', decimals: 6 },
    amount_received: { amount: (BigInt(f.body.gross_amount.amount) + extra).toString() },
  });
  conforms(attemptResponse, att);
  const back = await db().query(
    `SELECT amount_minor::text AS a FROM sandbox_chain_transfers WHERE chain = 'base' AND lower(to_address) = $1`,
    [refund],
  );
  expect(back.map((r: { a: string }) => r.a)).toEqual([extra.toString()]);
  expect(await payout(p.id)).toMatchObject({ held_amount: null, failure_reason: null });
  await sim(`/providers/fiat_rails/payments/${p.id}`, { state: 'paid' });
  await waitStatus(p.id, 'paid');
  expect((await payout(p.id)).provider_paid_amount).toEqual(usd('100000'));
  await sim(`/providers/fiat_rails/payments/${p.id}`, { recipient_received_amount: '100000' });
  await waitStatus(p.id, 'settled');
  const rc = await key.get(`/v1/payouts/${p.id}/receipt`);
  expect(rc.body).toMatchObject({
    returned_amount: { amount: extra.toString(), currency: 'USDC', decimals: 6 },
    sent_amount: usd('100000'),
    settled_amount: usd('100000'),
  });
  conforms(receiptResponse, rc.body);
});
