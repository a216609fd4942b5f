/**
 * Quotes (spec 4.9; issue 16) over HTTP against the shared stack: the fan-out across the five
 * sandbox providers (one always paused), ranking by final_out or final_in, every refusal with its
 * code, the per-provider deadline (a slow or failing provider is reported, never waited for), the
 * forwarded country headers, and `GET /capabilities?product=buy_sell` with its snapshot refusals.
 */
import { call, client, connectDb, expectError, expectOk, newAccount } from '../helpers/api';

let key: ReturnType<typeof client>;
let accountId: string;
let testKey: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  const a = await newAccount();
  accountId = a.account_id;
  key = client(a.live_key);
  testKey = client(a.test_key);
});

const fault = (name: string, value: string | null, acct = accountId) =>
  call('POST', '/sim/providers/faults', { account_id: acct, name, value }, { idem: null });
const quote = (b: Record<string, unknown>, headers?: Record<string, string>) => key.post('/v1/quotes', b, { headers });
const minor = (s: string, d: number) => BigInt(s.replace('.', '').padEnd(s.split('.')[0].length + d, '0'));

test('buy by from_amount: offers ranked by final_out, every provider reported, the paused one never offered, rate from the final amounts', async () => {
  const q = expectOk(await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '250.00', to_network: 'base' }), 201);
  expect(q).toMatchObject({
    object: 'quote',
    side: 'buy',
    from_amount: '250.00',
    to_amount: null,
    to_network: 'base',
    from_network: null,
    quote_status: 'indicative',
  });
  expect(q.id).toMatch(/^quo_/);
  const byProvider = Object.fromEntries(q.providers.map((p: any) => [p.provider, p]));
  expect(Object.keys(byProvider).sort()).toEqual(['coinvia', 'harbor', 'native_fiat', 'rampline', 'swapworks']);
  expect(byProvider.harbor).toMatchObject({ status: 'paused', reason: 'provider_paused', offer_id: null });
  expect(byProvider.native_fiat).toMatchObject({ status: 'no_offer', reason: 'network_not_supported' });
  expect(byProvider.swapworks).toMatchObject({ status: 'no_offer', reason: 'side_not_supported' });
  expect(byProvider.rampline.status).toBe('quoted');
  expect(byProvider.coinvia.status).toBe('quoted');
  expect(q.offers.map((o: any) => o.provider.id)).not.toContain('harbor');
  // Ranked by final_out, the winner first; amounts are bare decimals in major units.
  const outs = q.offers.map((o: any) => minor(o.final_out, 6));
  expect([...outs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(outs);
  expect(q.offer_id).toBe(q.offers[0].offer_id);
  expect(q.final_out).toBe(q.offers[0].final_out);
  expect(q.route_facts).toMatchObject({
    best_price: { offer_id: q.offer_id, compared_by: 'final_out', value: q.final_out },
    offers_compared: 2,
    providers_asked: 5,
  });
  for (const o of q.offers) {
    expect(o.final_in).toBe('250.00');
    expect(o.final_out).toMatch(/^\d+\.\d{6}$/);
    expect(o.provider).toMatchObject({ limits: { currency: 'USD' } });
    // rate = final_out / final_in, cut to 12 digits (never recomputed from rounded parts).
    const expected = (minor(o.final_out, 6) * 10n ** 14n) / (25000n * 10n ** 6n);
    expect(minor(o.rate.padEnd(o.rate.indexOf('.') + 13, '0'), 12)).toBe(expected);
  }
  // Coinvia delivers crypto in steps of 0.01.
  expect(q.offers.find((o: any) => o.provider.id === 'coinvia').final_out).toMatch(/\.\d\d0000$/);
  expect(new Date(q.expires_at).getTime()).toBeGreaterThan(Date.now());

  const again = expectOk(await key.get(`/v1/quotes/${q.id}`));
  expect(again).toMatchObject({ id: q.id, offer_id: q.offer_id, offers: q.offers });
  const other = await newAccount();
  expectError(await client(other.live_key).get(`/v1/quotes/${q.id}`), 404, 'not_found');
});

test('an Idempotency-Key replays the stored quote; the same key with another body is refused', async () => {
  const k = `idem_${Date.now()}_quote_replay`;
  const body = { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '120', to_network: 'base' };
  const a = expectOk(await key.post('/v1/quotes', body, { idem: k }), 201);
  const b = expectOk(await key.post('/v1/quotes', body, { idem: k }), 201);
  expect(b.id).toBe(a.id);
  expect(b.offers).toEqual(a.offers);
  expectError(await key.post('/v1/quotes', { ...body, from_amount: '121' }, { idem: k }), 409, 'idempotency_error');
});

