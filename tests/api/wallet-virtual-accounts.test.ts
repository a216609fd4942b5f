/**
 * Virtual accounts funding the wallet over HTTP (spec 4.5, 2.5, 4.6; issue 14): a EUR account with
 * SEPA instructions and a USD one with ACH and wire; a bank credit converted at the reference rate
 * lands in the wallet as USDC and in the history; deactivated, a credit is returned to its sender
 * (and the history says so); reactivated; a currency the account already collects through a
 * bank-rail payment link is refused (409) and shows blocked in `capabilities?product=wallet_bank`;
 * `purpose` filters the list; reach and the flag.
 */
import type Joi from 'joi';
import { client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';
import { activeBankLink, bankCredit, session } from '../helpers/bank';
import { setSwitch } from '../../lib/switches';
import { listEnvelope } from '../../views/schema';
import { virtualAccountCreditResponse, virtualAccountResponse } from '../../views/wallet-virtual-accounts';

beforeAll(async () => {
  await connectDb();
});

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}

test('a EUR account: SEPA credit converted into the wallet; deactivated credits are returned; reactivated; history', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const va = expectOk(await s.post('/v1/wallet/virtual_accounts', { currency: 'EUR' }), 201);
  conforms(virtualAccountResponse, va);
  expect(va).toMatchObject({ object: 'virtual_account', purpose: 'wallet_funding', status: 'active', currency: 'EUR', rails: ['sepa'] });
  expect(va.id).toMatch(/^va_/);
  const bdi = va.bank_deposit_instructions[0];
  expect(bdi).toMatchObject({ rail: 'sepa', currency: 'EUR' });
  expect(bdi.iban).toBeTruthy();
  expectError(await s.post('/v1/wallet/virtual_accounts', { currency: 'EUR' }), 409, 'conflict', 'virtual_account_already_exists');

  const before = BigInt(expectOk(await s.get('/v1/wallet/balances')).balances[0].amount.amount);
  expectOk(await bankCredit(bdi, '10000'), 201); // EUR 100.00 at 1.08 USDC per EUR
  const h1 = await eventually(async () => {
    const h = expectOk(await s.get(`/v1/wallet/virtual_accounts/${va.id}/history`));
    return h.data[0]?.status === 'converted' ? h : null;
  }, 'credit converted');
  conforms(listEnvelope(virtualAccountCreditResponse), h1);
  expect(h1.data[0]).toMatchObject({
    amount: { amount: '10000', currency: 'EUR', decimals: 2 },
    usdc_amount: { amount: '108000000', currency: 'USDC', decimals: 6 },
    rate_usdc_per_major: '1080000',
  });
  expect(BigInt(expectOk(await s.get('/v1/wallet/balances')).balances[0].amount.amount) - before).toBe(108000000n);

  const off = expectOk(await s.post(`/v1/wallet/virtual_accounts/${va.id}/deactivate`));
  expect(off).toMatchObject({ status: 'inactive' });
  expect(off.deactivated_at).not.toBeNull();
  expectError(await s.post(`/v1/wallet/virtual_accounts/${va.id}/deactivate`), 409, 'conflict', 'virtual_account_state_changed');
  expectOk(await bankCredit(bdi, '5000'), 201);
  const h2 = await eventually(async () => {
    const h = expectOk(await s.get(`/v1/wallet/virtual_accounts/${va.id}/history`));
    return h.data.length === 2 && h.data[0].status === 'returned' ? h : null;
  }, 'credit returned');
  expect(h2.data[0]).toMatchObject({ amount: { amount: '5000' }, usdc_amount: null, return_reason: 'R16 Account frozen' });
  expect(expectOk(await s.post(`/v1/wallet/virtual_accounts/${va.id}/reactivate`))).toMatchObject({
    status: 'active',
    deactivated_at: null,
  });
  expectOk(await bankCredit(bdi, '100'), 201);
  await eventually(
    async () =>
      expectOk(await s.get(`/v1/wallet/virtual_accounts/${va.id}/history?limit=1`)).data[0]?.status === 'converted' ? true : null,
    'converted after reactivation',
  );
  expect(expectOk(await s.get(`/v1/wallet/virtual_accounts/${va.id}`)).id).toBe(va.id);
});

test('USD: ACH and wire instructions; a currency collected by a bank-rail link is refused and blocked in capabilities; purpose filter', async () => {
  const { creds, token } = await activeBankLink('sepa', '2500');
  const s = client(creds.session_token);
  const usd = expectOk(await s.post('/v1/wallet/virtual_accounts', { currency: 'USD' }), 201);
  expect(usd.rails).toEqual(['ach', 'wire']);
  expect(usd.bank_deposit_instructions.map((i: { rail: string }) => i.rail)).toEqual(['ach', 'wire']);
  // The link collects EUR by SEPA once a credit arrives: the account's EUR collection account.
  const pay = expectOk(await session(token, '/payments', { rail: 'sepa' }), 201);
  expectOk(await bankCredit(pay.bank_deposit_instructions, '2500'), 201);
  expectError(await s.post('/v1/wallet/virtual_accounts', { currency: 'EUR' }), 409, 'conflict', 'collection_account_uses_currency');
  const caps = expectOk(await s.get('/v1/capabilities?product=wallet_bank'));
  expect(caps.corridors.find((c: { currency: string }) => c.currency === 'EUR')).toMatchObject({
    corridor_id: 'wallet_bank_virtual_account',
    executable: false,
    blocked_reason: 'collection_account_uses_currency',
    action: 'none',
  });
  expect(caps.corridors.find((c: { currency: string }) => c.currency === 'GBP')).toMatchObject({
    executable: true,
    action: 'create_virtual_account',
  });
  const all = expectOk(await s.get('/v1/wallet/virtual_accounts'));
  expect(all.data.map((v: { purpose: string; currency: string }) => `${v.purpose}:${v.currency}`).sort()).toEqual([
    'collection:EUR',
    'wallet_funding:USD',
  ]);
  const funding = expectOk(await s.get('/v1/wallet/virtual_accounts?purpose=wallet_funding'));
  expect(funding.data.map((v: { id: string }) => v.id)).toEqual([usd.id]);
  const collection = all.data.find((v: { purpose: string }) => v.purpose === 'collection');
  expectError(await s.post(`/v1/wallet/virtual_accounts/${collection.id}/deactivate`), 409, 'conflict', 'virtual_account_not_managed');
});

test('reach, validation, the flag closed for a cohort', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  expectError(await client(acct.live_key).get('/v1/wallet/virtual_accounts'), 403, 'permission_error');
  expectError(await s.post('/v1/wallet/virtual_accounts', { currency: 'JPY' }), 400, 'invalid_request', undefined, 'currency');
  expectError(await s.get('/v1/wallet/virtual_accounts/va_nope'), 404, 'not_found');
  const other = client((await newAccount()).session_token);
  const mine = expectOk(await s.post('/v1/wallet/virtual_accounts', { currency: 'GBP' }), 201);
  expectError(await other.get(`/v1/wallet/virtual_accounts/${mine.id}`), 404, 'not_found');
  await setSwitch('wallet.virtual_accounts', false, acct.account_id);
  await eventually(async () => ((await s.get('/v1/wallet/virtual_accounts')).status === 409 ? true : null), 'flag closed', 10000);
  expectError(await s.get('/v1/wallet/virtual_accounts'), 409, 'capability_unavailable');
  const caps = expectOk(await s.get('/v1/capabilities?product=wallet_bank'));
  expect(caps.corridors.every((c: { blocked_reason?: string }) => c.blocked_reason === 'not_enabled')).toBe(true);
});
