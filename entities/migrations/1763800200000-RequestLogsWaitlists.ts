/**
 * Request logs (spec 4.10 `GET /request_logs`, `GET /api_keys/{id}/usage`) and product waitlists
 * (`POST /webhook_waitlist`, `/card_waitlist`).
 *
 * `request_logs` is written in batches by the API's in-memory buffer (api/middleware/request-log.ts),
 * never per request; it holds no bodies. `account_id` is null for requests that never authenticated.
 * Rows older than 30 days are purged by housekeeping.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class RequestLogsWaitlists1763800200000 implements MigrationInterface {
  name = 'RequestLogsWaitlists1763800200000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE request_logs (
        id text PRIMARY KEY,
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
        created_at timestamptz NOT NULL
      );
      CREATE INDEX request_logs_account_idx ON request_logs(account_id, created_at DESC, id DESC) WHERE account_id IS NOT NULL;
      CREATE INDEX request_logs_key_idx ON request_logs(api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;
      CREATE INDEX request_logs_created_idx ON request_logs(created_at);

      CREATE TABLE waitlist_entries (
        account_id text NOT NULL REFERENCES accounts(id),
        waitlist text NOT NULL CHECK (waitlist IN ('webhooks','cards')),
        email text NOT NULL,
        use_case text,
        joined_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        PRIMARY KEY (account_id, waitlist)
      );
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS waitlist_entries, request_logs');
  }
}
