/**
 * Activity tier, housekeeping (activities/housekeeping/purge.ts, the worker's periodic pass; no
 * workflow activities: `purgeExpired` runs directly on real PostgreSQL). Proves what it forgets
 * and what it keeps: idempotency records past their 24-hour replay window, request logs past
 * their 30-day retention and ended rate-limit windows go; younger rows stay. (It removes only
 * expired rows, which the shared stack's worker would remove anyway.)
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { purgeExpired } from '../../activities/housekeeping/purge';
import { IDEMPOTENCY_TTL_SECONDS } from '../../domain/idempotency';
import { REQUEST_LOG_RETENTION_DAYS } from '../../domain/request-logs';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { count, describeWithDb, useActivityTier } from '../helpers/activity-env';

const DAY = 86_400_000;

describeWithDb('housekeeping', () => {
  useActivityTier();

  test('purgeExpired forgets idempotency records older than the replay window and request logs past retention, and keeps the younger ones', async () => {
    const { account_id: acct } = await provisionAccount();
    const idem = (key: string, ageMs: number) =>
      db().query(
        `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, created_at) VALUES ($1,'POST /v1/payouts',$2,true,'h','completed',$3)`,
        [acct, key, new Date(Date.now() - ageMs)],
      );
    await idem('old', IDEMPOTENCY_TTL_SECONDS * 1000 + 60_000);
    await idem('young', IDEMPOTENCY_TTL_SECONDS * 1000 - 60_000);
    const log = (id: string, ageMs: number) =>
      db().query(
        `INSERT INTO request_logs(id, account_id, livemode, method, path, status, latency_ms, created_at) VALUES ($1,$2,true,'GET','/v1/payouts',200,1,$3)`,
        [id, acct, new Date(Date.now() - ageMs)],
      );
    const oldLog = newId('req_');
    const youngLog = newId('req_');
    await log(oldLog, (REQUEST_LOG_RETENTION_DAYS + 1) * DAY);
    await log(youngLog, (REQUEST_LOG_RETENTION_DAYS - 1) * DAY);

    const r = await purgeExpired();
    expect(r.idempotency).toBeGreaterThanOrEqual(1);
    expect(r.requestLogs).toBeGreaterThanOrEqual(1);
    expect(
      (await db().query('SELECT key FROM idempotency_records WHERE account_id = $1', [acct])).map((x: { key: string }) => x.key),
    ).toEqual(['young']);
    expect(await count('request_logs', 'id = ANY($1)', [[oldLog, youngLog]])).toBe(1);
    expect(await count('request_logs', 'id = $1', [youngLog])).toBe(1);

    // A second pass finds nothing of this account left to forget.
    await purgeExpired();
    expect(await count('idempotency_records', 'account_id = $1', [acct])).toBe(1);
  });
});