test('buy by to_amount: compared by final_in among offers that deliver exactly the amount', async () => {
  const q = expectOk(await quote({ side: 'buy', from_asset: 'EUR', to_asset: 'USDC', to_amount: '100.005', to_network: 'base' }), 201);
  const coinvia = q.offers.find((o: any) => o.provider.id === 'coinvia');
  const rampline = q.offers.find((o: any) => o.provider.id === 'rampline');
  expect(rampline).toMatchObject({ final_out: '100.005000', comparable: true });
  expect(coinvia).toMatchObject({ final_out: '100.000000', comparable: false });
  expect(q.offer_id).toBe(rampline.offer_id);
  expect(q.route_facts.best_price).toMatchObject({ compared_by: 'final_in', value: rampline.final_in, offer_id: rampline.offer_id });
  const both = expectOk(await quote({ side: 'buy', from_asset: 'EUR', to_asset: 'USDC', to_amount: '100', to_network: 'base' }), 201);
  const ins = both.offers.filter((o: any) => o.comparable).map((o: any) => minor(o.final_in, 2));
  expect(ins.length).toBe(2);
  expect([...ins].sort((a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ins);
  expect(both.offers.every((o: any) => o.final_out === '100.000000')).toBe(true);
});

test('amounts: bare decimals only, exactly one, the fiat scale on a buy (422), trailing zeros fine', async () => {
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: { amount: '100', currency: 'USD', decimals: 2 } }),
    400,
    'invalid_request',
    'parameter_invalid',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '0.00' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '1234567890123456' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '10', to_amount: '10' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'to_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC' }),
    400,
    'invalid_request',
    'parameter_missing',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '10.005', to_network: 'base' }),
    422,
    'invalid_request',
    'amount_invalid',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'JPY', to_asset: 'USDC', from_amount: '5000.5' }),
    422,
    'invalid_request',
    'amount_invalid',
    'from_amount',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'KWD', to_asset: 'USDC', from_amount: '100.1234' }),
    422,
    'invalid_request',
    'amount_invalid',
    'from_amount',
  );
  expectOk(await quote({ side: 'buy', from_asset: 'KWD', to_asset: 'USDC', from_amount: '100.1230000', to_network: 'base' }), 201);
  expectOk(await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '100.500', to_network: 'base' }), 201);
  // A sell's from_amount is crypto: no fiat scale rule.
  expectOk(await quote({ side: 'sell', from_asset: 'USDC', to_asset: 'USD', from_amount: '100.123456', from_network: 'tempo' }), 201);
  expectError(
    await quote({ side: 'buy', from_asset: 'USDC', to_asset: 'USD', from_amount: '10' }),
    400,
    'invalid_request',
    'asset_invalid_for_side',
    'from_asset',
  );
  expectError(
    await quote({ side: 'sell', from_asset: 'USDC', to_asset: 'USD', from_amount: '10', to_network: 'base' }),
    400,
    'invalid_request',
    'network_invalid_for_side',
    'to_network',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '10', country: 'us' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'country',
  );
  expectError(
    await quote({ side: 'buy', from_asset: 'XYZ', to_asset: 'USDC', from_amount: '10' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'from_asset',
  );
});

test('countries: explicit and each forwarded header judged on its own, refused before the fan-out', async () => {
  const body = { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '100', to_network: 'base' };
  const r1 = await quote({ ...body, country: 'IR' });
  expectError(r1, 409, 'capability_unavailable', 'capability_unavailable', 'country');
  expect(r1.body.error.details).toMatchObject({ reason_code: 'COUNTRY_NOT_SUPPORTED', country: 'IR', source: 'country' });
  const r2 = await quote({ ...body, country: 'US' }, { 'CF-IPCountry': 'KP' });
  expectError(r2, 409, 'capability_unavailable');
  expect(r2.body.error.details).toMatchObject({ reason_code: 'COUNTRY_NOT_SUPPORTED', country: 'KP', source: 'cf-ipcountry' });
  for (const h of ['CloudFront-Viewer-Country', 'X-Vercel-IP-Country', 'X-Country-Code']) {
    const r = await quote(body, { [h]: 'ZW' });
    expect(r.body.error.details).toMatchObject({ reason_code: 'COUNTRY_NOT_SUPPORTED', source: h.toLowerCase() });
  }
  expectError(await quote(body, { 'CF-IPCountry': 'T1' }), 409, 'capability_unavailable');
  // Cloudflare's XX (unknown) is not a country.
  expectOk(await quote({ ...body, country: 'DE' }, { 'CF-IPCountry': 'XX' }), 201);
});

