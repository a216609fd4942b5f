/**
 * `workflow_intents` (docs/decisions/0091-a-journey-at-the-cost-of-its-work.md): the
 * starts and signals of object workflows that a transaction recorded with its own rows. After
 * commit the writing process performs each row (signalWithStart, a start by workflow id, or, with
 * `only_if_running`, a signal to an open run only) and
 * deletes it; rows a crash or a Temporal outage left behind are performed by the workers' sweep
 * (temporal/intents.ts `performDueIntents`), oldest first. A row is a few hundred bytes and lives
 * milliseconds: the table stays near empty, and its only index is the primary key (the sweep reads
 * by `id`, which grows with `created_at`).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowIntents1764670000000 implements MigrationInterface {
  name = 'WorkflowIntents1764670000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE workflow_intents (
        id bigserial PRIMARY KEY,
        workflow_type text NOT NULL,
        workflow_id text NOT NULL,
        account_id text NOT NULL,
        signal text,
        signal_args jsonb NOT NULL DEFAULT '[]'::jsonb,
        only_if_running boolean NOT NULL DEFAULT false,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE workflow_intents');
  }
}
