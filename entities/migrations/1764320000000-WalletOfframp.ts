/**
 * Off-ramp to a bank (spec 2.5, 3, 4.5): external bank accounts (`ba_`, raw details only
 * encrypted, read back masked), off-ramp intents (`ofr_`), and the sandbox chain's mempool
 * (transfers broadcast but not yet confirmed: what makes an off-ramp's cancel refused).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WalletOfframp1764320000000 implements MigrationInterface {
  name = 'WalletOfframp1764320000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_external_accounts (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      rail text NOT NULL,
      currency text NOT NULL,
      masked jsonb NOT NULL,
      details_ciphertext text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_external_accounts_list ON wallet_external_accounts (account_id, created_at DESC, id DESC)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_offramp_intents (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      wallet_id text NOT NULL,
      wallet_address text NOT NULL,
      status text NOT NULL,
      external_account_id text NOT NULL,
      destination_currency text NOT NULL,
      destination_decimals integer NOT NULL,
      destination_payment_rail text NOT NULL,
      chain text NOT NULL,
      asset text NOT NULL,
      amount_minor bigint NOT NULL,
      developer_fee_bps integer NOT NULL,
      service_fee_minor bigint NOT NULL,
      developer_fee_minor bigint NOT NULL,
      rate_usdc_per_major bigint NOT NULL,
      destination_amount_minor bigint NOT NULL,
      transit_address text NOT NULL,
      transit_memo text,
      reference text NOT NULL,
      received_minor bigint NOT NULL DEFAULT 0,
      source_tx_hash text,
      rail_payment_id text,
      settled_amount_minor bigint,
      refund_tx_hash text,
      failure_reason text,
      return_reason text,
      funding_deadline timestamptz NOT NULL,
      funds_received_at timestamptz,
      payment_submitted_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_offramp_intents_list ON wallet_offramp_intents (account_id, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS wallet_offramp_intents_transit ON wallet_offramp_intents (lower(transit_address))',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS sandbox_chain_mempool (
      tx_hash text PRIMARY KEY,
      chain text NOT NULL,
      asset text NOT NULL,
      from_address text,
      to_address text NOT NULL,
      amount_minor bigint NOT NULL,
      decimals integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query('CREATE INDEX IF NOT EXISTS sandbox_chain_mempool_to ON sandbox_chain_mempool (chain, lower(to_address))');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS sandbox_chain_mempool');
    await runner.query('DROP TABLE IF EXISTS wallet_offramp_intents');
    await runner.query('DROP TABLE IF EXISTS wallet_external_accounts');
  }
}
