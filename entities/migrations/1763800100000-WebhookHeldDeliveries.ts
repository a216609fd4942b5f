/**
 * `webhook_deliveries.held_at`: set while a delivery waits because the `api_v1.webhooks_delivery`
 * switch is off (spec 6: endpoints register, nothing is delivered, nothing is lost). The dispatcher
 * nudges held deliveries as soon as the switch is on again and clears the mark.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookHeldDeliveries1763800100000 implements MigrationInterface {
  name = 'WebhookHeldDeliveries1763800100000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN held_at timestamptz;
      CREATE INDEX webhook_deliveries_held_idx ON webhook_deliveries(held_at) WHERE held_at IS NOT NULL;
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP INDEX IF EXISTS webhook_deliveries_held_idx;
      ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS held_at;
    `);
  }
}
