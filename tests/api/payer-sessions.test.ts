/**
 * Payer session routes and the merchant's payments views against the running product (spec 4.1
 * payer routes, 4.2, 2.4): allowlisted projection, short code, view, native-rail payment with the
 * 1% payer fee, one live attempt, mark_sent, deposits through /sim/chain/transfers with verdicts,
 * cancel of an underpaid link, receipt email, payments list filters and summary, errors.
 */
import { call, client, connectDb, eventually, expectError, newAccount } from '../helpers/api';

let merchant: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  merchant = client((await newAccount()).live_key);
});

async function activeLink(amount = '10000', extra: Record<string, unknown> = {}) {
  const l = await merchant.post('/v1/payment_links', {
    amount: { amount, currency: 'USD', decimals: 2 },
    title: 'Consulting',
    accepted_rail_kinds: ['crypto'],
    ...extra,
  });
  expect(l.status).toBe(201);
  const a = await merchant.post(`/v1/payment_links/${l.body.id}/activate`, { attestation_accepted: true });
  expect(a.status).toBe(200);
  return { link: a.body, token: String(a.body.url).split('/pay/')[1] };
}
const session = (token: string, suffix = '', body?: unknown) =>
  call(body === undefined ? 'GET' : 'POST', `/v1/payment_sessions/${token}${suffix}`, body, { idem: null });
const transfer = (di: { chain: string; address: string; asset: string }, amount: string) =>
  call('POST', '/sim/chain/transfers', { chain: di.chain, to_address: di.address, asset: di.asset, amount }, { idem: null });

test('the payer projection is an allowlist and resolves by short code', async () => {
  const { link, token } = await activeLink();
  const s = await session(token);
  expect(s.status).toBe(200);
  expect(s.body).toMatchObject({
    object: 'payment_session',
    status: 'active',
    rails: ['crypto_native'],
    amount_verdict: null,
    settlement_kind: 'crypto_only',
    watcher_state: null,
  });
  expect(s.body.rails_not_allowed).toContain('crypto_xchain');
  const text = JSON.stringify(s.body);
  for (const forbidden of [
    link.id,
    link.account_id ?? 'acct_',
    'settlement_asset',
    'settlement_destination_id',
    'payer_token',
    'client_id',
  ])
    expect(text).not.toContain(forbidden);
  const byCode = await call('GET', `/v1/payment_sessions/by_code/${link.short_code}`);
  expect(byCode.status).toBe(200);
  expect(byCode.body.token).toBe(token);
});

test('unknown tokens and short codes are 404; keys cannot reach session routes as a merchant', async () => {
  expectError(await session('plk_doesnotexist'), 404, 'not_found');
  expectError(await session('not-a-token'), 404, 'not_found');
  expectError(await call('GET', '/v1/payment_sessions/by_code/zzzzzzz'), 404, 'not_found');
});

test('view marks the link viewed once and emits payment_link.viewed once', async () => {
  const { link, token } = await activeLink();
  expect((await session(token, '/view', {})).body.status).toBe('viewed');
  expect((await session(token, '/view', {})).status).toBe(200);
  const evs = await merchant.get(`/v1/payment_links/${link.id}/events`);
  expect(evs.body.data.filter((e: { type: string }) => e.type === 'payment_link.viewed')).toHaveLength(1);
  expect((await merchant.get(`/v1/payment_links/${link.id}`)).body.viewed_at).not.toBeNull();
});

