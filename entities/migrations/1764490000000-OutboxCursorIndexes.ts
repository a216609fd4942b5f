/**
 * Creates without a lock at commit, and fewer index writes per create
 * (docs/decisions/0053-outbox-notification-after-commit.md and 0054-indexes-a-create-pays-for.md).
 *
 * - `outbox_cursors`: the durable position of a consumer of the events outbox, read through the
 *   gap-safe tail (activities/events/tail.ts). The webhook dispatcher starts where
 *   `dispatched_at` left off. It no longer updates event rows, so `events_undispatched_idx` goes.
 *   That UPDATE was not HOT and wrote every index of `events` again.
 * - `payment_links.payer_token` is null until activation: its unique index becomes partial, so a
 *   create writes nothing to it. The same goes for `client_id` (optional).
 * - `events.related_object_ids` is empty on most events: its GIN index becomes partial. The
 *   per-object filters add `related_object_ids <> '{}'` so the planner can use it.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboxCursorIndexes1764490000000 implements MigrationInterface {
  name = 'OutboxCursorIndexes1764490000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE IF NOT EXISTS outbox_cursors (
        name text PRIMARY KEY,
        seq bigint NOT NULL,
        wait_up_to bigint,
        wait_xmax bigint,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      INSERT INTO outbox_cursors(name, seq)
      SELECT 'webhooks', COALESCE((SELECT min(seq) - 1 FROM events WHERE dispatched_at IS NULL), (SELECT max(seq) FROM events), 0)
      ON CONFLICT (name) DO NOTHING`);
    await runner.query('DROP INDEX IF EXISTS events_undispatched_idx');
    await runner.query('ALTER TABLE payment_links DROP CONSTRAINT IF EXISTS payment_links_payer_token_key');
    await runner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS payment_links_payer_token_idx ON payment_links(payer_token) WHERE payer_token IS NOT NULL',
    );
    await runner.query('DROP INDEX IF EXISTS payment_links_client_idx');
    await runner.query('CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id) WHERE client_id IS NOT NULL');
    await runner.query('DROP INDEX IF EXISTS events_related_idx');
    await runner.query(
      `CREATE INDEX IF NOT EXISTS events_related_idx ON events USING gin(related_object_ids) WHERE related_object_ids <> '{}'`,
    );
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX IF EXISTS events_related_idx');
    await runner.query('CREATE INDEX IF NOT EXISTS events_related_idx ON events USING gin(related_object_ids)');
    await runner.query('DROP INDEX IF EXISTS payment_links_client_idx');
    await runner.query('CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id)');
    await runner.query('DROP INDEX IF EXISTS payment_links_payer_token_idx');
    await runner.query('ALTER TABLE payment_links ADD CONSTRAINT payment_links_payer_token_key UNIQUE (payer_token)');
    await runner.query(
      "UPDATE events SET dispatched_at = now() WHERE dispatched_at IS NULL AND seq <= (SELECT seq FROM outbox_cursors WHERE name = 'webhooks')",
    );
    await runner.query('CREATE INDEX IF NOT EXISTS events_undispatched_idx ON events(seq) WHERE dispatched_at IS NULL');
    await runner.query('DROP TABLE IF EXISTS outbox_cursors');
  }
}
