/**
 * Creates without a lock at commit, and fewer index writes per create (issue 17;
 * docs/decisions/0053-outbox-notification-after-commit.md and 0054-indexes-a-create-pays-for.md).
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

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS outbox_cursors (
        name text PRIMARY KEY,
        seq bigint NOT NULL,
        wait_up_to bigint,
        wait_xmax bigint,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      INSERT INTO outbox_cursors(name, seq)
      SELECT 'webhooks', COALESCE((SELECT min(seq) - 1 FROM events WHERE dispatched_at IS NULL), (SELECT max(seq) FROM events), 0)
      ON CONFLICT (name) DO NOTHING`);
    await q.query('DROP INDEX IF EXISTS events_undispatched_idx');
    await q.query('ALTER TABLE payment_links DROP CONSTRAINT IF EXISTS payment_links_payer_token_key');
    await q.query('CREATE UNIQUE INDEX IF NOT EXISTS payment_links_payer_token_idx ON payment_links(payer_token) WHERE payer_token IS NOT NULL');
    await q.query('DROP INDEX IF EXISTS payment_links_client_idx');
    await q.query('CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id) WHERE client_id IS NOT NULL');
    await q.query('DROP INDEX IF EXISTS events_related_idx');
    await q.query(`CREATE INDEX IF NOT EXISTS events_related_idx ON events USING gin(related_object_ids) WHERE related_object_ids <> '{}'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS events_related_idx');
    await q.query('CREATE INDEX IF NOT EXISTS events_related_idx ON events USING gin(related_object_ids)');
    await q.query('DROP INDEX IF EXISTS payment_links_client_idx');
    await q.query('CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id)');
    await q.query('DROP INDEX IF EXISTS payment_links_payer_token_idx');
    await q.query('ALTER TABLE payment_links ADD CONSTRAINT payment_links_payer_token_key UNIQUE (payer_token)');
    await q.query('UPDATE events SET dispatched_at = now() WHERE dispatched_at IS NULL AND seq <= (SELECT seq FROM outbox_cursors WHERE name = \'webhooks\')');
    await q.query('CREATE INDEX IF NOT EXISTS events_undispatched_idx ON events(seq) WHERE dispatched_at IS NULL');
    await q.query('DROP TABLE IF EXISTS outbox_cursors');
  }
}
