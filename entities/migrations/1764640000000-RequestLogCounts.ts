/**
 * `GET /request_logs?expand=summary` without a scan of the account's request logs
 * (docs/decisions/0077-lists-and-summaries-that-stay-flat.md, "Request logs").
 *
 * `request_log_counts`: rows per (account, mode, API key or '' for none, method, exact status, UTC
 * hour). The batch insert (activities/request-logs/commands.ts) adds to them in the same statement,
 * from the rows it actually inserted (`RETURNING`, so a replayed batch adds nothing); housekeeping
 * deletes a day's counts when it drops that day's partition (activities/housekeeping/partitions.ts).
 * Unauthenticated requests (no account) are not counted: no summary reads them. Backfilled here.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class RequestLogCounts1764640000000 implements MigrationInterface {
  name = 'RequestLogCounts1764640000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE request_log_counts (
        account_id text NOT NULL,
        livemode boolean NOT NULL,
        api_key_id text NOT NULL,
        method text NOT NULL,
        status integer NOT NULL,
        hour timestamptz NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, livemode, hour, api_key_id, method, status)
      )`);
    // Housekeeping deletes the hours of dropped partitions by this index.
    await runner.query('CREATE INDEX request_log_counts_hour_idx ON request_log_counts(hour)');
    // The backfill and the batch inserts see the same rows: no request log is written between them.
    await runner.query('LOCK TABLE request_logs IN SHARE ROW EXCLUSIVE MODE');
    await runner.query(`
      INSERT INTO request_log_counts (account_id, livemode, api_key_id, method, status, hour, n)
      SELECT account_id, livemode, coalesce(api_key_id, ''), method, status, date_trunc('hour', created_at, 'UTC'), count(*)
        FROM request_logs WHERE account_id IS NOT NULL AND livemode IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS request_log_counts');
  }
}
