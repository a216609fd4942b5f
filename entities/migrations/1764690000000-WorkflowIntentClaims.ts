/**
 * `workflow_intents.claimed_until` (docs/decisions/0091-a-journey-at-the-cost-of-its-work.md): the
 * lease the recording process takes on its own row before it performs it after commit. The workers'
 * sweep skips a row whose lease has not run out, so a process slower than the grace period (a loaded
 * machine) and the sweep never both perform one row: a signal performed twice could start a second
 * run of a workflow that the first signal had let end. A process that dies holding a lease leaves
 * the row to the sweep once the lease runs out.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowIntentClaims1764690000000 implements MigrationInterface {
  name = 'WorkflowIntentClaims1764690000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE workflow_intents ADD COLUMN claimed_until timestamptz');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE workflow_intents DROP COLUMN claimed_until');
  }
}
