/**
 * One workflow per webhook endpoint (issue 17): the drain takes an endpoint's live deliveries in
 * creation order (activities/webhooks/drain.ts). This partial index holds only live rows
 * (`pending`, `retrying`), so it stays small however many final deliveries accumulate.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookEndpointDrain1764480000000 implements MigrationInterface {
  name = 'WebhookEndpointDrain1764480000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS webhook_deliveries_live_idx ON webhook_deliveries(endpoint_id, created_at, id) WHERE status IN ('pending', 'retrying')`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS webhook_deliveries_live_idx');
  }
}
