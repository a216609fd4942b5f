/**
 * One workflow per webhook endpoint: the drain takes an endpoint's live deliveries in
 * creation order (activities/webhooks/drain.ts). This partial index holds only live rows
 * (`pending`, `retrying`), so it stays small however many final deliveries accumulate. The sweep
 * now looks for deliveries still `pending` (never attempted) rather than unmarked ones, so the
 * index of unmarked rows gives way to one of pending rows.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookEndpointDrain1764480000000 implements MigrationInterface {
  name = 'WebhookEndpointDrain1764480000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_live_idx ON webhook_deliveries(endpoint_id, created_at, id) WHERE status IN ('pending', 'retrying')`,
    );
    await runner.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_idx ON webhook_deliveries(created_at) WHERE status = 'pending'`,
    );
    await runner.query('DROP INDEX IF EXISTS webhook_deliveries_unstarted_idx');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX IF NOT EXISTS webhook_deliveries_unstarted_idx ON webhook_deliveries(created_at) WHERE workflow_started_at IS NULL',
    );
    await runner.query('DROP INDEX IF EXISTS webhook_deliveries_pending_idx');
    await runner.query('DROP INDEX IF EXISTS webhook_deliveries_live_idx');
  }
}
