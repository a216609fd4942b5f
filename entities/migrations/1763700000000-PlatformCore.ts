/**
 * Platform core schema (issue: platform core and the first money journey).
 * Accounts, members, dashboard sessions, API keys, idempotency records, feature switches,
 * clients, products, payment links, payments and their deposits, the sandbox chain ledger,
 * wallets, address book, the append-only events outbox, webhook endpoints, deliveries and
 * attempts, sandbox emails. Money columns are bigint minor units (spec 2.1).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class PlatformCore1763700000000 implements MigrationInterface {
  name = 'PlatformCore1763700000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        email text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );

      CREATE TABLE accounts (
        id text PRIMARY KEY,
        livemode boolean NOT NULL DEFAULT true,
        display_name text NOT NULL,
        email text NOT NULL,
        customer_type text NOT NULL DEFAULT 'business' CHECK (customer_type IN ('individual','business')),
        country text,
        language text,
        access_state text NOT NULL DEFAULT 'active',
        support_contact jsonb,
        notification_preferences jsonb NOT NULL DEFAULT '{"marketing":false,"product_tips":true}',
        dashboard_preferences jsonb NOT NULL DEFAULT '{}',
        market_country text,
        market_currency text NOT NULL DEFAULT 'USD',
        market_source text NOT NULL DEFAULT 'default',
        owner_user_id text NOT NULL REFERENCES users(id),
        default_version text NOT NULL DEFAULT '2026-09-04',
        link_reference_seq bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX accounts_owner_idx ON accounts(owner_user_id);

      CREATE TABLE memberships (
        account_id text NOT NULL REFERENCES accounts(id),
        user_id text NOT NULL REFERENCES users(id),
        role text NOT NULL CHECK (role IN ('owner','admin','developer','viewer')),
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        PRIMARY KEY (account_id, user_id)
      );
      CREATE INDEX memberships_user_idx ON memberships(user_id);

      CREATE TABLE dashboard_sessions (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id),
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      );

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        name text,
        secret_hash text NOT NULL UNIQUE,
        secret_last4 text NOT NULL,
        scopes text[] NOT NULL,
        ip_allowlist text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','revoked')),
        expires_at timestamptz,
        default_version text,
        created_by_user_id text REFERENCES users(id),
        rolled_from_key_id text,
        last_used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX api_keys_account_idx ON api_keys(account_id, created_at DESC, id DESC);

      CREATE TABLE idempotency_records (
        account_id text NOT NULL,
        route text NOT NULL,
        key text NOT NULL,
        livemode boolean NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress','completed','failed')),
        response_status integer,
        response_body jsonb,
        redactions jsonb,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        completed_at timestamptz,
        PRIMARY KEY (account_id, route, key)
      );
      CREATE INDEX idempotency_records_created_idx ON idempotency_records(created_at);

      CREATE TABLE feature_switches (
        name text PRIMARY KEY,
        enabled boolean NOT NULL,
        description text,
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE account_flags (
        account_id text NOT NULL REFERENCES accounts(id),
        name text NOT NULL,
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, name)
      );

      CREATE TABLE clients (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        display_name text NOT NULL,
        email text,
        company text,
        country text,
        role text,
        notes text,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX clients_account_idx ON clients(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE products (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        name text NOT NULL,
        description text,
        currency text NOT NULL,
        unit_price_minor bigint,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX products_account_idx ON products(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE address_book_entries (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        kind text NOT NULL CHECK (kind IN ('crypto','bank')),
        label text,
        chain text,
        address text,
        bank_details_ciphertext text,
        counterparty_name text,
        counterparty_country text,
        counterparty_vasp_name text,
        counterparty_vasp_jurisdiction text,
        travel_rule_required boolean NOT NULL DEFAULT false,
        travel_rule_last_attested_at timestamptz,
        proof_method text,
        proof_verified_at timestamptz,
        proof_artifact_url text,
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX address_book_account_idx ON address_book_entries(account_id, created_at DESC, id DESC);

      CREATE TABLE wallets (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        address text NOT NULL,
        chain text NOT NULL,
        network text NOT NULL,
        status text NOT NULL DEFAULT 'active',
        label text,
        credential_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, network)
      );

      CREATE TABLE payment_links (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL,
        title text NOT NULL,
        memo text,
        invoice_number text,
        reference_id text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency text NOT NULL,
        decimals integer NOT NULL,
        client_id text REFERENCES clients(id),
        direction text,
        expected_payer_type_input text,
        allowed_rails text[],
        accepted_rail_kinds text[],
        crypto_only boolean NOT NULL DEFAULT false,
        expires_at timestamptz,
        payer_email text,
        reminder_schedule jsonb NOT NULL,
        settlement_kind text,
        settlement_asset jsonb,
        settlement_destination_id text REFERENCES address_book_entries(id),
        items jsonb NOT NULL DEFAULT '[]',
        payer_token text UNIQUE,
        short_code text NOT NULL UNIQUE,
        activated_at timestamptz,
        viewed_at timestamptz,
        paid_at timestamptz,
        settled_at timestamptz,
        cancelled_at timestamptz,
        expired_at timestamptz,
        latest_attempt_status text,
        partial_payment jsonb,
        invoice_sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, reference_id)
      );
      CREATE INDEX payment_links_account_idx ON payment_links(account_id, livemode, created_at DESC, id DESC);
      CREATE INDEX payment_links_client_idx ON payment_links(client_id);

      CREATE TABLE payments (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        payment_link_id text REFERENCES payment_links(id),
        subscription_id text,
        status text NOT NULL,
        payment_rail text NOT NULL,
        source_chain text,
        stablecoin text,
        source_asset text,
        deposit_address text,
        deposit_chain text,
        currency text NOT NULL,
        decimals integer NOT NULL,
        invoice_minor bigint NOT NULL,
        fee_minor bigint NOT NULL,
        amount_expected_minor bigint NOT NULL,
        amount_received_minor bigint NOT NULL DEFAULT 0,
        surplus_minor bigint,
        last_short_deposit_minor bigint,
        unmatched_reason text,
        underpaid_emitted boolean NOT NULL DEFAULT false,
        overpaid_emitted boolean NOT NULL DEFAULT false,
        settlement text,
        settlement_address text,
        settlement_tx_hash text,
        payer_email text,
        payer_type text,
        marked_sent_at timestamptz,
        onchain_tx_hash text,
        expires_at timestamptz NOT NULL,
        paid_at timestamptz,
        settled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payments_account_idx ON payments(account_id, livemode, created_at DESC, id DESC);
      CREATE INDEX payments_link_idx ON payments(payment_link_id, created_at DESC);
      CREATE UNIQUE INDEX payments_deposit_address_idx ON payments(deposit_chain, lower(deposit_address));
      CREATE UNIQUE INDEX payments_one_live_attempt_idx ON payments(payment_link_id, payment_rail)
        WHERE status IN ('awaiting','underpaid');

      CREATE TABLE deposits (
        id text PRIMARY KEY,
        payment_id text REFERENCES payments(id),
        chain text NOT NULL,
        asset text NOT NULL,
        to_address text NOT NULL,
        from_address text,
        tx_hash text NOT NULL,
        amount_minor bigint NOT NULL,
        decimals integer NOT NULL,
        effect text NOT NULL DEFAULT 'pending' CHECK (effect IN ('pending','applied','recorded_only')),
        observed_at timestamptz NOT NULL DEFAULT now(),
        applied_at timestamptz,
        UNIQUE (chain, tx_hash)
      );
      CREATE INDEX deposits_payment_idx ON deposits(payment_id, observed_at);

      CREATE TABLE sandbox_chain_transfers (
        seq bigserial PRIMARY KEY,
        chain text NOT NULL,
        asset text NOT NULL,
        from_address text,
        to_address text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        decimals integer NOT NULL,
        tx_hash text NOT NULL UNIQUE,
        idempotency_key text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX sandbox_chain_transfers_to_idx ON sandbox_chain_transfers(chain, lower(to_address), asset);
      CREATE INDEX sandbox_chain_transfers_from_idx ON sandbox_chain_transfers(chain, lower(from_address), asset);

      CREATE TABLE events (
        seq bigserial NOT NULL UNIQUE,
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        type text NOT NULL,
        object_type text NOT NULL,
        object_id text NOT NULL,
        related_object_ids text[] NOT NULL DEFAULT '{}',
        data jsonb NOT NULL,
        request_id text,
        idempotency_key text,
        api_version text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        dispatched_at timestamptz
      );
      CREATE INDEX events_account_idx ON events(account_id, livemode, seq DESC);
      CREATE INDEX events_object_idx ON events(object_id, seq DESC);
      CREATE INDEX events_related_idx ON events USING gin(related_object_ids);
      CREATE INDEX events_undispatched_idx ON events(seq) WHERE dispatched_at IS NULL;

      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        url text NOT NULL,
        event_types text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        description text,
        secret_ciphertext text NOT NULL,
        secret_prefix text NOT NULL,
        previous_secret_ciphertext text,
        previous_secret_expires_at timestamptz,
        consecutive_failures integer NOT NULL DEFAULT 0,
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
        event_id text NOT NULL REFERENCES events(id),
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','succeeded','failed','retrying','cancelled')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        workflow_started_at timestamptz,
        delivered_at timestamptz,
        replay_of text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX webhook_deliveries_once_idx ON webhook_deliveries(endpoint_id, event_id) WHERE replay_of IS NULL;
      CREATE INDEX webhook_deliveries_account_idx ON webhook_deliveries(account_id, livemode, created_at DESC, id DESC);
      CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries(created_at) WHERE workflow_started_at IS NULL;

      CREATE TABLE webhook_attempts (
        id text PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
        attempt_number integer NOT NULL,
        status_code integer,
        error text,
        latency_ms integer NOT NULL,
        response_excerpt text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        UNIQUE (delivery_id, attempt_number)
      );

      CREATE TABLE sandbox_emails (
        id text PRIMARY KEY,
        account_id text,
        to_address text NOT NULL,
        template text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        related_object_id text,
        idempotency_key text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX sandbox_emails_related_idx ON sandbox_emails(related_object_id);

      -- Storage of rate-limiter-flexible's RateLimiterPostgres (shared by every API instance).
      CREATE TABLE rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      );
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE IF EXISTS rate_limits, sandbox_emails, webhook_attempts, webhook_deliveries, webhook_endpoints, events,
        sandbox_chain_transfers, deposits, payments, payment_links, wallets, address_book_entries, products,
        clients, account_flags, feature_switches, idempotency_records, api_keys, dashboard_sessions,
        memberships, accounts, users CASCADE;
    `);
  }
}
