/**
 * Bank rails of payment links (spec 2.1 BankDepositInstructions, 2.4, part 3):
 * - payments gain their bank deposit instructions (as the collection provider issued them), the
 *   matching keys (reference, receiving account key), the provider's return text, the payer's
 *   declared state, what was paid out to the merchant's bank (`settled_minor`), the pending
 *   settlement / refund rail payments and the count of failed settlement payouts; a bank
 *   reference is unique.
 * - payment_links gain `refunded_at` and the kind of their settlement destination (bank | crypto),
 *   frozen at activation.
 * - bank_credits: inbound bank credits as the provider reported them (the bank twin of deposits).
 * - sandbox tables of the inbound collection provider: the receiving accounts it issued and the
 *   credits it received (the simulated outside world).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class BankRails1764000000000 implements MigrationInterface {
  name = 'BankRails1764000000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE payments
        ADD COLUMN bank_instructions jsonb,
        ADD COLUMN bank_reference text,
        ADD COLUMN bank_account_key text,
        ADD COLUMN return_reason text,
        ADD COLUMN payer_state text,
        ADD COLUMN settled_minor bigint NOT NULL DEFAULT 0,
        ADD COLUMN settlement_rail text,
        ADD COLUMN settlement_rail_payment_id text,
        ADD COLUMN settlement_attempt integer NOT NULL DEFAULT 0,
        ADD COLUMN refund_rail_payment_id text,
        ADD COLUMN refund_attempt integer NOT NULL DEFAULT 0,
        ADD COLUMN refund_completed_at timestamptz,
        ADD COLUMN refund_reason text,
        ADD COLUMN refunded_at timestamptz;
      CREATE UNIQUE INDEX payments_bank_reference_uq ON payments(bank_reference) WHERE bank_reference IS NOT NULL;
      CREATE INDEX payments_bank_account_key_idx ON payments(bank_account_key) WHERE bank_account_key IS NOT NULL;

      ALTER TABLE payment_links
        ADD COLUMN refunded_at timestamptz,
        ADD COLUMN settlement_destination_kind text;

      CREATE TABLE bank_credits (
        id text PRIMARY KEY,
        payment_id text REFERENCES payments(id),
        provider_credit_id text NOT NULL UNIQUE,
        rail text NOT NULL,
        currency text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        decimals integer NOT NULL,
        reference text,
        to_account text NOT NULL,
        sender_name text,
        effect text NOT NULL CHECK (effect IN ('pending','applied','recorded_only')),
        returned_at timestamptz,
        return_reason text,
        return_applied boolean NOT NULL DEFAULT false,
        observed_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        applied_at timestamptz
      );
      CREATE INDEX bank_credits_payment_idx ON bank_credits(payment_id, observed_at) WHERE payment_id IS NOT NULL;

      CREATE TABLE sandbox_collection_accounts (
        account_key text PRIMARY KEY,
        rail text NOT NULL,
        client_reference text NOT NULL,
        reference text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX sandbox_collection_accounts_ref_uq ON sandbox_collection_accounts(rail, client_reference);
      CREATE INDEX sandbox_collection_accounts_reference_idx ON sandbox_collection_accounts(reference);

      CREATE TABLE sandbox_bank_credits (
        id text PRIMARY KEY,
        rail text NOT NULL,
        currency text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        reference text,
        to_account text NOT NULL,
        sender_name text,
        client_reference text,
        state text NOT NULL CHECK (state IN ('received','returned')),
        return_reason text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE sandbox_bank_credits;
      DROP TABLE sandbox_collection_accounts;
      DROP TABLE bank_credits;
      ALTER TABLE payment_links DROP COLUMN refunded_at, DROP COLUMN settlement_destination_kind;
      DROP INDEX payments_bank_account_key_idx;
      DROP INDEX payments_bank_reference_uq;
      ALTER TABLE payments
        DROP COLUMN bank_instructions, DROP COLUMN bank_reference, DROP COLUMN bank_account_key, DROP COLUMN return_reason,
        DROP COLUMN payer_state, DROP COLUMN settled_minor, DROP COLUMN settlement_rail, DROP COLUMN settlement_rail_payment_id, DROP COLUMN settlement_attempt,
        DROP COLUMN refund_rail_payment_id, DROP COLUMN refund_attempt, DROP COLUMN refund_completed_at, DROP COLUMN refund_reason, DROP COLUMN refunded_at;
    `);
  }
}
