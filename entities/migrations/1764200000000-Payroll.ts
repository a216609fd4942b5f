/**
 * Payroll schema (spec 2.7, 4.4): runs, recipients, run items, funding attempts, the
 * inbound funding observed per run, item payment attempts and templates. Statuses are checked
 * against the tables of domain/payroll.ts; `run_reference` is unique (bank credits are matched
 * on it); an item's provider idempotency key is unique so a retried activity or a crashed worker
 * can never pay an item twice; one item per recipient per run. Money columns are bigint minor
 * units (spec 2.1).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Payroll1764200000000 implements MigrationInterface {
  name = 'Payroll1764200000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE payroll_templates (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        title text NOT NULL,
        currency text NOT NULL,
        funding_method text NOT NULL CHECK (funding_method IN ('fiat','crypto')),
        memo text,
        rows jsonb NOT NULL,
        source_run_id text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payroll_templates_account_idx ON payroll_templates(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE payroll_runs (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('draft','approved','reviewed','funding_pending','funded','executing','completed','partial','failed','cancelled')),
        title text NOT NULL,
        currency text NOT NULL,
        decimals integer NOT NULL,
        pay_period_start date,
        pay_period_end date,
        funding_method text NOT NULL CHECK (funding_method IN ('fiat','crypto')),
        memo text,
        total_minor bigint NOT NULL CHECK (total_minor >= 0),
        item_count integer NOT NULL CHECK (item_count BETWEEN 0 AND 500),
        run_reference text NOT NULL UNIQUE,
        funding_state text NOT NULL DEFAULT 'unfunded' CHECK (funding_state IN ('unfunded','partially_funded','funded','overfunded')),
        needs_attention boolean NOT NULL DEFAULT false,
        funding_confirmed_minor bigint,
        funding_confirmed_currency text,
        funding_blocked_reason text,
        current_funding_attempt_id text,
        template_id text REFERENCES payroll_templates(id),
        approved_at timestamptz,
        funded_at timestamptz,
        execution_started_at timestamptz,
        completed_at timestamptz,
        cancelled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (pay_period_start IS NULL OR pay_period_end IS NULL OR pay_period_start <= pay_period_end)
      );
      CREATE INDEX payroll_runs_account_idx ON payroll_runs(account_id, livemode, created_at DESC, id DESC);
      CREATE INDEX payroll_runs_status_idx ON payroll_runs(account_id, livemode, status, created_at DESC, id DESC);

      CREATE TABLE payroll_recipients (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        email text NOT NULL CHECK (email = lower(email)),
        name text NOT NULL,
        destination_ciphertext text,
        destination_masked jsonb,
        pending_destination_ciphertext text,
        pending_destination_masked jsonb,
        pending_submitted_at timestamptz,
        pending_from_item_id text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, livemode, email)
      );
      CREATE INDEX payroll_recipients_account_idx ON payroll_recipients(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE payroll_run_items (
        id text PRIMARY KEY,
        run_id text NOT NULL REFERENCES payroll_runs(id),
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        position integer NOT NULL CHECK (position >= 0),
        recipient_id text NOT NULL REFERENCES payroll_recipients(id),
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency text NOT NULL,
        memo text,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','queued','processing','paid','failed','returned')),
        destination_status text NOT NULL CHECK (destination_status IN ('missing','pending_adoption','ready')),
        destination_ciphertext text,
        destination_masked jsonb,
        session_token text NOT NULL UNIQUE,
        current_attempt_id text,
        failure_reason text,
        return_reason text,
        paid_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run_id, position),
        UNIQUE (run_id, recipient_id)
      );
      CREATE INDEX payroll_run_items_recipient_idx ON payroll_run_items(recipient_id);

      CREATE TABLE payroll_funding_attempts (
        id text PRIMARY KEY,
        run_id text NOT NULL REFERENCES payroll_runs(id),
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('preparing','pending','verified','blocked','failed')),
        funding_method text NOT NULL CHECK (funding_method IN ('fiat','crypto')),
        funding_route_type text NOT NULL CHECK (funding_route_type IN ('bank','crypto_deposit_to_wallet')),
        run_reference text NOT NULL,
        retryable boolean NOT NULL DEFAULT false,
        bank jsonb,
        crypto jsonb,
        required_minor bigint,
        required_currency text NOT NULL,
        failure_reason text,
        superseded_at timestamptz,
        refreshed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payroll_funding_attempts_run_idx ON payroll_funding_attempts(run_id, created_at DESC, id DESC);
      -- at most one live (not superseded) attempt per run
      CREATE UNIQUE INDEX payroll_funding_attempts_live_idx ON payroll_funding_attempts(run_id) WHERE superseded_at IS NULL;
      -- the chain watcher finds a crypto funding address
      CREATE INDEX payroll_funding_attempts_address_idx ON payroll_funding_attempts (lower(crypto->>'address')) WHERE crypto IS NOT NULL;

      CREATE TABLE payroll_fundings (
        id text PRIMARY KEY,
        run_id text NOT NULL REFERENCES payroll_runs(id),
        attempt_id text NOT NULL REFERENCES payroll_funding_attempts(id),
        source_kind text NOT NULL CHECK (source_kind IN ('bank_credit','chain_transfer')),
        source_ref text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency text NOT NULL,
        confirmed boolean NOT NULL,
        observed_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        UNIQUE (source_kind, source_ref)
      );
      CREATE INDEX payroll_fundings_run_idx ON payroll_fundings(run_id, observed_at);

      CREATE TABLE payroll_item_attempts (
        id text PRIMARY KEY,
        item_id text NOT NULL REFERENCES payroll_run_items(id),
        run_id text NOT NULL REFERENCES payroll_runs(id),
        attempt_no integer NOT NULL CHECK (attempt_no >= 1),
        idempotency_key text NOT NULL UNIQUE,
        rail text NOT NULL,
        provider_payment_id text,
        status text NOT NULL CHECK (status IN ('queued','processing','paid','failed','returned')),
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (item_id, attempt_no)
      );
      CREATE INDEX payroll_item_attempts_run_idx ON payroll_item_attempts(run_id, created_at DESC, id DESC);
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE IF EXISTS payroll_item_attempts, payroll_fundings, payroll_funding_attempts, payroll_run_items,
        payroll_recipients, payroll_runs, payroll_templates CASCADE;
    `);
  }
}
