/**
 * Off-ramp to a bank over HTTP (spec 4.5, 2.5, 3; issue 14): external accounts read back masked;
 * a quote; an intent whose transit deposit the sandbox holder signs (memo on SEPA) and that ends
 * `payment_processed` with the settled EUR amount, paid once; a failing bank account refunds the
 * USDC to the wallet; cancel before anything is broadcast, refused once the transfer is broadcast
 * (pending) and then followed once it confirms; the request rules, reach and the flag.
 */
import type Joi from 'joi';
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { BENEFICIARY } from '../helpers/bank';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { listEnvelope } from '../../views/schema';
import { externalAccountResponse, offrampIntentResponse, offrampQuoteResponse } from '../../views/wallet-offramp';

beforeAll(async () => {
  await connectDb();
});

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';

async function holder(funds: string) {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, to_address: wallet.address, amount: funds, from_address: OTHER },
      { idem: null },
    ),
    201,
  );
  const account = async (rail: string, extra: Record<string, string> = {}) =>
    expectOk(
      await s.post('/v1/wallet/external_accounts', {
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        ...BENEFICIARY[rail],
        ...extra,
      }),
      201,
    );
  const usdc = (amount: string) => ({ amount, currency: asset, decimals: 6 });
  const balance = async () => BigInt(expectOk(await s.get('/v1/wallet/balances')).balances[0].amount.amount);
  const reach = (id: string, status: string) =>
    eventually(
      async () => {
        const r = expectOk(await s.get(`/v1/wallet/offramp_intents/${id}`));
        return r.status === status ? r : null;
      },
      `off-ramp ${status}`,
      20000,
    );
  return { acct, s, wallet, asset, account, usdc, balance, reach };
}
const sign = async (tx: Record<string, unknown>, status?: string) =>
  expectOk(await call('POST', '/sim/wallet/sign', { ...tx, ...(status ? { status } : {}) }, { idem: null }), 201).tx_hash as string;

