/**
 * Wallet deposit intents and conversions (spec 2.5, 4.5): one row per intent and per
 * conversion, listed newest first per account; a source tx hash is recorded once per conversion.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WalletDeposits1764310000000 implements MigrationInterface {
  name = 'WalletDeposits1764310000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_deposit_intents (
      id text PRIMARY KEY, account_id text NOT NULL, livemode boolean NOT NULL, wallet_id text NOT NULL, status text NOT NULL,
      source_chain text NOT NULL, source_asset text NOT NULL, deposit_address text NOT NULL, bridge_transfer_id text NOT NULL,
      destination_chain text NOT NULL, destination_asset text NOT NULL, destination_address text NOT NULL,
      amount_out_minor bigint, amount_in_minor bigint, bridge_fee_minor bigint NOT NULL, received_minor bigint, delivered_minor bigint,
      refund_address text, source_tx_hash text, source_from_address text, delivery_tx_hash text, recovery_tx_hash text, failure_reason text,
      expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_deposit_intents_account ON wallet_deposit_intents (account_id, created_at DESC, id DESC)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_conversions (
      id text PRIMARY KEY, account_id text NOT NULL, livemode boolean NOT NULL, wallet_id text NOT NULL, status text NOT NULL,
      chain text NOT NULL, wallet_address text NOT NULL, from_asset text NOT NULL, to_asset text NOT NULL,
      amount_in_minor bigint NOT NULL, fee_minor bigint NOT NULL, amount_out_minor bigint NOT NULL, unsigned_tx jsonb NOT NULL,
      source_tx_hash text, settlement_tx_hash text, failure_reason text, signable_until timestamptz NOT NULL, submitted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_conversions_account ON wallet_conversions (account_id, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS wallet_conversions_source_tx ON wallet_conversions (lower(source_tx_hash)) WHERE source_tx_hash IS NOT NULL',
    );
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS wallet_conversions');
    await runner.query('DROP TABLE IF EXISTS wallet_deposit_intents');
  }
}