test('a native payment owes invoice plus the 1% payer fee; the live attempt is reused', async () => {
  const { token } = await activeLink('12345');
  const p = await session(token, '/payments', { rail: 'crypto_native', payer_email: 'payer@example.com' });
  expect(p.status).toBe(201);
  expect(p.body.deposit_instructions).toMatchObject({
    asset: 'USDC',
    amount: { amount: '124684500', currency: 'USDC', decimals: 6 },
    amount_is_estimate: false,
  });
  expect(p.body.deposit_instructions.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(p.body.fee).toEqual({ amount: '1234500', currency: 'USDC', decimals: 6 });
  const again = await session(token, '/payments', { rail: 'crypto_native' });
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(p.body.id);
  expect(again.body.deposit_instructions).toEqual(p.body.deposit_instructions);
  const got = await session(token, `/payments/${p.body.id}`);
  expect(got.body.id).toBe(p.body.id);
  expectError(await session(token, '/payments/pay_nope'), 404, 'not_found');
});

test('payment creation errors: rail not allowed, unknown rail, unknown key', async () => {
  const { token } = await activeLink();
  expectError(await session(token, '/payments', { rail: 'ach' }), 400, 'invalid_request', 'rail_not_allowed', 'rail');
  expectError(
    await session(token, '/payments', { rail: 'crypto_xchain', network: 'base' }),
    400,
    'invalid_request',
    'rail_not_allowed',
    'rail',
  );
  expectError(await session(token, '/payments', { rail: 'carrier_pigeon' }), 400, 'invalid_request', 'parameter_invalid', 'rail');
  expectError(await session(token, '/payments', { rail: 'crypto_native', tip: '1' }), 400, 'invalid_request', 'parameter_unknown', 'tip');
});

test('mark_sent is a non-authoritative claim: payment.marked_sent, status unchanged', async () => {
  const { token } = await activeLink();
  expectError(await session(token, '/mark_sent', {}), 409, 'conflict', 'no_payment_in_progress');
  const p = await session(token, '/payments', { rail: 'crypto_native' });
  const m = await session(token, '/mark_sent', {});
  expect(m.body).toMatchObject({ id: p.body.id, status: 'awaiting', authoritative: false });
  expect(m.body.marked_sent_at).not.toBeNull();
  const evs = await merchant.get(`/v1/payments/${p.body.id}/events`);
  expect(evs.body.data.map((e: { type: string }) => e.type)).toContain('payment.marked_sent');
});

test('short, then topped up: underpaid -> paid -> settled with the sum of every leg; receipt email', async () => {
  const { link, token } = await activeLink('5000');
  const p = (await session(token, '/payments', { rail: 'crypto_native' })).body;
  expect(p.deposit_instructions.amount.amount).toBe('50500000');
  expect((await transfer(p.deposit_instructions, '50000000')).status).toBe(201);
  const under = await eventually(async () => {
    const r = await merchant.get(`/v1/payments/${p.id}`);
    return r.body.status === 'underpaid' && r.body;
  }, 'underpaid');
  expect(under).toMatchObject({ amount_received: { amount: '50000000' }, amount_verdict: 'underpaid' });
  const mid = await merchant.get(`/v1/payment_links/${link.id}`);
  expect(mid.body).toMatchObject({
    status: 'processing',
    partial_payment: { received: { amount: '50000000', currency: 'USDC', decimals: 6 } },
  });
  expect((await session(token)).body.amount_verdict).toBe('underpaid');
  expectError(await session(token, '/receipt_email', { email: 'payer@example.com' }), 409, 'conflict');

  await transfer(p.deposit_instructions, '500000');
  const done = await eventually(async () => {
    const r = await merchant.get(`/v1/payments/${p.id}`);
    return r.body.status === 'settled' && r.body;
  }, 'settled');
  expect(done).toMatchObject({
    amount_received: { amount: '50500000' },
    amount_verdict: 'exact',
    net_amount: { amount: '50000000' },
    surplus: null,
  });
  const l = await merchant.get(`/v1/payment_links/${link.id}`);
  expect(l.body).toMatchObject({ status: 'settled', partial_payment: null });
  expect(l.body.paid_at).not.toBeNull();
  expect(l.body.settled_at).not.toBeNull();
  const rcpt = await session(token, '/receipt_email', { email: 'payer@example.com' });
  expect(rcpt.status).toBe(202);
  const emails = await call('GET', `/sim/emails?related_object_id=${link.id}`);
  expect(emails.body.data.some((e: { template: string }) => e.template === 'payment_receipt')).toBe(true);
  expectError(await session(token, '/payments', { rail: 'crypto_native' }), 409, 'conflict', 'payment_link_not_payable');
});

test('an overpayment is overpaid with its surplus kept; payment.overpaid fires once', async () => {
  const { token } = await activeLink('1000');
  const p = (await session(token, '/payments', { rail: 'crypto_native' })).body;
  await transfer(p.deposit_instructions, '20000000');
  const done = await eventually(async () => {
    const r = await merchant.get(`/v1/payments/${p.id}`);
    return r.body.status === 'settled' && r.body;
  }, 'settled');
  expect(done).toMatchObject({ amount_verdict: 'overpaid', surplus: { amount: '9900000' } });
  const evs = await merchant.get(`/v1/payments/${p.id}/events`);
  const types = evs.body.data.map((e: { type: string }) => e.type);
  expect(types.filter((t: string) => t === 'payment.overpaid')).toHaveLength(1);
  const overpaid = evs.body.data.find((e: { type: string }) => e.type === 'payment.overpaid');
  expect(overpaid.data.object).toMatchObject({ amount_received: { amount: '20000000' }, amount_expected: { amount: '10100000' } });
});

test('cancelling an underpaid link makes the payment unmatched partial_before_cancel with the money held', async () => {
  const { link, token } = await activeLink('10000');
  const p = (await session(token, '/payments', { rail: 'crypto_native' })).body;
  await transfer(p.deposit_instructions, '1000000');
  await eventually(async () => (await merchant.get(`/v1/payments/${p.id}`)).body.status === 'underpaid', 'underpaid');
  const c = await merchant.post(`/v1/payment_links/${link.id}/cancel`);
  expect(c.status).toBe(200);
  const after = await eventually(async () => {
    const r = await merchant.get(`/v1/payments/${p.id}`);
    return r.body.status === 'unmatched' && r.body;
  }, 'unmatched');
  expect(after).toMatchObject({ unmatched_reason: 'partial_before_cancel', amount_received: { amount: '1000000' } });
  const evs = await merchant.get(`/v1/payments/${p.id}/events`);
  expect(evs.body.data.filter((e: { type: string }) => e.type === 'payment.unmatched')).toHaveLength(1);
});

test('GET /payments filters by link and status, summary counts every match, bad filters are 400', async () => {
  const { link, token } = await activeLink();
  const p = (await session(token, '/payments', { rail: 'crypto_native' })).body;
  const byLink = await merchant.get(`/v1/payments?payment_link_id=${link.id}&expand=summary`);
  expect(byLink.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
  expect(byLink.body.summary.total).toBe(1);
  expect(byLink.body.summary.by_status.awaiting).toBe(1);
  expect(Object.keys(byLink.body.summary.by_status)).toHaveLength(12);
  const awaiting = await merchant.get('/v1/payments?status=awaiting&limit=1&expand=summary');
  expect(awaiting.body.data).toHaveLength(1);
  expect(awaiting.body.summary.total).toBeGreaterThanOrEqual(1);
  expectError(await merchant.get('/v1/payments?status=bogus'), 400, 'invalid_request', undefined, 'status');
  expectError(await merchant.get('/v1/payments?settlement=bank'), 400, 'invalid_request', undefined, 'settlement');
  const attempts = await merchant.get(`/v1/payment_links/${link.id}/payments`);
  expect(attempts.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
  const other = client((await newAccount()).live_key);
  expectError(await other.get(`/v1/payments/${p.id}`), 404, 'not_found');
});

test('wallet: balances of the account wallet; create is session-only and refuses a second wallet', async () => {
  const acct = await newAccount();
  const b = await client(acct.live_key).get('/v1/wallet/balances');
  expect(b.status).toBe(200);
  expect(b.body).toMatchObject({
    object: 'wallet_balances',
    network: 'testnet',
    balances: [{ asset: 'USDC', amount: { amount: '0', currency: 'USDC', decimals: 6 } }],
    usd_total: { amount: '0', currency: 'USD' },
  });
  const ws = await client(acct.live_key).get('/v1/wallet/wallets');
  expect(ws.body.data).toHaveLength(1);
  expect((await client(acct.live_key).get(`/v1/wallet/wallets/${ws.body.data[0].id}`)).body.address).toBe(ws.body.data[0].address);
  expectError(
    await client(acct.live_key).post('/v1/wallet/wallets', { address: '0x52908400098527886E0F7030069857D2E4169EE7', credential_id: 'c1' }),
    403,
    'permission_error',
    'role_denied',
  );
  expectError(
    await client(acct.session_token).post('/v1/wallet/wallets', {
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      credential_id: 'c1',
    }),
    409,
    'conflict',
    'wallet_already_exists',
  );
  expectError(
    await client(acct.session_token).post('/v1/wallet/wallets', {
      address: '0x52908400098527886e0F7030069857D2E4169EE7',
      credential_id: 'c1',
    }),
    400,
    'invalid_request',
    undefined,
    'address',
  );
  expectError(await client(acct.test_key).get('/v1/wallet/balances'), 503, 'temporarily_unavailable');
});

test('the simulator validates its input', async () => {
  expectError(
    await call('POST', '/sim/chain/transfers', { chain: 'tempo', to_address: '0x1', asset: 'USDC', amount: '1' }, { idem: null }),
    400,
    'invalid_request',
    undefined,
    'to_address',
  );
  expectError(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: 'solana', to_address: `0x${'a'.repeat(40)}`, asset: 'USDC', amount: '1' },
      { idem: null },
    ),
    400,
    'invalid_request',
    'network_not_supported',
    'chain',
  );
  expectError(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: 'tempo', to_address: `0x${'a'.repeat(40)}`, asset: 'USDC', amount: '0' },
      { idem: null },
    ),
    400,
    'invalid_request',
    undefined,
    'amount',
  );
});
