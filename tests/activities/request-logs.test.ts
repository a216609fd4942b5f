/**
 * Activity tier, request logs (activities/request-logs; no workflow activities: the batch insert
 * and the reads run directly on real PostgreSQL). Proves a retried batch never duplicates, the
 * filters and status-class summary, the test-mode boundary (a test key sees only test rows; asking
 * for live ones is 400 livemode_boundary) and one key's usage figures.
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { insertRequestLogs, type RequestLogRow } from '../../activities/request-logs/commands';
import { apiKeyUsage, requestLogsQuery, requestLogSummary, requestLogSummaryByScan } from '../../activities/request-logs/queries';
import { newId } from '../../lib/ids';
import { db } from '../../lib/db';
import { count, describeWithDb, keyCaller, rejection, useActivityTier } from '../helpers/activity-env';

function logRow(accountId: string, keyId: string, o: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: newId('req_'),
    account_id: accountId,
    livemode: true,
    caller_type: 'business_key',
    api_key_id: keyId,
    user_id: null,
    method: 'GET',
    path: '/v1/payouts',
    status: 200,
    latency_ms: 10,
    idempotency_key: null,
    error_type: null,
    error_code: null,
    api_version: '2026-09-04',
    ip: '127.0.0.1',
    created_at: new Date(),
    ...o,
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
    // The summary's counts were added once, from the rows inserted.
    expect(await db().query('SELECT status, n::int FROM request_log_counts WHERE account_id = $1 ORDER BY status', [a.accountId])).toEqual([
      { status: 200, n: 1 },
      { status: 404, n: 1 },
    ]);
  });

  test('the summary from hourly counts equals the scan for every filter, windows with part hours at both edges included', async () => {
    const a = await account();
    const b = await account();
    const H = 3_600_000;
    const base = Math.floor(Date.now() / H) * H - 30 * H;
    const at = (h: number, m: number) => new Date(base + h * H + m * 60_000);
    const rows: RequestLogRow[] = [];
    const statuses = [200, 201, 302, 400, 404, 409, 500, 503, 101];
    for (let i = 0; i < 90; i++) {
      rows.push(
        logRow(a.accountId, i % 3 === 0 ? a.keyId : b.keyId, {
          status: statuses[i % statuses.length],
          method: i % 4 === 0 ? 'POST' : 'GET',
          livemode: i % 5 !== 0,
          path: i % 2 ? '/v1/payouts' : '/v1/payment_links',
          created_at: at(Math.floor(i / 4), (i * 7) % 60),
        }),
      );
    }
    rows.push(
      logRow(b.accountId, b.keyId, { created_at: at(3, 10) }),
      logRow(a.accountId, a.keyId, { account_id: null, created_at: at(3, 10) }),
    );
    await insertRequestLogs(rows);
    const live = keyCaller(a.accountId, true);
    const test = keyCaller(a.accountId, false);
    const iso = (d: Date) => d.toISOString();
    const filters = [
      {},
      { livemode: true },
      { livemode: false },
      { api_key: a.keyId },
      { method: 'POST' },
      { status: '4xx' },
      { status: 503 },
      { status: '1xx' },
      { since: iso(at(2, 30)) },
      { until: iso(at(7, 15)) },
      { since: iso(at(2, 30)), until: iso(at(7, 15)) },
      { since: iso(at(3, 0)), until: iso(at(6, 0)) },
      { since: iso(at(4, 10)), until: iso(at(4, 50)) },
      { since: iso(at(4, 10)), until: iso(at(5, 50)) },
      { since: iso(at(9, 0)), until: iso(at(2, 0)) },
      { method: 'GET', status: '2xx', since: iso(at(1, 45)), until: iso(at(20, 5)), api_key: b.keyId },
      { path: '/v1/payouts', since: iso(at(2, 30)) },
    ];
    for (const f of filters) {
      for (const scope of [live, test]) {
        if (scope === test && 'livemode' in f && f.livemode === true) continue;
        expect({ f, live: scope.livemode, got: await requestLogSummary(scope, f) }).toEqual({
          f,
          live: scope.livemode,
          got: await requestLogSummaryByScan(requestLogsQuery(scope, f)),
        });
      }
    }
    expect((await requestLogSummary(live, {})).total).toBe(90);
  });

  test('filters by status class and path, with the summary by class; a test-mode caller sees only test rows and may not ask for live ones', async () => {
    const a = await account();
    await insertRequestLogs([
      logRow(a.accountId, a.keyId, { status: 201, method: 'POST' }),
      logRow(a.accountId, a.keyId, { status: 404 }),
      logRow(a.accountId, a.keyId, { status: 409, path: '/v1/payment_links' }),
      logRow(a.accountId, a.keyId, { status: 500, livemode: false }),
    ]);
    const live = keyCaller(a.accountId, true);
    expect(await requestLogSummary(live, {})).toEqual({ total: 4, by_status_class: { '2xx': 1, '3xx': 0, '4xx': 2, '5xx': 1 } });
    expect(await requestLogsQuery(live, { status: '4xx', path: '/v1/payouts' }).getCount()).toBe(1);
    const test = keyCaller(a.accountId, false);
    expect((await requestLogsQuery(test, {}).getMany()).map((r) => r.status)).toEqual([500]);
    expect(rejectionSync(() => requestLogsQuery(test, { livemode: true }))).toMatchObject({ code: 'livemode_boundary' });
  });

  test("apiKeyUsage: totals, classes and latency percentiles of one key; another account's key is 404", async () => {
    const a = await account();
    await insertRequestLogs(
      [10, 20, 30, 400].map((ms, i) => logRow(a.accountId, a.keyId, { latency_ms: ms, status: i === 3 ? 502 : 200 })),
    );
    const u = await apiKeyUsage(keyCaller(a.accountId), { id: a.keyId, days: 7 });
    expect(u).toMatchObject({ total: 4, classes: { '2xx': 3, '5xx': 1 }, p50: 20, p95: 400 });
    expect(u.daily.reduce((s, d) => s + d.errors, 0)).toBe(1);
    const b = await account();
    expect(await rejection(apiKeyUsage(keyCaller(b.accountId), { id: a.keyId, days: 7 }))).toMatchObject({ type: 'not_found' });
  });
});

function rejectionSync(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a throw');
}
