/**
 * `workflow_intents.task_queue` (docs/decisions/0091-a-journey-at-the-cost-of-its-work.md): the task
 * queue the recording process starts its workflows on. The sweep of a worker performs only the rows
 * of the queue it serves (and rows recorded before this column, NULL), so a worker of another
 * deployment or of a test's private queue never starts someone else's workflow on its own queue.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkflowIntentQueues1764680000000 implements MigrationInterface {
  name = 'WorkflowIntentQueues1764680000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE workflow_intents ADD COLUMN task_queue text');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE workflow_intents DROP COLUMN task_queue');
  }
}
