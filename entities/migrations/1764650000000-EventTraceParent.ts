/**
 * `events.trace_parent` (docs/decisions/0083-tracing.md): the W3C `traceparent`
 * of the span that wrote the event, when tracing is on (lib/outbox.ts). The webhook drain sends the
 * event's deliveries inside a span under it, so one trace follows a request to its webhooks. Null
 * when tracing is off. A nullable column without a default: no table rewrite.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventTraceParent1764650000000 implements MigrationInterface {
  name = 'EventTraceParent1764650000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE events ADD COLUMN trace_parent text');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE events DROP COLUMN trace_parent');
  }
}
