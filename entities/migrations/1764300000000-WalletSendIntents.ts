/**
 * Send intents out of the holder's wallet (spec 2.5, 4.5): one row per built send, the
 * hash the holder signed (unique: one transaction pays one intent), the bridge transfer of a
 * cross-chain route. Amounts are bigint minor units of the stablecoin.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WalletSendIntents1764300000000 implements MigrationInterface {
  name = 'WalletSendIntents1764300000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_send_intents (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      wallet_id text NOT NULL,
      status text NOT NULL,
      chain text NOT NULL,
      asset text NOT NULL,
      from_address text NOT NULL,
      destination_chain text NOT NULL,
      destination_address text NOT NULL,
      route_kind text NOT NULL,
      amount_minor bigint NOT NULL,
      fee_minor bigint NOT NULL,
      amount_out_minor bigint NOT NULL,
      transfer_to text NOT NULL,
      unsigned_transaction jsonb NOT NULL,
      bridge_transfer_id text,
      source_tx_hash text,
      source_tx_recorded_at timestamptz,
      delivery_tx_hash text,
      failure_reason text,
      note text,
      expires_at timestamptz NOT NULL,
      submitted_at timestamptz,
      settled_at timestamptz,
      failed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_send_intents_account ON wallet_send_intents (account_id, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS wallet_send_intents_source_tx ON wallet_send_intents (chain, lower(source_tx_hash)) WHERE source_tx_hash IS NOT NULL',
    );
    await runner.query('CREATE INDEX IF NOT EXISTS sandbox_chain_transfers_hash_lower ON sandbox_chain_transfers (lower(tx_hash))');
    await runner.query(
      `CREATE INDEX IF NOT EXISTS wallet_send_intents_open ON wallet_send_intents (id) WHERE status IN ('created', 'source_submitted', 'bridging_started')`,
    );
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS wallet_send_intents');
    await runner.query('DROP INDEX IF EXISTS sandbox_chain_transfers_hash_lower');
  }
}
