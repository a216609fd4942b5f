/**
 * Payouts hardening (issue 4 follow-up):
 * - sandbox_provider_faults is scoped to an account: a fault is the outside world misbehaving for
 *   one merchant's transfers, never for every account at once (sandbox data only, so the old
 *   global table is dropped, not migrated).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class PayoutsHardening1763800600000 implements MigrationInterface {
  name = 'PayoutsHardening1763800600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS sandbox_provider_faults;
      CREATE TABLE sandbox_provider_faults (
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, name)
      );
    `);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS sandbox_provider_faults;
      CREATE TABLE sandbox_provider_faults (
        name text PRIMARY KEY,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }
}
