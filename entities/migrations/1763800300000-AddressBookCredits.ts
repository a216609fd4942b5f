/**
 * Address book and credits (spec 2.11, 4.10):
 * - address_book_entries gains the duplicate key of a crypto address, the latest screening
 *   result, the rail/currency and masked projection of bank details (raw details stay in
 *   `bank_details_ciphertext`, AES-GCM) and when they were set; one live entry per (account, mode,
 *   chain, address key).
 * - credit_balances (one row per person: the owner's personal balance), credit_events (ledger),
 *   credit_checkouts (hosted checkout of a pack; one purchase row per checkout, enforced here).
 * - sandbox tables of the checkout and address-screening providers (the simulated outside world).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddressBookCredits1763800300000 implements MigrationInterface {
  name = 'AddressBookCredits1763800300000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE address_book_entries
        ADD COLUMN address_key text,
        ADD COLUMN screening jsonb,
        ADD COLUMN bank_rail text,
        ADD COLUMN bank_currency text,
        ADD COLUMN beneficiary_masked jsonb,
        ADD COLUMN beneficiary_set_at timestamptz;
      CREATE UNIQUE INDEX address_book_live_address_uq ON address_book_entries(account_id, livemode, chain, address_key)
        WHERE deleted_at IS NULL AND address_key IS NOT NULL;
      CREATE INDEX payment_links_destination_idx ON payment_links(settlement_destination_id) WHERE settlement_destination_id IS NOT NULL;

      CREATE TABLE credit_balances (
        user_id text PRIMARY KEY REFERENCES users(id),
        free_remaining integer NOT NULL CHECK (free_remaining >= 0),
        paid_balance integer NOT NULL CHECK (paid_balance >= 0),
        total_checks integer NOT NULL DEFAULT 0 CHECK (total_checks >= 0),
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE credit_checkouts (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id),
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        pack integer NOT NULL CHECK (pack IN (5, 10, 20)),
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status IN ('open','completed','failed','expired')),
        provider text NOT NULL,
        provider_session_id text UNIQUE,
        url text,
        expires_at timestamptz,
        completed_at timestamptz,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX credit_checkouts_user_idx ON credit_checkouts(user_id, created_at DESC);

      CREATE TABLE credit_events (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id),
        account_id text REFERENCES accounts(id),
        livemode boolean NOT NULL,
        type text NOT NULL CHECK (type IN ('consume_free','consume_paid','cache_hit','insufficient','purchase','refund','admin_grant')),
        credits integer NOT NULL,
        free_remaining integer NOT NULL,
        paid_balance integer NOT NULL,
        total_checks integer NOT NULL,
        checkout_id text REFERENCES credit_checkouts(id),
        related_object_id text,
        refund_of text REFERENCES credit_events(id),
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX credit_events_user_idx ON credit_events(user_id, created_at DESC, id DESC);
      CREATE UNIQUE INDEX credit_events_one_purchase_per_checkout ON credit_events(checkout_id) WHERE type = 'purchase';
      CREATE UNIQUE INDEX credit_events_one_refund_per_consume ON credit_events(refund_of) WHERE refund_of IS NOT NULL;

      CREATE TABLE sandbox_checkout_sessions (
        id text PRIMARY KEY,
        client_reference text NOT NULL UNIQUE,
        amount_minor bigint NOT NULL,
        currency text NOT NULL,
        description text NOT NULL,
        status text NOT NULL CHECK (status IN ('open','paid','failed','expired')),
        url text NOT NULL,
        expires_at timestamptz NOT NULL,
        paid_amount_minor bigint,
        payment_reference text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE sandbox_screening_signals (
        chain text NOT NULL,
        address_key text NOT NULL,
        risk_score integer NOT NULL CHECK (risk_score BETWEEN 0 AND 100),
        flags text[] NOT NULL DEFAULT '{}',
        unavailable boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain, address_key)
      );
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE IF EXISTS sandbox_screening_signals;
      DROP TABLE IF EXISTS sandbox_checkout_sessions;
      DROP TABLE IF EXISTS credit_events;
      DROP TABLE IF EXISTS credit_checkouts;
      DROP TABLE IF EXISTS credit_balances;
      DROP INDEX IF EXISTS payment_links_destination_idx;
      DROP INDEX IF EXISTS address_book_live_address_uq;
      ALTER TABLE address_book_entries
        DROP COLUMN IF EXISTS address_key, DROP COLUMN IF EXISTS screening, DROP COLUMN IF EXISTS bank_rail,
        DROP COLUMN IF EXISTS bank_currency, DROP COLUMN IF EXISTS beneficiary_masked, DROP COLUMN IF EXISTS beneficiary_set_at;
    `);
  }
}
