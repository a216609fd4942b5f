/**
 * Wallet transactions over HTTP (spec 4.5, 2.5; issue 14): the active wallet's USDC transfers in
 * and out from the sandbox chain (fed by `/sim/chain/transfers`), newest first with confirmations
 * and a cursor, one by hash, another wallet's transfer 404, a key and a session both read them,
 * and bad cursors refused.
 */
import type Joi from 'joi';
import crypto from 'node:crypto';
import { call, client, connectDb, expectError, expectOk, newAccount } from '../helpers/api';
import { listEnvelope } from '../../views/schema';
import { walletTransactionResponse } from '../../views/wallet';

beforeAll(async () => {
  await connectDb();
});

function conforms(schema: Joi.Schema, body: unknown): void {
  const { error } = schema.validate(body, { allowUnknown: false, presence: 'optional' });
  if (error) throw new Error(`response does not match its schema: ${error.message}\n${JSON.stringify(body)}`);
}
const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';

test("incoming and outgoing transfers, newest first, with confirmations; paging; one by hash; not another wallet's", async () => {
  const acct = await newAccount();
  const key = client(acct.live_key);
  const wallet = expectOk(await key.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await key.get('/v1/wallet/balances')).balances[0].asset as string;
  const send = (body: Record<string, unknown>) =>
    call('POST', '/sim/chain/transfers', { chain: wallet.chain, asset, ...body }, { idem: null });
  const h1 = hash();
  const h2 = hash();
  const h3 = hash();
  expectOk(await send({ to_address: wallet.address.toLowerCase(), amount: '2500000', from_address: OTHER, tx_hash: h1 }), 201);
  expectOk(await send({ to_address: OTHER, amount: '1000000', from_address: wallet.address, tx_hash: h2 }), 201);
  expectOk(await send({ to_address: OTHER, amount: '7', tx_hash: h3 }), 201); // someone else's transfer

  const list = expectOk(await key.get('/v1/wallet/transactions'));
  conforms(listEnvelope(walletTransactionResponse), list);
  expect(list.data.map((t: { hash: string }) => t.hash)).toEqual([h2, h1]);
  expect(list.data[0]).toMatchObject({
    direction: 'outgoing',
    amount: { amount: '1000000', currency: asset, decimals: 6 },
    to_address: OTHER,
    wallet_id: wallet.id,
    status: 'confirmed',
  });
  expect(list.data[1]).toMatchObject({ direction: 'incoming', amount: { amount: '2500000' }, from_address: OTHER });
  expect(list.data[1].confirmations).toBeGreaterThan(list.data[0].confirmations);
  expect(list.data[0].confirmations).toBeGreaterThanOrEqual(2); // h3 was mined after it

  const p1 = expectOk(await key.get('/v1/wallet/transactions?limit=1'));
  expect(p1).toMatchObject({ has_more: true, data: [{ hash: h2 }] });
  const p2 = expectOk(await key.get(`/v1/wallet/transactions?limit=1&cursor=${p1.next_cursor}`));
  expect(p2).toMatchObject({ has_more: false, next_cursor: null, data: [{ hash: h1 }] });
  expectError(await key.get('/v1/wallet/transactions?cursor=nope'), 400, 'invalid_request', 'cursor_invalid', 'cursor');

  const one = expectOk(await key.get(`/v1/wallet/transactions/${h1.toUpperCase().replace('0X', '0x')}`));
  conforms(walletTransactionResponse, one);
  expect(one).toMatchObject({ hash: h1, direction: 'incoming' });
  expect(expectOk(await client(acct.session_token).get(`/v1/wallet/transactions/${h2}`)).direction).toBe('outgoing');
  expectError(await key.get(`/v1/wallet/transactions/${h3}`), 404, 'not_found', 'not_found', 'hash');
  expectError(await key.get(`/v1/wallet/transactions/${hash()}`), 404, 'not_found');
  // Another account's wallet never sees them.
  const other = client((await newAccount()).live_key);
  expect(expectOk(await other.get('/v1/wallet/transactions')).data).toEqual([]);
  expectError(await other.get(`/v1/wallet/transactions/${h1}`), 404, 'not_found');
});
