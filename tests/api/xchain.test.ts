/**
 * The cross-network and transfer rails over HTTP on a private stack running the simulated mainnet
 * (`NETWORK=mainnet`; spec 1, 2.1, 2.4, 4.1, 4.6, 7; issue 12): capabilities of `crypto_xchain`
 * with its flag closed and open, every named error of the payer payment body on both rails
 * (`rail_not_allowed`, `network_not_supported`, `stablecoin`, `refund_address`,
 * `payment_in_progress`, `source_chain`, `source_asset`, `source_address`), one open cross-network
 * payment per link, and the deposit instructions (`amount_out`, `bridge_fee`, `amount_is_estimate`,
 * `quote_expires_at`, `gross_up`; `token_address` on the transfer rail).
 */
import { setSwitch } from '../../lib/switches';
import { payerPaymentResponse, paymentResponse } from '../../views/payment';
import { payerSessionResponse } from '../../views/payer-session';
import { call, client, connectDb, expectError, newAccount } from '../helpers/api';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('xchain-api', { NETWORK: 'mainnet' });
// This process provisions accounts (and their service wallets) on the same network as the product.
process.env.NETWORK = 'mainnet';

let merchant: ReturnType<typeof client>;
let accountId: string;
const REFUND = '0x2222222222222222222222222222222222222222';

beforeAll(async () => {
  await connectDb();
  const acct = await newAccount();
  accountId = acct.account_id;
  merchant = client(acct.live_key);
});

/** Opens (or closes) the launch flag for this file's merchant and waits past the 2 s switch cache. */
async function xchainFlag(open: boolean): Promise<void> {
  await setSwitch('payment_links.crypto_xchain', open, accountId);
  await new Promise((r) => setTimeout(r, 2200));
}

async function activeLink(amount = '10000') {
  const l = await merchant.post('/v1/payment_links', {
    amount: { amount, currency: 'USD', decimals: 2 },
    title: 'Cross-network',
    accepted_rail_kinds: ['crypto'],
  });
  expect(l.status).toBe(201);
  const a = await merchant.post(`/v1/payment_links/${l.body.id}/activate`, { attestation_accepted: true });
  expect(a.status).toBe(200);
  return { link: a.body, token: String(a.body.url).split('/pay/')[1] };
}
const pay = (token: string, body: Record<string, unknown>) => call('POST', `/v1/payment_sessions/${token}/payments`, body, { idem: null });
const corridor = async () =>
  (await merchant.get('/v1/capabilities?product=payment_links')).body.corridors.find(
    (c: { corridor_id: string }) => c.corridor_id === 'crypto_xchain',
  );

test('capabilities: crypto_xchain is not_enabled on mainnet while its flag is closed, executable with five source chains once open', async () => {
  await xchainFlag(false);
  expect(await corridor()).toMatchObject({ executable: false, blocked_reason: 'not_enabled', source_chains: [] });
  const { token } = await activeLink();
  expectError(
    await pay(token, { rail: 'crypto_xchain', network: 'base', refund_address: REFUND }),
    400,
    'invalid_request',
    'rail_not_allowed',
    'rail',
  );
  await xchainFlag(true);
  const c = await corridor();
  expect(c).toMatchObject({ executable: true, source_chains: ['base', 'ethereum', 'polygon', 'arbitrum', 'optimism'] });
  expect(c.blocked_reason).toBeUndefined();
  expect((await call('GET', `/v1/payment_sessions/${token}`)).body.rails).toEqual(['crypto_native', 'crypto_xchain']);
});

