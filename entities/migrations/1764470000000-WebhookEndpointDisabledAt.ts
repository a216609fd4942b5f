/**
 * When an endpoint was disabled: re-enabling it can replay, in one idempotent call, the
 * events it missed since then (`PATCH /webhook_endpoints/{id}` `{ enabled: true, replay_missed: true }`).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookEndpointDisabledAt1764470000000 implements MigrationInterface {
  name = 'WebhookEndpointDisabledAt1764470000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS disabled_at timestamptz');
    await runner.query('UPDATE webhook_endpoints SET disabled_at = updated_at WHERE NOT enabled AND disabled_at IS NULL');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS disabled_at');
  }
}
