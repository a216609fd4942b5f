/**
 * Screening over HTTP (spec 4.8, 2.9, 2.11; issue 15): address fixtures per network (valid, wrong
 * checksums, impossible on the network) and chain ids or names in any case; `409
 * network_not_supported` stores nothing; the sandbox provider's signals, its outage (503) and the
 * short cache; reports paid by a credit or served free from the 30-day cache, `402
 * quota_exhausted`, the race on the last credit (exactly one spends it); the evidence PDF parsed
 * back; traces and transaction lookups from the sandbox chain indexer; the old `screening.*`
 * scope names.
 */
import { bech32 } from '@scure/base';
import crypto from 'node:crypto';
import { insertApiKey } from '../../activities/accounts/commands';
import { db, transaction } from '../../lib/db';
import { call, client, connectDb, expectError, expectOk, newAccount } from '../helpers/api';
import { pdfText } from '../helpers/pdf';
import { BEFORE_MS, deadline } from '../fixtures/deadlines';

beforeAll(async () => {
  await connectDb();
});

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const bech = (prefix: string, bytes: number) => bech32.encode(prefix, bech32.toWords(crypto.randomBytes(bytes)), false);
/** Valid addresses per network on the test network (bitcoin and cardano take their test-network forms there). */
const VALID: Array<[string, string]> = [
  ['Ethereum', EVM],
  ['1', EVM.toLowerCase()],
  ['bsc', EVM],
  ['56', EVM],
  ['polygon', EVM],
  ['42161', EVM],
  ['10', EVM],
  ['Base', EVM],
  ['43114', EVM],
  ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
  ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  ['solana', 'So11111111111111111111111111111111111111112'],
  ['xrp', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh'],
  ['ton', 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q2'],
  ['cardano', bech('addr_test', 57)],
  ['cosmos', bech('cosmos', 20)],
];
/** Addresses impossible on their network: wrong checksums, wrong networks, wrong lengths. */
const IMPOSSIBLE: Array<[string, string]> = [
  ['ethereum', '0x52908400098527886e0F7030069857D2E4169EE7'],
  ['bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy'],
  ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
  ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
  ['solana', 'So1111111111111111111'],
  ['xrp', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTi'],
  ['ton', 'EQDtFpEwcFAEcRe5mLVh2N6C0x-_hJEM7W61_JLnSF74p4q3'],
  ['cardano', bech('addr', 57)],
  ['cosmos', bech('osmo', 20)],
  ['polygon', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
];

async function account() {
  const acct = await newAccount();
  return { acct, key: client(acct.live_key) };
}
const count = async (accountId: string) =>
  Number((await db().query('SELECT count(*) FROM screenings WHERE account_id = $1', [accountId]))[0].count);

test('every network by id or name, valid addresses screened; impossible addresses and other networks are 409 and store nothing', async () => {
  const { acct, key } = await account();
  for (const [chain, address] of VALID) {
    const r = await key.post('/v1/screenings', { chain, address });
    expect([chain, r.status, r.body.error?.message]).toEqual([chain, 201, undefined]);
    expect(r.body).toMatchObject({
      object: 'screening',
      address,
      cached: expect.any(Boolean),
      coverage: expect.arrayContaining(['sanctions_lists']),
      provider_version: expect.any(String),
    });
  }
  expect(expectOk(await key.get('/v1/screenings?chain=ETH&limit=100')).data.every((s: { chain: string }) => s.chain === 'ethereum')).toBe(
    true,
  );
  expectError(await key.get('/v1/screenings?chain=null'), 400, 'invalid_request', 'parameter_invalid', 'chain');
  const before = await count(acct.account_id);
  for (const [chain, address] of IMPOSSIBLE)
    expectError(await key.post('/v1/screenings', { chain, address }), 409, 'conflict', 'network_not_supported', 'address');
  expectError(await key.post('/v1/screenings', { chain: 'tempo', address: EVM }), 409, 'conflict', 'network_not_supported', 'chain');
  expectError(await key.post('/v1/screenings', { chain: 'dogecoin', address: EVM }), 409, 'conflict', 'network_not_supported', 'chain');
  expect(await count(acct.account_id)).toBe(before);
});

test('provider signals, the short cache, and an outage', async () => {
  const { key } = await account();
  const address = `0x${crypto.randomBytes(20).toString('hex')}`;
  expectOk(
    await call('POST', '/sim/providers/screening/signals', { chain: 'base', address, risk_score: 88, flags: ['mixer'] }, { idem: null }),
    201,
  );
  const first = expectOk(await key.post('/v1/screenings', { chain: 8453, address }), 201);
  expect(first).toMatchObject({
    risk_score: 88,
    risk_level: 'severe',
    verdict: 'high_risk',
    action: 'avoid',
    flags: ['mixer'],
    confidence: 'high',
    cached: false,
  });
  const again = expectOk(await key.post('/v1/screenings', { chain: 'base', address: address.toUpperCase().replace('0X', '0x') }), 201);
  expect(again).toMatchObject({ cached: true, risk_score: 88 });
  expect(again.id).not.toBe(first.id);
  const down = `0x${crypto.randomBytes(20).toString('hex')}`;
  expectOk(
    await call(
      'POST',
      '/sim/providers/screening/signals',
      { chain: 'base', address: down, risk_score: 0, unavailable: true },
      { idem: null },
    ),
    201,
  );
  expectError(await key.post('/v1/screenings', { chain: 'base', address: down }), 503, 'temporarily_unavailable', 'screening_unavailable');
  expectError(await key.get('/v1/screenings/scr_nope'), 404, 'not_found');
});

test('the report cache holds 30 days: an equivalent report a minute short of it is free, one past it spends a credit', async () => {
  const { key } = await account();
  const s = expectOk(await key.post('/v1/screenings', { chain: 'ethereum', address: `0x${crypto.randomBytes(20).toString('hex')}` }), 201);
  const r1 = expectOk(await key.post(`/v1/screenings/${s.id}/reports`), 201);
  expect(r1).toMatchObject({ cached: false });
  const cache = deadline('screening_report_cache');
  // Every report on the address made `ageMs` old (database clock; the API judges on its own, the same machine's).
  const ageAll = (ageMs: number) =>
    db().query(
      `UPDATE screening_reports SET created_at = now() - make_interval(secs => $2) WHERE address_key = (SELECT address_key FROM screening_reports WHERE id = $1)`,
      [r1.id, ageMs / 1000],
    );
  await ageAll(cache.ms - BEFORE_MS);
  expect(expectOk(await key.post(`/v1/screenings/${s.id}/reports`), 201)).toMatchObject({
    cached: true,
    credit: { ledger_type: 'cache_hit' },
  });
  await ageAll(cache.ms + cache.slackMs);
  expect(expectOk(await key.post(`/v1/screenings/${s.id}/reports`), 201)).toMatchObject({
    cached: false,
    credit: { ledger_type: 'consume_free' },
  });
});

test('reports: one credit, free from the 30-day cache, 402 without credit, the race on the last credit, the evidence PDF', async () => {
  const { acct, key } = await account();
  const owner = (await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [acct.account_id]))[0]
    .user_id;
  expectOk(await client(acct.session_token).get('/v1/credits'));
  const screen = async () =>
    expectOk(await key.post('/v1/screenings', { chain: 'ethereum', address: `0x${crypto.randomBytes(20).toString('hex')}` }), 201);
  const s1 = await screen();
  const r1 = expectOk(await key.post(`/v1/screenings/${s1.id}/reports`), 201);
  expect(r1).toMatchObject({
    object: 'screening_report',
    cached: false,
    credit: { ledger_type: 'consume_free' },
    figures: { address: s1.address, risk_score: s1.risk_score },
  });
  // An equivalent report (same address) within 30 days, from another screening: free.
  const s1b = expectOk(await key.post('/v1/screenings', { chain: 'eth', address: s1.address }), 201);
  const r2 = expectOk(await key.post(`/v1/screenings/${s1b.id}/reports`), 201);
  expect(r2).toMatchObject({ cached: true, cached_from: r1.id, credit: { ledger_type: 'cache_hit' } });

  // One credit left, two reports at once on two new addresses: exactly one spends it.
  await db().query('UPDATE credit_balances SET free_remaining = 1, paid_balance = 0 WHERE user_id = $1', [owner]);
  const [a, b] = await Promise.all([screen(), screen()]);
  const race = await Promise.all([key.post(`/v1/screenings/${a.id}/reports`), key.post(`/v1/screenings/${b.id}/reports`)]);
  expect(race.map((r) => r.status).sort()).toEqual([201, 402]);
  expectError(
    race.find((r) => r.status === 402)!,
    402,
    'quota_exhausted',
    'quota_exhausted',
  );
  const types = (
    await db().query(`SELECT type FROM credit_events WHERE user_id = $1 AND related_object_id LIKE 'srp_%' ORDER BY created_at`, [owner])
  ).map((r: { type: string }) => r.type);
  expect(types.filter((t: string) => t === 'consume_free')).toHaveLength(2);
  expect(types).toEqual(expect.arrayContaining(['cache_hit', 'insufficient']));
  expect(Number((await db().query('SELECT free_remaining FROM credit_balances WHERE user_id = $1', [owner]))[0].free_remaining)).toBe(0);

  const list = expectOk(await key.get(`/v1/screenings/${s1.id}/reports`));
  expect(list.data.map((x: { id: string }) => x.id)).toEqual([r1.id]);
  expect(expectOk(await key.get(`/v1/screenings/${s1.id}/reports/${r1.id}`)).data_sha256).toBe(r1.data_sha256);
  expectError(await key.get(`/v1/screenings/${s1b.id}/reports/${r1.id}`), 404, 'not_found');
  const pdf = await fetch(`${process.env.TEST_API_URL}/v1/screenings/${s1.id}/reports/${r1.id}/evidence_pdf`, {
    headers: { 'x-api-key': acct.live_key },
  });
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  const bytes = Buffer.from(await pdf.arrayBuffer());
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  const text = pdfText(bytes);
  for (const want of [r1.id, s1.address, `Risk score: ${s1.risk_score} / 100`, s1.provider_version, 'sanctions_lists', r1.data_sha256])
    expect(text).toContain(want);
});

test('traces and transaction lookups from the sandbox indexer', async () => {
  const { key } = await account();
  const [A, B, C] = [0, 1, 2].map(() => `0x${crypto.randomBytes(20).toString('hex')}`);
  const send = async (from: string, to: string, amount: string, status?: string) =>
    expectOk(
      await call(
        'POST',
        '/sim/chain/transfers',
        { chain: 'base', asset: 'USDC', from_address: from, to_address: to, amount, ...(status ? { status } : {}) },
        { idem: null },
      ),
      201,
    ).tx_hash as string;
  const h1 = await send(A, B, '5000000');
  await send(B, C, '4000000');
  const t = expectOk(await key.post('/v1/traces', { chain: 'base', address: A, depth: 2, direction: 'outgoing' }));
  expect(t.nodes.map((n: { address: string; hop: number }) => [n.address.toLowerCase(), n.hop])).toEqual([
    [A, 0],
    [B, 1],
    [C, 2],
  ]);
  expect(t.edges).toHaveLength(2);
  const fromTx = expectOk(await key.post('/v1/traces', { chain: '8453', tx_hash: h1, depth: 1, direction: 'both' }));
  expect(fromTx.nodes.map((n: { address: string }) => n.address.toLowerCase()).sort()).toEqual([A, B, C].sort());
  expectError(await key.post('/v1/traces', { chain: 'base', depth: 1 }), 400, 'invalid_request', 'parameter_missing', 'address');
  expectError(await key.post('/v1/traces', { chain: 'bitcoin', address: A }), 409, 'conflict', 'network_not_supported', 'chain');

  const tx = expectOk(await key.get(`/v1/transactions/base/${h1}`));
  expect(tx).toMatchObject({ object: 'chain_transaction', hash: h1, status: 'confirmed', amount: { amount: '5000000', currency: 'USDC' } });
  expect(tx.confirmations).toBeGreaterThanOrEqual(2);
  const pending = await send(C, A, '1', 'pending');
  expect(expectOk(await key.get(`/v1/transactions/base/${pending}`))).toMatchObject({
    status: 'pending',
    confirmations: 0,
    block_number: null,
  });
  expectError(await key.get(`/v1/transactions/base/0x${'ab'.repeat(32)}`), 404, 'not_found');
  expectError(await key.get(`/v1/transactions/solana/${h1}`), 409, 'conflict', 'network_not_supported');
});

test('the old screening.* scope names still reach the screening routes', async () => {
  const { acct } = await account();
  const old = await transaction((m) =>
    insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes: ['screening.read', 'screening.write'], name: 'old scopes' }),
  );
  const k = client(old.secret);
  expectOk(await k.post('/v1/screenings', { chain: 'ethereum', address: EVM }), 201);
  expectOk(await k.get('/v1/screenings'));
  const none = await transaction((m) =>
    insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes: ['account.read'], name: 'no screening' }),
  );
  expectError(await client(none.secret).get('/v1/screenings'), 403, 'permission_error', 'missing_scope');
});
