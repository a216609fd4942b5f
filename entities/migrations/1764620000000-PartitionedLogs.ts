/**
 * Retention that never stalls writes (docs/decisions/0078-retention-by-partition-drop.md):
 * `request_logs` and `webhook_attempts` become declaratively partitioned tables, one partition per
 * UTC day (`<table>_pYYYYMMDD`, range [day, day + 1)), plus a default partition (`<table>_default`)
 * that catches a row of any day without its partition, so an insert never fails. Retention is a
 * partition drop by the partition manager (activities/housekeeping/partitions.ts); nothing deletes
 * rows.
 *
 * - `request_logs` by `created_at`; primary key `(id, created_at)` (a partitioned table's unique
 *   keys include the partition key; a retried batch carries the same `created_at`, so it still
 *   conflicts). The indexes the reads use are partitioned indexes with their former names:
 *   `request_logs_account_idx` (lists), `request_logs_key_idx` (key usage). The BRIN index on
 *   `created_at` (migration 1763800800000) served only the DELETE-based prune and goes: a day's
 *   partition is its time range, and every index is planned once per partition.
 * - `webhook_attempts` by `delivery_created_at`, the creation time of the attempt's delivery
 *   (new column): every attempt of one delivery is in one partition, so `(delivery_id,
 *   attempt_number, delivery_created_at)` is unique exactly as `(delivery_id, attempt_number)` was
 *   (the writer's ON CONFLICT guard), a delivery's attempts go together, and a delivery's read
 *   prunes to one partition. Primary key `(id, delivery_created_at)`. The foreign key to
 *   `webhook_deliveries` goes: attaching a partition of a table with a foreign key locks the
 *   referenced table against writes (SHARE ROW EXCLUSIVE); the writer inserts attempts through a
 *   join on their delivery, so an attempt of an unknown delivery is never written.
 *
 * Existing rows are copied into the new tables from the first day still inside retention (30
 * days, plus the current day); older rows were past retention and are not copied. Partitions are
 * created from that day to 7 days ahead; the manager keeps the window moving.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

/** Days kept back and ahead when the tables are first partitioned (the manager's own constants match). */
const BACK_DAYS = 31;
const AHEAD_DAYS = 7;

/** SQL creating daily partitions of `table` for the UTC days from `from` (a SQL date expression) to today + AHEAD_DAYS. */
function dailyPartitions(table: string, from: string): string {
  return `DO $$
    DECLARE d date;
    BEGIN
      FOR d IN SELECT generate_series(${from}, (now() AT TIME ZONE 'UTC')::date + ${AHEAD_DAYS}, interval '1 day')::date LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF ${table} FOR VALUES FROM (%L) TO (%L)',
          '${table}_p' || to_char(d, 'YYYYMMDD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
      END LOOP;
    END $$`;
}

export class PartitionedLogs1764620000000 implements MigrationInterface {
  name = 'PartitionedLogs1764620000000';