test('no executable offer: 409 with the closest reason code and the alternative methods, never an empty 200', async () => {
  const method = await quote({ side: 'buy', from_asset: 'BRL', to_asset: 'USDC', from_amount: '500', payment_method: 'apple_pay' });
  expectError(method, 409, 'capability_unavailable');
  expect(method.body.error.details.reason_code).toBe('PAYMENT_METHOD_NOT_SUPPORTED');
  expect(method.body.error.details.alternative_methods).toEqual(expect.arrayContaining(['pix', 'bank_transfer', 'card']));
  const network = await quote({ side: 'sell', from_asset: 'ETH', to_asset: 'GBP', from_amount: '1' });
  expect(network.body.error.details.reason_code).toBe('QUOTE_NETWORK_REQUIRED');
  expectOk(await quote({ side: 'sell', from_asset: 'ETH', to_asset: 'GBP', from_amount: '1', from_network: 'arbitrum' }), 201);
  const small = await quote({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '1.00', to_network: 'base' });
  expect(small.body.error.details.reason_code).toBe('LIMIT_BELOW_MIN');
  const currency = await quote({ side: 'buy', from_asset: 'CHF', to_asset: 'USDC', from_amount: '100' });
  expect(currency.body.error.details.reason_code).toBe('LOCAL_CURRENCY_NOT_SUPPORTED');
});

test('the fan-out: a slow provider is cut at the deadline and a failing one reported, the quote still answers', async () => {
  const a = await newAccount();
  const k = client(a.live_key);
  await fault('quotes.coinvia.latency_ms', '8000', a.account_id);
  await fault('quotes.rampline.failure_rate', '1', a.account_id);
  const started = Date.now();
  const q = expectOk(
    await k.post('/v1/quotes', { side: 'swap', from_asset: 'USDC', to_asset: 'ETH', from_amount: '1000', to_network: 'base' }),
    201,
  );
  const took = Date.now() - started;
  expect(took).toBeLessThan(5000);
  const byProvider = Object.fromEntries(q.providers.map((p: any) => [p.provider, p]));
  expect(byProvider.coinvia).toMatchObject({ status: 'timed_out', reason: 'timeout' });
  expect(byProvider.coinvia.latency_ms).toBeGreaterThanOrEqual(1400);
  expect(byProvider.swapworks.status).toBe('quoted');
  expect(q.offers.map((o: any) => o.provider.id)).toEqual(['swapworks']);
  // Every provider out: no offer, 409 with the provider reason.
  await fault('quotes.swapworks.failure_rate', '1', a.account_id);
  const none = await k.post('/v1/quotes', { side: 'swap', from_asset: 'USDC', to_asset: 'ETH', from_amount: '1000', to_network: 'base' });
  expectError(none, 409, 'capability_unavailable');
  expect(none.body.error.details.reason_code).toBe('PROVIDER_ERROR');
  await fault('quotes.coinvia.latency_ms', null, a.account_id);
});

test('test mode is refused; buy_sell capabilities: coverage per fiat and direction, 503 on a cold or stale snapshot', async () => {
  expectError(
    await testKey.post('/v1/quotes', { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '10' }),
    503,
    'temporarily_unavailable',
    'test_mode_not_supported',
  );
  expectError(await testKey.get('/v1/orders'), 503, 'temporarily_unavailable', 'test_mode_not_supported');
  const caps = expectOk(await key.get('/v1/capabilities?product=buy_sell'));
  expect(caps).toMatchObject({
    object: 'capabilities',
    product: 'buy_sell',
    primary_method: 'bank_transfer',
    resolved_limits: { max_amount: { currency: 'USD' } },
  });
  expect(caps.coverage).toEqual(expect.arrayContaining([expect.objectContaining({ fiat: 'USD', direction: 'buy', executable: true })]));
  expect(caps.corridors.find((c: any) => c.corridor_id === 'buy_sell.sell.EUR')).toMatchObject({
    executable: true,
    currency: 'EUR',
    action: 'quote',
  });
  expect(caps.coverage.find((c: any) => c.fiat === 'USD' && c.direction === 'buy').providers).not.toContain('harbor');
  const a = await newAccount();
  await fault('buy_sell.coverage', 'cold', a.account_id);
  expectError(await client(a.live_key).get('/v1/capabilities?product=buy_sell'), 503, 'temporarily_unavailable');
  await fault('buy_sell.coverage', 'stale', a.account_id);
  const stale = await client(a.live_key).get('/v1/capabilities?product=buy_sell');
  expectError(stale, 503, 'temporarily_unavailable');
  expect(stale.body.error.details).toMatchObject({ snapshot: 'stale' });
});
