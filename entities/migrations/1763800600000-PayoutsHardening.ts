/**
 * Payouts hardening:
 * - sandbox_provider_faults is scoped to an account: a fault is the outside world misbehaving for
 *   one merchant's transfers, never for every account at once (sandbox data only, so the old
 *   global table is dropped, not migrated).
 * - payout_attempts records the funding surplus (USDC received above the quoted gross amount,
 *   decided when the fiat payment is submitted; null before) and the USDC already returned to the
 *   payer (`returned_minor`, the running total that also keys each return at the provider).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class PayoutsHardening1763800600000 implements MigrationInterface {
  name = 'PayoutsHardening1763800600000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE IF EXISTS sandbox_provider_faults;
      CREATE TABLE sandbox_provider_faults (
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, name)
      );

      ALTER TABLE payout_attempts
        ADD COLUMN surplus_minor bigint CHECK (surplus_minor >= 0),
        ADD COLUMN returned_minor bigint NOT NULL DEFAULT 0 CHECK (returned_minor >= 0);
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE payout_attempts DROP COLUMN IF EXISTS surplus_minor, DROP COLUMN IF EXISTS returned_minor;
      DROP TABLE IF EXISTS sandbox_provider_faults;
      CREATE TABLE sandbox_provider_faults (
        name text PRIMARY KEY,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }
}
