/**
 * Credits over HTTP against the running product (spec 2.11 "Credits", 4.10, 5, 8): dashboard
 * session of the owner only, the personal balance with its free allowance, checkouts for packs
 * 5/10/20 that grant nothing themselves, grants only when the checkout provider confirms payment
 * (driven through the simulator like the outside world), granted once under repeated and
 * concurrent confirmations, failed/expired/short-paid checkouts granting nothing, the ledger list
 * with `events_total`, and the consume/refund ledger used by screening reports.
 */
import type { DevCredentials } from '../../activities/accounts/commands';
import { consumeCheck, refundCheck } from '../../activities/credits/commands';
import { systemScope } from '../../activities/scope';
import { FREE_CHECKS_ALLOWANCE } from '../../domain/credits';
import { DomainError } from '../../domain/errors';
import { db } from '../../lib/db';
import { creditBalanceOut, creditCheckoutOut, creditEventListOut } from '../../views/credits';
import { call, client, expectError, idem, newAccount, type Res, memberSession } from '../helpers/api';

let a: DevCredentials;
let ses: ReturnType<typeof client>;

const ok = (res: Res, status = 200) => {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

const sim = (checkoutId: string, action: 'complete' | 'fail' | 'expire', body: Record<string, unknown> = {}) =>
  call('POST', `/sim/providers/checkout/${checkoutId}/${action}`, body, { idem: null });

beforeAll(async () => {
  a = await newAccount();
  ses = client(a.session_token);
});

/** A live key is refused by the caller class (403 role_denied); a test key by test mode first (spec 1 rule 5: 503). */
const refusedTo = (key: string): [number, string, string] =>
  key.startsWith('sk_test_') ? [503, 'temporarily_unavailable', 'test_mode_not_supported'] : [403, 'permission_error', 'role_denied'];

describe('who may call', () => {
  test('never a business key (live 403 role_denied, test 503); only the owner (other roles 403 scope_denied)', async () => {
    for (const key of [a.live_key, a.test_key]) {
      const k = client(key);
      expectError(await k.get('/v1/credits'), ...refusedTo(key));
      expectError(await k.get('/v1/credit_events'), ...refusedTo(key));
      expectError(await k.post('/v1/credit_checkouts', { pack: 5 }), ...refusedTo(key));
    }
    const admin = client(await memberSession(a.account_id, 'admin'));
    expectError(await admin.get('/v1/credits'), 403, 'permission_error', 'scope_denied');
    expectError(await admin.get('/v1/credit_events'), 403, 'permission_error', 'scope_denied');
    expectError(await admin.post('/v1/credit_checkouts', { pack: 5 }), 403, 'permission_error', 'scope_denied');
  });
});

describe('balance and checkouts', () => {
  test('a new owner starts with the free allowance', async () => {
    expect(ok(await ses.get('/v1/credits'))).toEqual({
      object: 'credit_balance',
      livemode: true,
      free_remaining: FREE_CHECKS_ALLOWANCE,
      paid_balance: 0,
      total_checks: 0,
    });
  });

  test('pack must be 5, 10 or 20', async () => {
    expectError(await ses.post('/v1/credit_checkouts', {}), 400, 'invalid_request', 'parameter_missing', 'pack');
    for (const pack of [0, 7, 15, 100, -5, 5.5, '5', null])
      expectError(await ses.post('/v1/credit_checkouts', { pack }), 400, 'invalid_request', 'parameter_invalid', 'pack');
    expectError(await ses.post('/v1/credit_checkouts', { pack: 5, credits: 5 }), 400, 'invalid_request', 'parameter_unknown', 'credits');
  });

  test('a checkout returns the hosted url and grants nothing; the provider confirmation grants once', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const co = ok(await s.post('/v1/credit_checkouts', { pack: 10 }), 201);
    expect(co).toMatchObject({
      object: 'credit_checkout',
      livemode: true,
      pack: 10,
      amount: { amount: '4500', currency: 'USD', decimals: 2 },
      status: 'open',
      completed_at: null,
    });
    expect(co.id).toMatch(/^cco_/);
    expect(co.url).toMatch(new RegExp(`^${process.env.PAYER_HOST}/sandbox/checkout/cs_sbx_`));
    expect(Date.parse(co.expires_at)).toBeGreaterThan(Date.now());
    expect(ok(await s.get('/v1/credits')).paid_balance).toBe(0);
    expect(ok(await s.get('/v1/credit_events')).data).toEqual([]);

    const first = ok(await sim(co.id, 'complete'));
    expect(first).toMatchObject({ outcome: 'paid', granted: true, checkout: { id: co.id, status: 'completed' } });
    const again = ok(await sim(co.id, 'complete'));
    expect(again).toMatchObject({ outcome: 'paid', granted: false, checkout: { status: 'completed' } });
    expect(ok(await s.get('/v1/credits'))).toMatchObject({ free_remaining: FREE_CHECKS_ALLOWANCE, paid_balance: 10, total_checks: 0 });

    const ledger = ok(await s.get('/v1/credit_events'));
    expect(ledger).toMatchObject({ object: 'list', has_more: false, next_cursor: null, events_total: 1 });
    expect(ledger.data).toHaveLength(1);
    expect(ledger.data[0]).toMatchObject({
      object: 'credit_event',
      type: 'purchase',
      credits: 10,
      paid_balance: 10,
      free_remaining: FREE_CHECKS_ALLOWANCE,
      checkout_id: co.id,
    });
    expect(ledger.data[0].id).toMatch(/^cev_/);

    const outbox = await db().query(
      `SELECT type, object_id, related_object_ids, data FROM events WHERE account_id = $1 AND type LIKE 'credit.%'`,
      [acct.account_id],
    );
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ type: 'credit.purchased', object_id: ledger.data[0].id, related_object_ids: [co.id] });
    expect(outbox[0].data.object).toMatchObject({ type: 'purchase', credits: 10 });
  });

  test('concurrent confirmations grant once', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const co = ok(await s.post('/v1/credit_checkouts', { pack: 20 }), 201);
    const results = await Promise.all([1, 2, 3, 4].map(() => sim(co.id, 'complete')));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results.filter((r) => r.body.granted)).toHaveLength(1);
    expect(ok(await s.get('/v1/credits')).paid_balance).toBe(20);
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM credit_events WHERE checkout_id = $1`, [co.id]);
    expect(n).toBe(1);
  });

  test('failed, expired and short-paid checkouts grant nothing', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const failed = ok(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    expect(ok(await sim(failed.id, 'fail'))).toMatchObject({ outcome: 'failed', granted: false, checkout: { status: 'failed' } });
    expectError(await sim(failed.id, 'complete'), 409, 'conflict', 'checkout_session_closed');
    const expired = ok(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    expect(ok(await sim(expired.id, 'expire'))).toMatchObject({ outcome: 'expired', granted: false, checkout: { status: 'expired' } });
    expectError(await sim(expired.id, 'complete'), 409, 'conflict', 'checkout_session_closed');
    const short = ok(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    expect(ok(await sim(short.id, 'complete', { amount: '100' }))).toMatchObject({
      outcome: 'paid',
      granted: false,
      checkout: { status: 'failed' },
    });
    const [row] = await db().query('SELECT failure_reason FROM credit_checkouts WHERE id = $1', [short.id]);
    expect(row.failure_reason).toBe('amount_mismatch');
    expect(ok(await s.get('/v1/credits')).paid_balance).toBe(0);
    expect(ok(await s.get('/v1/credit_events')).events_total).toBe(0);
    expectError(await sim('cco_unknown', 'complete'), 404, 'not_found');
  });

  test('Idempotency-Key replays the same checkout', async () => {
    const key = idem();
    const first = ok(await ses.post('/v1/credit_checkouts', { pack: 5 }, { idem: key }), 201);
    const again = await ses.post('/v1/credit_checkouts', { pack: 5 }, { idem: key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.id);
    expectError(await ses.post('/v1/credit_checkouts', { pack: 10 }, { idem: key }), 409, 'idempotency_error');
  });
});

describe('ledger', () => {
  test('consumption spends free then paid, refunds once, records insufficient; list pages newest first with events_total', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const ctx = systemScope(acct.account_id, true);
    const firstFree = await consumeCheck(ctx, { relatedObjectId: 'scr_report1', cached: false });
    expect(firstFree).toMatchObject({ type: 'consume_free', credits: -1, free_remaining: FREE_CHECKS_ALLOWANCE - 1, total_checks: 1 });
    for (let i = 1; i < FREE_CHECKS_ALLOWANCE; i++) await consumeCheck(ctx, { relatedObjectId: `scr_report${i + 1}`, cached: false });
    expect((await consumeCheck(ctx, { relatedObjectId: 'scr_cached', cached: true })).type).toBe('cache_hit');
    expect((await consumeCheck(ctx, { relatedObjectId: 'scr_none', cached: false })).type).toBe('insufficient');
    const co = ok(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    ok(await sim(co.id, 'complete'));
    const paid = await consumeCheck(ctx, { relatedObjectId: 'scr_paid', cached: false });
    expect(paid).toMatchObject({ type: 'consume_paid', paid_balance: 4, free_remaining: 0, total_checks: FREE_CHECKS_ALLOWANCE + 1 });
    const refund = await refundCheck(ctx, { id: paid.id });
    expect(refund).toMatchObject({
      type: 'refund',
      credits: 1,
      paid_balance: 5,
      total_checks: FREE_CHECKS_ALLOWANCE,
      related_object_id: 'scr_paid',
    });
    await expect(refundCheck(ctx, { id: paid.id })).rejects.toMatchObject({ code: 'credit_already_refunded' });
    await expect(refundCheck(ctx, { id: refund.id })).rejects.toBeInstanceOf(DomainError);
    expect(ok(await s.get('/v1/credits'))).toEqual({
      object: 'credit_balance',
      livemode: true,
      free_remaining: 0,
      paid_balance: 5,
      total_checks: FREE_CHECKS_ALLOWANCE,
    });

    const total = FREE_CHECKS_ALLOWANCE + 5; // consumptions, cache hit, insufficient, purchase, paid consume, refund
    const all = ok(await s.get('/v1/credit_events?limit=100'));
    expect(all.events_total).toBe(total);
    expect(all.data).toHaveLength(total);
    expect(all.data.slice(0, 4).map((e: { type: string }) => e.type)).toEqual(['refund', 'consume_paid', 'purchase', 'insufficient']);
    const p1 = ok(await s.get('/v1/credit_events?limit=3'));
    expect(p1.has_more).toBe(true);
    const p2 = ok(await s.get(`/v1/credit_events?limit=3&cursor=${encodeURIComponent(p1.next_cursor)}`));
    expect(p2.data[0].id).toBe(all.data[3].id);
    expect(p2.events_total).toBe(total);
    const purchases = ok(await s.get('/v1/credit_events?type=purchase'));
    expect(purchases.data.map((e: { checkout_id: string }) => e.checkout_id)).toEqual([co.id]);
    expect(purchases.events_total).toBe(total);
    expectError(await s.get('/v1/credit_events?type=gift'), 400, 'invalid_request', 'parameter_invalid', 'type');
    const consumed = await db().query(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'credit.consumed'`, [
      acct.account_id,
    ]);
    expect(consumed[0].n).toBe(FREE_CHECKS_ALLOWANCE + 1);
  });

  test("the balance is the owner's own: another owner sees nothing of it", async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    expect(ok(await s.get('/v1/credit_events'))).toMatchObject({ data: [], events_total: 0 });
    expect(ok(await s.get('/v1/credits')).paid_balance).toBe(0);
  });
});

describe('declared response schemas', () => {
  test('every success body matches the response schema of its operation', async () => {
    const strict = (v: unknown, schema: { validate: (v: unknown, o: object) => { error?: Error } }) => {
      const { error } = schema.validate(v, { allowUnknown: false });
      if (error) throw new Error(`${error.message}: ${JSON.stringify(v)}`);
    };
    const acct = await newAccount();
    const s = client(acct.session_token);
    strict(ok(await s.get('/v1/credits')), creditBalanceOut);
    const co = ok(await s.post('/v1/credit_checkouts', { pack: 20 }), 201);
    strict(co, creditCheckoutOut);
    ok(await sim(co.id, 'complete'));
    strict(ok(await s.get('/v1/credit_events')), creditEventListOut);
  });
});