test('EUR by SEPA: quote, intent, the holder signs the transit deposit, the bank is paid once: payment_processed', async () => {
  const h = await holder('200000000');
  const ba = await h.account('sepa');
  conforms(externalAccountResponse, ba);
  expect(ba).toMatchObject({
    object: 'external_account',
    rail: 'sepa',
    currency: 'EUR',
    bank_account: { iban_last4: '3000', beneficiary_owner_type: 'individual' },
  });
  expect(JSON.stringify(ba)).not.toContain('DE89370400440532013000');
  conforms(listEnvelope(externalAccountResponse), expectOk(await h.s.get('/v1/wallet/external_accounts')));

  const terms = {
    destination_currency: 'EUR',
    destination_payment_rail: 'sepa',
    amount: h.usdc('100000000'),
    developer_fee_percent: '0.5',
  };
  const q = expectOk(await h.s.post('/v1/wallet/offramp_quotes', terms));
  conforms(offrampQuoteResponse, q);
  // 100 USDC: 1% service fee, 0.5% developer fee, 98.5 USDC at 1.08 USDC per EUR = 91.20 EUR (floored).
  expect(q).toMatchObject({
    service_fee: h.usdc('1000000'),
    developer_fee: h.usdc('500000'),
    net_amount: h.usdc('98500000'),
    destination_amount: { amount: '9120', currency: 'EUR', decimals: 2 },
    developer_fee_percent: '0.50',
  });

  const ofr = expectOk(await h.s.post('/v1/wallet/offramp_intents', { external_account_id: ba.id, ...terms }), 201);
  conforms(offrampIntentResponse, ofr);
  expect(ofr).not.toHaveProperty('settled_amount'); // spec 2.5: absent until payment_processed
  expect(ofr).toMatchObject({
    status: 'awaiting_funds',
    destination_amount: { amount: '9120' },
    transit_deposit: { chain: h.wallet.chain, amount: h.usdc('100000000'), memo: ofr.reference },
  });
  expect(ofr.id).toMatch(/^ofr_/);
  const tx = ofr.transit_deposit.unsigned_transaction;
  expect(tx.from).toBe(h.wallet.address);
  expect(tx.data.endsWith(Buffer.from(ofr.reference).toString('hex'))).toBe(true);
  await sign(tx);
  const done = await h.reach(ofr.id, 'payment_processed');
  expect(done).toMatchObject({
    settled_amount: { amount: '9120', currency: 'EUR', decimals: 2 },
    received_amount: h.usdc('100000000'),
    failure_reason: null,
  });
  expect(done.transit_deposit.unsigned_transaction).toBeNull();
  expect(await h.balance()).toBe(100000000n);
  const payments = await db().query(
    'SELECT count(*)::int AS n, min(amount_minor) AS amount FROM sandbox_rail_payments WHERE client_reference = $1',
    [ofr.id],
  );
  expect(payments[0]).toEqual({ n: 1, amount: '9120' });
  const types = (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [ofr.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(types).toEqual([
    'offramp_intent.created',
    'offramp_intent.funds_received',
    'offramp_intent.payment_submitted',
    'offramp_intent.payment_processed',
  ]);
  expectError(await h.s.post(`/v1/wallet/offramp_intents/${ofr.id}/cancel`), 409, 'conflict', 'offramp_intent_state_changed');
});

test('a bank account that does not exist: the payment fails and the USDC comes back to the wallet (refunded)', async () => {
  const h = await holder('50000000');
  const ba = await h.account('ach', { account_number: '000111111116' });
  const ofr = expectOk(
    await h.s.post('/v1/wallet/offramp_intents', {
      external_account_id: ba.id,
      destination_currency: 'USD',
      destination_payment_rail: 'ach',
      amount: h.usdc('20000000'),
    }),
    201,
  );
  expect(ofr.transit_deposit.memo).toBeNull();
  await sign(ofr.transit_deposit.unsigned_transaction);
  const r = await h.reach(ofr.id, 'refunded');
  expect(r).toMatchObject({ failure_reason: 'payment_failed', return_reason: 'no_account' });
  expect(r).not.toHaveProperty('settled_amount');
  expect(r.refund_tx_hash).toMatch(/^0x/);
  expect(await h.balance()).toBe(50000000n);
});

test('cancel: before anything is broadcast; refused once the transit deposit is broadcast; the confirmed deposit is then paid', async () => {
  const h = await holder('50000000');
  const ba = await h.account('faster_payments');
  const create = async () =>
    expectOk(
      await h.s.post('/v1/wallet/offramp_intents', {
        external_account_id: ba.id,
        destination_currency: 'GBP',
        destination_payment_rail: 'faster_payments',
        amount: h.usdc('10000000'),
      }),
      201,
    );
  const first = await create();
  const canceled = expectOk(await h.s.post(`/v1/wallet/offramp_intents/${first.id}/cancel`));
  expect(canceled).toMatchObject({ status: 'canceled', transit_deposit: { unsigned_transaction: null } });
  expectError(await h.s.post(`/v1/wallet/offramp_intents/${first.id}/cancel`), 409, 'conflict', 'offramp_intent_state_changed');

  const second = await create();
  const pending = await sign(second.transit_deposit.unsigned_transaction, 'pending');
  expectError(await h.s.post(`/v1/wallet/offramp_intents/${second.id}/cancel`), 409, 'conflict', 'cancel_unavailable');
  expect(expectOk(await h.s.get(`/v1/wallet/offramp_intents/${second.id}`)).status).toBe('awaiting_funds');
  expectOk(await call('POST', `/sim/chain/transfers/${pending}/confirm`, {}, { idem: null }));
  expect((await h.reach(second.id, 'payment_processed')).source_tx_hash).toBe(pending);
  expect(expectOk(await h.s.get('/v1/wallet/offramp_intents?status=canceled')).data.map((x: { id: string }) => x.id)).toEqual([first.id]);
});

test('request rules, reach and the flag', async () => {
  const h = await holder('5000000');
  const ba = await h.account('sepa');
  const create = (b: Record<string, unknown>) =>
    h.s.post('/v1/wallet/offramp_intents', {
      external_account_id: ba.id,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: h.usdc('2000000'),
      ...b,
    });
  expectError(await create({ destination_payment_rail: 'ach' }), 400, 'invalid_request', 'parameter_invalid', 'destination_payment_rail');
  expectError(await create({ destination_currency: 'USD' }), 400, 'invalid_request', 'parameter_invalid', 'destination_payment_rail');
  expectError(
    await create({ amount: { amount: '200', currency: 'USD', decimals: 2 } }),
    400,
    'invalid_request',
    'parameter_invalid',
    'amount.currency',
  );
  expectError(await create({ amount: h.usdc('999999') }), 400, 'invalid_request', 'amount_invalid', 'amount');
  expectError(await create({ amount: h.usdc('6000000') }), 400, 'invalid_request', 'balance_insufficient', 'amount');
  expectError(await create({ developer_fee_percent: '7' }), 400, 'invalid_request', 'parameter_invalid', 'developer_fee_percent');
  expectError(await create({ external_account_id: 'ba_nope' }), 404, 'not_found', 'not_found', 'external_account_id');
  expectError(await client(h.acct.live_key).get('/v1/wallet/offramp_intents'), 403, 'permission_error');
  expectError(await h.s.get('/v1/wallet/offramp_intents/ofr_nope'), 404, 'not_found');
  const other = await holder('1000000');
  expectError(
    await other.s.post('/v1/wallet/offramp_intents', {
      external_account_id: ba.id,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: other.usdc('1000000'),
    }),
    404,
    'not_found',
  );
  await setSwitch('wallet.offramp', false, h.acct.account_id);
  await eventually(async () => ((await h.s.get('/v1/wallet/external_accounts')).status === 409 ? true : null), 'flag closed', 10000);
  expectError(await create({}), 409, 'capability_unavailable');
});
