/**
 * Activity tier, request logs (activities/request-logs; no workflow activities: the batch insert
 * and the reads run directly on real PostgreSQL). Proves a retried batch never duplicates, the
 * filters and status-class summary, the test-mode boundary (a test key sees only test rows; asking
 * for live ones is 400 livemode_boundary) and one key's usage figures.
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { insertRequestLogs, type RequestLogRow } from '../../activities/request-logs/commands';
import { apiKeyUsage, requestLogsQuery, requestLogSummary } from '../../activities/request-logs/queries';
import { newId } from '../../lib/ids';
import { db } from '../../lib/db';
import { count, describeWithDb, keyCaller, rejection, useActivityTier } from '../helpers/activity-env';

function logRow(accountId: string, keyId: string, o: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: newId('req_'), account_id: accountId, livemode: true, caller_type: 'business_key', api_key_id: keyId, user_id: null, method: 'GET',
    path: '/v1/payouts', status: 200, latency_ms: 10, idempotency_key: null, error_type: null, error_code: null, api_version: '2026-09-04', ip: '127.0.0.1',
    created_at: new Date(), ...o,
  };
}

async function account() {
  const creds = await provisionAccount();
  const [key] = await db().query('SELECT id FROM api_keys WHERE account_id = $1 AND livemode = true', [creds.account_id]);
  return { accountId: creds.account_id, keyId: key.id as string };
}

describeWithDb('request log commands and reads', () => {
  useActivityTier();

  test('a retried batch (same ids) is written once', async () => {
    const a = await account();
    const rows = [logRow(a.accountId, a.keyId), logRow(a.accountId, a.keyId, { status: 404 })];
    await insertRequestLogs(rows);
    await insertRequestLogs(rows);
    expect(await count('request_logs', 'account_id = $1', [a.accountId])).toBe(2);
  });

  test('filters by status class and path, with the summary by class; a test-mode caller sees only test rows and may not ask for live ones', async () => {
    const a = await account();
    await insertRequestLogs([
      logRow(a.accountId, a.keyId, { status: 201, method: 'POST' }), logRow(a.accountId, a.keyId, { status: 404 }), logRow(a.accountId, a.keyId, { status: 409, path: '/v1/payment_links' }),
      logRow(a.accountId, a.keyId, { status: 500, livemode: false }),
    ]);
    const live = keyCaller(a.accountId, true);
    expect(await requestLogSummary(requestLogsQuery(live, {}))).toEqual({ total: 4, by_status_class: { '2xx': 1, '3xx': 0, '4xx': 2, '5xx': 1 } });
    expect(await requestLogsQuery(live, { status: '4xx', path: '/v1/payouts' }).getCount()).toBe(1);
    const test = keyCaller(a.accountId, false);
    expect((await requestLogsQuery(test, {}).getMany()).map((r) => r.status)).toEqual([500]);
    expect(rejectionSync(() => requestLogsQuery(test, { livemode: true }))).toMatchObject({ code: 'livemode_boundary' });
  });

  test('apiKeyUsage: totals, classes and latency percentiles of one key; another account\'s key is 404', async () => {
    const a = await account();
    await insertRequestLogs([10, 20, 30, 400].map((ms, i) => logRow(a.accountId, a.keyId, { latency_ms: ms, status: i === 3 ? 502 : 200 })));
    const u = await apiKeyUsage(keyCaller(a.accountId), { id: a.keyId, days: 7 });
    expect(u).toMatchObject({ total: 4, classes: { '2xx': 3, '5xx': 1 }, p50: 20, p95: 400 });
    expect(u.daily.reduce((s, d) => s + d.errors, 0)).toBe(1);
    const b = await account();
    expect(await rejection(apiKeyUsage(keyCaller(b.accountId), { id: a.keyId, days: 7 }))).toMatchObject({ type: 'not_found' });
  });
});

function rejectionSync(fn: () => unknown): Error & { code?: string } {
  try { fn(); } catch (e) { return e as Error & { code?: string }; }
  throw new Error('expected a throw');
}
