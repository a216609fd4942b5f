/**
 * Payroll recipient sessions (spec 4.4): when the current session token of an item was
 * used to submit a destination. A token accepts one submission; `reissue_link` mints a new token
 * and clears the mark (docs/decisions/0037-payroll-recipient-sessions-and-destinations.md).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class PayrollRecipientSessions1764250000000 implements MigrationInterface {
  name = 'PayrollRecipientSessions1764250000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE payroll_run_items ADD COLUMN IF NOT EXISTS session_submitted_at timestamptz');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE payroll_run_items DROP COLUMN IF EXISTS session_submitted_at');
  }
}
