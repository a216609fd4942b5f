/**
 * What the chaos harness (issue 28, `npm run chaos`) found, pinned by HTTP tests against the running
 * product: an idempotency claim left `in_progress` by a request that died with its process (or lost
 * the database) answers `409 idempotency_failed` once its lease has passed (it may have taken effect:
 * never run twice), while a fresh claim still answers `409 idempotency_key_in_use`; and a rail's report
 * delivered again (its first delivery lost) answers 200 unchanged, so the product hears it again.
 */
import crypto from 'node:crypto';
import { db } from '../../lib/db';
import { CLAIM_LEASE_SECONDS, requestHash } from '../../lib/idempotency';
import { call, connectDb, newAccount } from '../helpers/api';

beforeAll(async () => {
  await connectDb();
});

/** What a request killed inside its handler leaves behind: its claim, in progress, `ageSeconds` old. */
async function strandedClaim(accountId: string, route: string, key: string, body: unknown, ageSeconds: number): Promise<void> {
  await db().query(
    `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, created_at)
     VALUES ($1, $2, $3, true, $4, 'in_progress', now() - make_interval(secs => $5))`,
    [accountId, route, key, requestHash(body), ageSeconds],
  );
}

test('a claim stranded past its lease is never run again: the retry and every later one answer 409 idempotency_failed, no object is made', async () => {
  const acct = await newAccount();
  const body = { display_name: 'Lease Co', email: 'lease@example.com' };
  const key = `lease_${crypto.randomBytes(12).toString('hex')}`;
  await strandedClaim(acct.account_id, 'live:POST /v1/clients', key, body, CLAIM_LEASE_SECONDS + 5);
  const first = await call('POST', '/v1/clients', body, { key: acct.live_key, idem: key });
  expect([first.status, first.body.error.type, first.body.error.code, first.body.error.param]).toEqual([
    409,
    'idempotency_error',
    'idempotency_failed',
    'Idempotency-Key',
  ]);
  const again = await call('POST', '/v1/clients', body, { key: acct.live_key, idem: key });
  expect([again.status, again.body.error.code]).toEqual([409, 'idempotency_failed']);
  const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM clients WHERE account_id = $1`, [acct.account_id]);
  expect(n).toBe(0);
  // Reconciled (nothing was made), the client retries under a new key.
  const fresh = await call('POST', '/v1/clients', body, { key: acct.live_key, idem: `lease_${crypto.randomBytes(12).toString('hex')}` });
  expect(fresh.status).toBe(201);
}, 60_000);

test('a claim still inside its lease is not taken over: 409 idempotency_key_in_use after the wait', async () => {
  const acct = await newAccount();
  const body = { display_name: 'Busy Co' };
  const key = `busy_${crypto.randomBytes(12).toString('hex')}`;
  await strandedClaim(acct.account_id, 'live:POST /v1/clients', key, body, 0);
  const r = await call('POST', '/v1/clients', body, { key: acct.live_key, idem: key });
  expect([r.status, r.body.error.code]).toEqual([409, 'idempotency_key_in_use']);
  const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM clients WHERE account_id = $1`, [acct.account_id]);
  expect(n).toBe(0);
}, 60_000);

test('a rail report delivered twice: the second answers 200 and changes nothing', async () => {
  const ref = `po_dup${crypto.randomBytes(8).toString('hex')}`;
  const id = `rp_${crypto.randomBytes(8).toString('hex')}`;
  await db().query(
    `INSERT INTO sandbox_rail_payments(id, idempotency_key, client_reference, rail, currency, amount_minor, state, provider_reference)
     VALUES ($1, $2, $3, 'ach', 'USD', 1000, 'submitted', $4)`,
    [id, `submit:${ref}`, ref, `PRV${id}`],
  );
  const first = await call('POST', `/sim/providers/fiat_rails/payments/${ref}`, { state: 'paid' }, { idem: null });
  expect([first.status, first.body.state]).toEqual([200, 'paid']);
  const again = await call('POST', `/sim/providers/fiat_rails/payments/${ref}`, { state: 'paid' }, { idem: null });
  expect([again.status, again.body.state, again.body.paid_amount]).toEqual([200, 'paid', '1000']);
  // A move the rail cannot make is still refused.
  const fail = await call('POST', `/sim/providers/fiat_rails/payments/${ref}`, { state: 'failed' }, { idem: null });
  expect([fail.status, fail.body.error.code]).toEqual([409, 'sim_transition_refused']);
});