describe('with the flag open', () => {
  beforeAll(async () => {
    await xchainFlag(true);
  });

  test('crypto_xchain body errors: network, stablecoin, refund_address', async () => {
    const { token } = await activeLink();
    const ok = { rail: 'crypto_xchain', network: 'base', refund_address: REFUND };
    expectError(
      await pay(token, { rail: 'crypto_xchain', refund_address: REFUND }),
      400,
      'invalid_request',
      'parameter_missing',
      'network',
    );
    expectError(await pay(token, { ...ok, network: 'tempo' }), 409, 'conflict', 'network_not_supported', 'network');
    expectError(await pay(token, { ...ok, network: 'solana' }), 409, 'conflict', 'network_not_supported', 'network');
    expectError(await pay(token, { ...ok, network: 'bsc' }), 409, 'conflict', 'network_not_supported', 'network');
    expectError(await pay(token, { ...ok, stablecoin: 'USDT' }), 400, 'invalid_request', 'invalid_request', 'stablecoin');
    expectError(await pay(token, { ...ok, stablecoin: 'USDC.e' }), 400, 'invalid_request', 'invalid_request', 'stablecoin');
    expectError(
      await pay(token, { rail: 'crypto_xchain', network: 'base' }),
      400,
      'invalid_request',
      'parameter_missing',
      'refund_address',
    );
    expectError(await pay(token, { ...ok, refund_address: '0x123' }), 400, 'invalid_request', 'invalid_request', 'refund_address');
    expectError(await pay(token, { ...ok, refund_address: `${REFUND} ` }), 400, 'invalid_request', 'invalid_request', 'refund_address');
    expectError(
      await pay(token, { ...ok, refund_address: `0x${'0'.repeat(40)}` }),
      400,
      'invalid_request',
      'invalid_request',
      'refund_address',
    );
    // The merchant's settlement address (its service wallet) and a service deposit address are refused.
    const wallets = await merchant.get('/v1/wallet/wallets');
    expect(wallets.status).toBe(200);
    const walletAddress = String(wallets.body.data[0].address);
    expectError(
      await pay(token, { ...ok, refund_address: walletAddress.toLowerCase() }),
      400,
      'invalid_request',
      'invalid_request',
      'refund_address',
    );
    const other = await activeLink();
    const native = await pay(other.token, { rail: 'crypto_native' });
    expect(native.status).toBe(201);
    expectError(
      await pay(token, { ...ok, refund_address: native.body.deposit_instructions.address }),
      400,
      'invalid_request',
      'invalid_request',
      'refund_address',
    );
  });

  test('one open cross-network payment per link: the same network and refund address return it, anything else is payment_in_progress', async () => {
    const { token } = await activeLink('12345');
    const p = await pay(token, {
      rail: 'crypto_xchain',
      network: 'ethereum',
      stablecoin: 'USDC',
      refund_address: REFUND,
      payer_email: 'payer@example.com',
    });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({
      payment_rail: 'crypto_xchain',
      status: 'awaiting',
      network: 'ethereum',
      stablecoin: 'USDC',
      watcher_state: 'address_issued',
      watcher_reason: null,
      refund_address: REFUND,
    });
    const di = p.body.deposit_instructions;
    expect(di).toMatchObject({
      chain: 'ethereum',
      chain_id: 1,
      asset: 'USDC',
      token_address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      amount: { amount: '126184500', currency: 'USDC', decimals: 6 },
      amount_out: { amount: '124684500', currency: 'USDC.e', decimals: 6 },
      bridge_fee: { amount: '1500000', currency: 'USDC', decimals: 6 },
      amount_is_estimate: true,
      gross_up: true,
      provider: 'bridge',
    });
    expect(di.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Date.parse(di.quote_expires_at)).toBeGreaterThan(Date.now());
    const again = await pay(token, {
      rail: 'crypto_xchain',
      network: 'ethereum',
      refund_address: REFUND.toUpperCase().replace('0X', '0x'),
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(p.body.id);
    const conflict = await pay(token, { rail: 'crypto_xchain', network: 'base', refund_address: REFUND });
    expectError(conflict, 409, 'conflict', 'payment_in_progress');
    expect(conflict.body.error.details).toEqual({ payment_id: p.body.id });
    expectError(
      await pay(token, { rail: 'crypto_xchain', network: 'ethereum', refund_address: '0x3333333333333333333333333333333333333333' }),
      409,
      'conflict',
      'payment_in_progress',
    );
    const s = await call('GET', `/v1/payment_sessions/${token}`);
    expect(s.body).toMatchObject({ watcher_state: 'address_issued', watcher_reason: null, network: 'ethereum', stablecoin: 'USDC' });
    expect(s.body.xchain_deposit_instructions).toEqual([di]);
    const merchantView = await merchant.get(`/v1/payments/${p.body.id}`);
    expect(merchantView.body).toMatchObject({
      payment_rail: 'crypto_xchain',
      source_chain: 'ethereum',
      source_asset: 'USDC',
      watcher_state: 'address_issued',
    });
    // The answers conform to the response schemas the document publishes.
    expect(payerPaymentResponse.validate(p.body).error).toBeUndefined();
    expect(payerSessionResponse.validate(s.body).error).toBeUndefined();
    expect(paymentResponse.validate(merchantView.body).error).toBeUndefined();
  });
});

test('crypto_transfer body errors and deposit instructions with the token address', async () => {
  const { token } = await activeLink('2000');
  expectError(
    await pay(token, { rail: 'crypto_transfer', source_asset: 'USDC' }),
    400,
    'invalid_request',
    'parameter_missing',
    'source_chain',
  );
  expectError(
    await pay(token, { rail: 'crypto_transfer', source_chain: 'tempo' }),
    400,
    'invalid_request',
    'parameter_missing',
    'source_asset',
  );
  expectError(
    await pay(token, { rail: 'crypto_transfer', source_chain: 'tempo', source_asset: 'USDT' }),
    400,
    'invalid_request',
    'invalid_request',
    'source_asset',
  );
  expectError(
    await pay(token, { rail: 'crypto_transfer', source_chain: 'base', source_asset: 'USDC' }),
    409,
    'conflict',
    'network_not_supported',
    'source_chain',
  );
  expectError(
    await pay(token, { rail: 'crypto_transfer', source_chain: 'tempo', source_asset: 'USDC', source_address: 'nope' }),
    400,
    'invalid_request',
    'invalid_request',
    'source_address',
  );
  const p = await pay(token, { rail: 'crypto_transfer', source_chain: 'tempo', source_asset: 'USDC', source_address: REFUND });
  expect(p.status).toBe(201);
  expect(p.body).toMatchObject({ payment_rail: 'crypto_transfer', source_address: REFUND, watcher_state: null });
  expect(p.body.deposit_instructions).toMatchObject({
    chain: 'tempo',
    chain_id: 4217,
    asset: 'USDC.e',
    amount: { amount: '20200000', currency: 'USDC.e', decimals: 6 },
    amount_is_estimate: false,
  });
  expect(p.body.deposit_instructions.token_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(payerPaymentResponse.validate(p.body).error).toBeUndefined();
  const again = await pay(token, { rail: 'crypto_transfer', source_chain: 'tempo', source_asset: 'USDC' });
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(p.body.id);
});
