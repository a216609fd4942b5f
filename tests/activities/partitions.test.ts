/**
 * Activity tier, the partition manager (activities/housekeeping/partitions.ts; no workflow
 * activities: `maintainPartitions` runs directly on real PostgreSQL; decision 0078). Proves that
 * the manager creates the daily partitions ahead; that a row older than its retention goes by a
 * partition drop (the partition's table is gone, a younger row stays); that a row far in the past
 * or the future lands in the default partition (so its insert never fails), the past one then
 * going by a drop and the future one waiting there; and that `GET /request_logs`'s query and the
 * delivery attempt read answer across partitions as before, the latter reading one partition.
 *
 * It only drops partitions already past retention and an empty future one, which the shared
 * stack's worker treats the same way, so other files running alongside are not disturbed.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import {
  maintainPartitions,
  PARTITION_DAYS_AHEAD,
  PARTITIONED_TABLES,
  partitionName,
  WEBHOOK_ATTEMPT_RETENTION_DAYS,
} from '../../activities/housekeeping/partitions';
import { insertRequestLogs, type RequestLogRow } from '../../activities/request-logs/commands';
import { requestLogsQuery } from '../../activities/request-logs/queries';
import { getDeliveryWithAttempts } from '../../activities/webhooks/queries';
import { recordAttempts } from '../../activities/webhooks/record';
import { REQUEST_LOG_RETENTION_DAYS } from '../../domain/request-logs';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { encrypt } from '../../lib/secrets';
import { count, describeWithDb, keyCaller, useActivityTier } from '../helpers/activity-env';

const DAY = 86_400_000;
const [REQUEST_LOGS, WEBHOOK_ATTEMPTS] = PARTITIONED_TABLES;
const today = () => Math.floor(Date.now() / DAY) * DAY;

function logRow(accountId: string, o: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: newId('req_'),
    account_id: accountId,
    livemode: true,
    caller_type: 'business_key',
    api_key_id: null,
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

/** The partition holding request log `id`. */
async function whereIs(table: string, id: string): Promise<string | undefined> {
  const rows: Array<{ part: string }> = await db().query(`SELECT tableoid::regclass::text AS part FROM ${table} WHERE id = $1`, [id]);
  return rows[0]?.part;
}

const tableExists = async (name: string) => (await db().query('SELECT 1 FROM pg_class WHERE relname = $1', [name])).length === 1;
const partitionsOf = async (table: string): Promise<string[]> =>
  (
    await db().query('SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass', [table])
  ).map((r: { relname: string }) => r.relname);

/** A webhook endpoint, event and delivery of a fresh account, the delivery created `ageMs` ago. */
async function delivery(ageMs = 0) {
  const creds = await provisionAccount();
  const endpointId = newId('whe_');
  const eventId = newId('evt_');
  const deliveryId = newId('whd_');
  const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  await db().query(
    `INSERT INTO webhook_endpoints(id, account_id, livemode, url, event_types, enabled, secret_ciphertext, secret_prefix)
     VALUES ($1,$2,true,'https://example.com/hook','{payment_link.paid}',true,$3,$4)`,
    [endpointId, creds.account_id, encrypt(secret), secret.slice(0, 10)],
  );
  await db().query(
    `INSERT INTO events(id, account_id, livemode, type, object_type, object_id, data, api_version, dispatched_at)
     VALUES ($1,$2,true,'payment_link.paid','payment_link','pl_partitions',$3,'2026-09-04', now())`,
    [eventId, creds.account_id, JSON.stringify({ object: { id: 'pl_partitions', object: 'payment_link', status: 'paid' } })],
  );
  await db().query(
    `INSERT INTO webhook_deliveries(id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt_count, workflow_started_at, created_at)
     VALUES ($1,$2,true,$3,$4,'payment_link.paid','pending',0, now(), $5)`,
    [deliveryId, creds.account_id, endpointId, eventId, new Date(Date.now() - ageMs)],
  );
  return { accountId: creds.account_id, endpointId, deliveryId };
}