  public async up(runner: QueryRunner): Promise<void> {
    const start = `(now() AT TIME ZONE 'UTC')::date - ${BACK_DAYS}`;
    await runner.query(`
      ALTER TABLE request_logs RENAME TO request_logs_unpartitioned;
      ALTER INDEX request_logs_pkey RENAME TO request_logs_unpartitioned_pkey;
      ALTER INDEX request_logs_account_idx RENAME TO request_logs_unpartitioned_account_idx;
      ALTER INDEX request_logs_key_idx RENAME TO request_logs_unpartitioned_key_idx;
      ALTER INDEX IF EXISTS request_logs_created_brin RENAME TO request_logs_unpartitioned_created_brin;
      CREATE TABLE request_logs (
        id text NOT NULL,
        account_id text,
        livemode boolean,
        caller_type text,
        api_key_id text,
        user_id text,
        method text NOT NULL,
        path text NOT NULL,
        status integer NOT NULL,
        latency_ms integer NOT NULL,
        idempotency_key text,
        error_type text,
        error_code text,
        api_version text,
        ip text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (id, created_at)
      ) PARTITION BY RANGE (created_at);
      CREATE INDEX request_logs_account_idx ON request_logs(account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL;
      CREATE INDEX request_logs_key_idx ON request_logs(api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;
      CREATE TABLE request_logs_default PARTITION OF request_logs DEFAULT;
    `);
    await runner.query(dailyPartitions('request_logs', start));
    await runner.query(
      `INSERT INTO request_logs SELECT * FROM request_logs_unpartitioned WHERE created_at >= (${start})::timestamp AT TIME ZONE 'UTC'`,
    );
    await runner.query('DROP TABLE request_logs_unpartitioned');

    await runner.query(`
      ALTER TABLE webhook_attempts RENAME TO webhook_attempts_unpartitioned;
      ALTER INDEX webhook_attempts_pkey RENAME TO webhook_attempts_unpartitioned_pkey;
      ALTER INDEX webhook_attempts_delivery_id_attempt_number_key RENAME TO webhook_attempts_unpartitioned_once;
      CREATE TABLE webhook_attempts (
        id text NOT NULL,
        delivery_id text NOT NULL,
        attempt_number integer NOT NULL,
        status_code integer,
        error text,
        latency_ms integer NOT NULL,
        response_excerpt text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        delivery_created_at timestamptz NOT NULL,
        PRIMARY KEY (id, delivery_created_at),
        CONSTRAINT webhook_attempts_once UNIQUE (delivery_id, attempt_number, delivery_created_at)
      ) PARTITION BY RANGE (delivery_created_at);
      CREATE TABLE webhook_attempts_default PARTITION OF webhook_attempts DEFAULT;
    `);
    await runner.query(dailyPartitions('webhook_attempts', start));
    await runner.query(`
      INSERT INTO webhook_attempts(id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt, created_at, delivery_created_at)
      SELECT a.id, a.delivery_id, a.attempt_number, a.status_code, a.error, a.latency_ms, a.response_excerpt, a.created_at, d.created_at
        FROM webhook_attempts_unpartitioned a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.created_at >= (${start})::timestamp AT TIME ZONE 'UTC'`);
    await runner.query('DROP TABLE webhook_attempts_unpartitioned');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE request_logs RENAME TO request_logs_partitioned;
      ALTER INDEX request_logs_pkey RENAME TO request_logs_partitioned_pkey;
      ALTER INDEX request_logs_account_idx RENAME TO request_logs_partitioned_account_idx;
      ALTER INDEX request_logs_key_idx RENAME TO request_logs_partitioned_key_idx;
      CREATE TABLE request_logs (LIKE request_logs_partitioned INCLUDING DEFAULTS);
      ALTER TABLE request_logs ADD PRIMARY KEY (id);
      INSERT INTO request_logs SELECT * FROM request_logs_partitioned ON CONFLICT (id) DO NOTHING;
      DROP TABLE request_logs_partitioned;
      CREATE INDEX request_logs_account_idx ON request_logs(account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL;
      CREATE INDEX request_logs_key_idx ON request_logs(api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;
      CREATE INDEX request_logs_created_brin ON request_logs USING brin (created_at);

      ALTER TABLE webhook_attempts RENAME TO webhook_attempts_partitioned;
      ALTER INDEX webhook_attempts_pkey RENAME TO webhook_attempts_partitioned_pkey;
      ALTER INDEX webhook_attempts_once RENAME TO webhook_attempts_partitioned_once;
      CREATE TABLE webhook_attempts (
        id text PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
        attempt_number integer NOT NULL,
        status_code integer,
        error text,
        latency_ms integer NOT NULL,
        response_excerpt text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        UNIQUE (delivery_id, attempt_number)
      );
      INSERT INTO webhook_attempts SELECT id, delivery_id, attempt_number, status_code, error, latency_ms, response_excerpt, created_at
        FROM webhook_attempts_partitioned ON CONFLICT DO NOTHING;
      DROP TABLE webhook_attempts_partitioned;
    `);
  }
}
