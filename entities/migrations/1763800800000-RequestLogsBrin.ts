/**
 * `request_logs` is append-only and written on every `/v1` request (spec 4.10 request logs), in
 * roughly `created_at` order: the retention prune (activities/housekeeping.ts, `created_at <
 * cutoff`) needs only block ranges, so the B-tree on `created_at` becomes a BRIN index, which costs
 * almost nothing per insert (bench/README.md "Reads"). Listing and key usage keep their B-trees.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class RequestLogsBrin1763800800000 implements MigrationInterface {
  name = 'RequestLogsBrin1763800800000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX IF EXISTS request_logs_created_idx');
    await runner.query('CREATE INDEX request_logs_created_brin ON request_logs USING brin (created_at)');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX IF EXISTS request_logs_created_brin');
    await runner.query('CREATE INDEX request_logs_created_idx ON request_logs (created_at)');
  }
}
