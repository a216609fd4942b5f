/** Housekeeping (spec 8): idempotency records are forgotten after 24 h; ended rate-limit windows are dropped. */
import { purgeExpired } from '../../activities/housekeeping/purge';
import { db } from '../../lib/db';
import { connectDb, newAccount } from '../helpers/api';

test('purges idempotency records past 24 h and expired rate-limit rows, keeping live ones', async () => {
  await connectDb();
  const acct = await newAccount();
  const insert = (key: string, age: string) =>
    db().query(
      `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, created_at)
     VALUES ($1, 'live:POST /v1/x', $2, true, 'h', 'completed', now() - $3::interval)`,
      [acct.account_id, key, age],
    );
  await insert('old_key_aaaaaaaaaaaaaa', '25 hours');
  await insert('new_key_aaaaaaaaaaaaaa', '1 hour');
  await db().query(`INSERT INTO rate_limits(key, points, expire) VALUES ('hk:old', 3, $1), ('hk:live', 3, $2)`, [
    Date.now() - 3_600_000,
    Date.now() + 60_000,
  ]);
  const r = await purgeExpired();
  expect(r.idempotency).toBeGreaterThanOrEqual(1);
  expect(r.rateLimits).toBeGreaterThanOrEqual(1);
  const keys = (await db().query('SELECT key FROM idempotency_records WHERE account_id = $1', [acct.account_id])).map(
    (x: { key: string }) => x.key,
  );
  expect(keys).toEqual(['new_key_aaaaaaaaaaaaaa']);
  const rl = (await db().query(`SELECT key FROM rate_limits WHERE key LIKE 'hk:%'`)).map((x: { key: string }) => x.key);
  expect(rl).toEqual(['hk:live']);
});
