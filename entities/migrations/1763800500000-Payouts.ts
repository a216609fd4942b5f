/**
 * Payouts schema (spec 2.6): payouts, payout attempts, payout deposits, prepared
 * service-wallet sends, the sandbox bridge and fiat-rail ledgers, and sandbox fault switches.
 * Provider idempotency keys are unique, so a retried provider call can never create a second
 * transfer or rail payment. Money columns are bigint minor units (spec 2.1).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Payouts1763800500000 implements MigrationInterface {
  name = 'Payouts1763800500000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE payouts (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('draft','awaiting_funds','funds_received','processing','paid','paid_with_shortfall','settled','failed','returned','expired','cancelled')),
        invoice_minor bigint NOT NULL CHECK (invoice_minor > 0),
        currency text NOT NULL,
        decimals integer NOT NULL,
        corridor_id text NOT NULL,
        fiat_rail text NOT NULL,
        source_chain text,
        source_asset text NOT NULL DEFAULT 'USDC',
        payer_type text NOT NULL,
        fee_bps integer NOT NULL,
        notify_recipient boolean NOT NULL DEFAULT false,
        recipient_email text,
        note text,
        capability_version text NOT NULL,
        snapshot_frozen_at timestamptz,
        sender_display text,
        legal_entity_name text,
        needs_attention boolean NOT NULL DEFAULT false,
        settled_minor bigint,
        provider_paid_minor bigint,
        shortfall_minor bigint,
        failure_reason text,
        return_reason text,
        held_minor bigint,
        beneficiary_ciphertext text,
        beneficiary_masked jsonb,
        funding_source text,
        refund_address text,
        current_attempt_id text,
        replaces_id text REFERENCES payouts(id),
        replaced_by_id text REFERENCES payouts(id),
        marked_sent_at timestamptz,
        funded_at timestamptz,
        paid_at timestamptz,
        settled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payouts_account_idx ON payouts(account_id, livemode, created_at DESC, id DESC);

      CREATE TABLE payout_attempts (
        id text PRIMARY KEY,
        payout_id text NOT NULL REFERENCES payouts(id),
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        status text NOT NULL,
        funding_source text NOT NULL CHECK (funding_source IN ('external_wallet','service_wallet')),
        source_chain text NOT NULL,
        source_currency text NOT NULL,
        source_tx_hash text,
        refund_address text,
        provider_transfer_id text,
        deposit_address text,
        deposit_message text,
        transfer_reference text NOT NULL,
        rail_payment_id text,
        amount_minor bigint NOT NULL,
        buffer_minor bigint NOT NULL,
        fee_minor bigint NOT NULL,
        gross_minor bigint NOT NULL,
        received_minor bigint NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payout_attempts_payout_idx ON payout_attempts(payout_id, created_at DESC, id DESC);
      CREATE INDEX payout_attempts_deposit_idx ON payout_attempts(source_chain, lower(deposit_address));

      CREATE TABLE payout_deposits (
        id text PRIMARY KEY,
        payout_id text NOT NULL REFERENCES payouts(id),
        attempt_id text NOT NULL REFERENCES payout_attempts(id),
        chain text NOT NULL,
        asset text NOT NULL,
        to_address text NOT NULL,
        from_address text,
        tx_hash text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        effect text NOT NULL DEFAULT 'pending' CHECK (effect IN ('pending','applied','held','refunded')),
        observed_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        UNIQUE (chain, tx_hash)
      );
      CREATE INDEX payout_deposits_payout_idx ON payout_deposits(payout_id, observed_at);

      CREATE TABLE wallet_sends (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id),
        payout_id text NOT NULL REFERENCES payouts(id),
        attempt_id text NOT NULL REFERENCES payout_attempts(id),
        wallet_address text NOT NULL,
        wallet_chain text NOT NULL,
        to_address text NOT NULL,
        to_chain text NOT NULL,
        asset text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        delivery_minor bigint NOT NULL CHECK (delivery_minor > 0),
        status text NOT NULL CHECK (status IN ('signable','signed','expired','closed')),
        signable_until timestamptz NOT NULL,
        tx_hash text,
        signed_at timestamptz,
        closed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX wallet_sends_payout_idx ON wallet_sends(payout_id);

      CREATE TABLE sandbox_bridge_transfers (
        id text PRIMARY KEY,
        idempotency_key text NOT NULL UNIQUE,
        client_reference text NOT NULL,
        source_chain text NOT NULL,
        source_asset text NOT NULL,
        deposit_address text NOT NULL,
        deposit_message text NOT NULL,
        destination_rail text NOT NULL,
        destination_currency text NOT NULL,
        state text NOT NULL,
        refund_address text,
        refund_tx_hash text,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sandbox_bridge_transfers_ref_idx ON sandbox_bridge_transfers(client_reference);

      CREATE TABLE sandbox_rail_payments (
        id text PRIMARY KEY,
        idempotency_key text NOT NULL UNIQUE,
        client_reference text NOT NULL,
        rail text NOT NULL,
        currency text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        state text NOT NULL CHECK (state IN ('submitted','paid','failed','returned')),
        paid_minor bigint,
        recipient_received_minor bigint,
        reason text,
        provider_reference text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sandbox_rail_payments_ref_idx ON sandbox_rail_payments(client_reference);

      CREATE TABLE sandbox_provider_faults (
        name text PRIMARY KEY,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE IF EXISTS sandbox_provider_faults, sandbox_rail_payments, sandbox_bridge_transfers, wallet_sends,
        payout_deposits, payout_attempts, payouts CASCADE;
    `);
  }
}