const attempt = (deliveryId: string, n: number, statusCode: number) => ({
  id: newId('wha_'),
  deliveryId,
  attempt: n,
  finishedAtMs: Date.now(),
  http: {
    statusCode,
    error: statusCode === 200 ? null : `http_status_${statusCode}`,
    latencyMs: 4,
    excerpt: 'ok',
    retryable: statusCode !== 200,
  },
});

describeWithDb('partition manager', () => {
  useActivityTier();

  test('creates the partitions of today and the days ahead, again when one is missing', async () => {
    const last = partitionName('request_logs', today() + PARTITION_DAYS_AHEAD * DAY);
    await maintainPartitions(REQUEST_LOGS);
    // The furthest partition is empty: take it away and let the manager make it again.
    await db().query(`ALTER TABLE request_logs DETACH PARTITION ${last}`);
    await db().query(`DROP TABLE ${last}`);
    const r = await maintainPartitions(REQUEST_LOGS);
    expect(r.created).toEqual([last]);
    for (const t of PARTITIONED_TABLES) {
      const parts = await partitionsOf(t.table);
      expect(parts).toContain(`${t.table}_default`);
      for (let d = 0; d <= PARTITION_DAYS_AHEAD; d++) expect(parts).toContain(partitionName(t.table, today() + d * DAY));
    }
    // A row of the last day ahead lands in its own partition, not the default one.
    const a = await provisionAccount();
    const row = logRow(a.account_id, { created_at: new Date(today() + PARTITION_DAYS_AHEAD * DAY + 3_600_000) });
    await insertRequestLogs([row]);
    expect(await whereIs('request_logs', row.id)).toBe(last);
  });

  test('a request log older than retention goes by a partition drop; a younger one stays', async () => {
    const a = await provisionAccount();
    const old = logRow(a.account_id, { created_at: new Date(Date.now() - (REQUEST_LOG_RETENTION_DAYS + 3) * DAY) });
    const young = logRow(a.account_id, { created_at: new Date(Date.now() - (REQUEST_LOG_RETENTION_DAYS - 1) * DAY) });
    await insertRequestLogs([old, young]);
    const oldPart = partitionName('request_logs', Math.floor(old.created_at.getTime() / DAY) * DAY);
    // Older than any partition the manager keeps: the default partition took it.
    expect(await whereIs('request_logs', old.id)).toBe('request_logs_default');

    const r = await maintainPartitions(REQUEST_LOGS);
    expect(r.dropped).toContain(oldPart);
    expect(r.rowsDropped).toBeGreaterThanOrEqual(1);
    expect(await tableExists(oldPart)).toBe(false);
    expect(await count('request_logs', 'id = ANY($1)', [[old.id, young.id]])).toBe(1);
    expect(await whereIs('request_logs', young.id)).toBe(partitionName('request_logs', Math.floor(young.created_at.getTime() / DAY) * DAY));
    // Its hour's count went with it (the summary's counts, migration 1764640000000); the younger row's stays.
    const counted = async () =>
      (await db().query('SELECT hour FROM request_log_counts WHERE account_id = $1 ORDER BY hour', [a.account_id])).map(
        (x: { hour: Date }) => x.hour.getTime(),
      );
    expect(await counted()).toEqual([Math.floor(young.created_at.getTime() / 3_600_000) * 3_600_000]);
  });

  test('rows far in the past or the future land in the default partition: the past one then goes by a drop, the future one waits there', async () => {
    const a = await provisionAccount();
    const past = logRow(a.account_id, { created_at: new Date('2001-02-03T04:05:06Z') });
    const future = logRow(a.account_id, { created_at: new Date(Date.now() + 400 * DAY) });
    await insertRequestLogs([past, future]);
    expect(await whereIs('request_logs', past.id)).toBe('request_logs_default');
    expect(await whereIs('request_logs', future.id)).toBe('request_logs_default');

    const r = await maintainPartitions(REQUEST_LOGS);
    expect(r.dropped).toContain('request_logs_p20010203');
    expect(await whereIs('request_logs', past.id)).toBeUndefined();
    expect(await whereIs('request_logs', future.id)).toBe('request_logs_default');
    expect(r.defaultRows).toBeGreaterThanOrEqual(1);
    // (Cleanup: the future row would otherwise wait in the test database's default partition for 400 days.)
    await db().query('DELETE FROM request_logs_default WHERE id = $1', [future.id]);
  });

  test("GET /request_logs's query reads across daily partitions, newest first, with since/until", async () => {
    const a = await provisionAccount();
    const at = (daysAgo: number) => new Date(today() - daysAgo * DAY + 12 * 3_600_000);
    const rows = [
      logRow(a.account_id, { created_at: at(0) }),
      logRow(a.account_id, { created_at: at(3), status: 404 }),
      logRow(a.account_id, { created_at: at(10) }),
    ];
    await insertRequestLogs(rows);
    const scope = keyCaller(a.account_id);
    const all = await requestLogsQuery(scope, {}).orderBy('r.created_at', 'DESC').addOrderBy('r.id', 'DESC').getMany();
    expect(all.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    const window = await requestLogsQuery(scope, { since: at(5).toISOString(), until: at(1).toISOString() }).getMany();
    expect(window.map((r) => [r.id, r.status])).toEqual([[rows[1].id, 404]]);
  });

  test("delivery attempts: written to their delivery's partition, read back in order from that partition only; an old delivery's attempts go by a drop", async () => {
    const d = await delivery();
    await recordAttempts(d.endpointId, [attempt(d.deliveryId, 1, 503)]);
    const second = attempt(d.deliveryId, 2, 200);
    await recordAttempts(d.endpointId, [second]);
    await recordAttempts(d.endpointId, [second]); // a retried write: recognised by its id
    const got = await getDeliveryWithAttempts(keyCaller(d.accountId), { id: d.deliveryId });
    expect(got.delivery.status).toBe('succeeded');
    expect(got.attempts.map((x) => [x.attempt_number, x.status_code])).toEqual([
      [1, 503],
      [2, 200],
    ]);
    expect(await whereIs('webhook_attempts', got.attempts[0].id)).toBe(partitionName('webhook_attempts', today()));
    const plan: Array<{ 'QUERY PLAN': string }> = await db().query(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM webhook_attempts a
        WHERE a.delivery_id = $1 AND a.delivery_created_at = (SELECT d.created_at FROM webhook_deliveries d WHERE d.id = $1)`,
      [d.deliveryId],
    );
    // Every partition's scan is in the plan; only the delivery's partition is executed (run-time pruning).
    const scans = plan.map((p) => p['QUERY PLAN']).filter((l) => /->.* on webhook_attempts_/.test(l));
    expect(scans.length).toBeGreaterThan(1);
    expect(scans.filter((l) => !l.includes('never executed'))).toHaveLength(1);

    const old = await delivery((WEBHOOK_ATTEMPT_RETENTION_DAYS + 2) * DAY);
    await recordAttempts(old.endpointId, [attempt(old.deliveryId, 1, 200)]);
    expect(await count('webhook_attempts', 'delivery_id = $1', [old.deliveryId])).toBe(1);
    const r = await maintainPartitions(WEBHOOK_ATTEMPTS);
    expect(r.rowsDropped).toBeGreaterThanOrEqual(1);
    expect(await count('webhook_attempts', 'delivery_id = $1', [old.deliveryId])).toBe(0);
    expect((await getDeliveryWithAttempts(keyCaller(old.accountId), { id: old.deliveryId })).attempts).toEqual([]);
    expect(await count('webhook_attempts', 'delivery_id = $1', [d.deliveryId])).toBe(2);
  });
});
