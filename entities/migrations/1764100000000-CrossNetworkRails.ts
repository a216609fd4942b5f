/**
 * Cross-network and transfer pay-in rails (spec 2.1 DepositInstructions, 2.4 watcher states, 4.1
 * payer payments). A `crypto_xchain` payment keeps its source-chain send target in
 * `deposit_chain` / `deposit_address` (the bridge's address), the native-chain address the bridge
 * delivers to in `delivery_chain` / `delivery_address`, the frozen quote (`amount_in_minor` = what
 * the payer sends, `bridge_fee_minor`, `quote_expires_at`, `gross_up`), the payer's refund
 * address, the bridge transfer id, and the watcher state and reason. `crypto_transfer` records the
 * payer's optional `source_address`. The sandbox bridge learns pay-in transfers (kind `pay_in`):
 * where it delivers, its fee, how much of the received funds it already covered, and the state
 * the simulator forces (`auto`, `delayed`, `failed`). A deposit may now be `to_return` (money on a
 * closed cross-network payment, owed to the refund address) or `returned`.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CrossNetworkRails1764100000000 implements MigrationInterface {
  name = 'CrossNetworkRails1764100000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE payments
        ADD COLUMN delivery_chain text,
        ADD COLUMN delivery_address text,
        ADD COLUMN refund_address text,
        ADD COLUMN source_address text,
        ADD COLUMN bridge_transfer_id text,
        ADD COLUMN amount_in_minor bigint,
        ADD COLUMN bridge_fee_minor bigint,
        ADD COLUMN quote_expires_at timestamptz,
        ADD COLUMN gross_up boolean,
        ADD COLUMN watcher_state text,
        ADD COLUMN watcher_reason text,
        ADD COLUMN recovery_tx_hash text;
      -- The chain watcher finds a delivery by address; a refund address is checked against every
      -- service address whatever its chain (deposit, delivery, wallet).
      CREATE INDEX payments_delivery_address_idx ON payments (lower(delivery_address)) WHERE delivery_address IS NOT NULL;
      CREATE INDEX payments_deposit_address_any_chain_idx ON payments (lower(deposit_address)) WHERE deposit_address IS NOT NULL;
      CREATE INDEX wallets_address_lower_idx ON wallets (lower(address));

      ALTER TABLE deposits DROP CONSTRAINT deposits_effect_check;
      ALTER TABLE deposits ADD CONSTRAINT deposits_effect_check CHECK (effect IN ('pending','applied','recorded_only','to_return','returned'));

      ALTER TABLE sandbox_bridge_transfers
        ADD COLUMN kind text NOT NULL DEFAULT 'payout' CHECK (kind IN ('payout','pay_in')),
        ADD COLUMN destination_chain text,
        ADD COLUMN destination_address text,
        ADD COLUMN destination_asset text,
        ADD COLUMN fee_minor bigint NOT NULL DEFAULT 0,
        ADD COLUMN covered_minor bigint NOT NULL DEFAULT 0,
        ADD COLUMN delivered_minor bigint NOT NULL DEFAULT 0,
        ADD COLUMN sim_state text NOT NULL DEFAULT 'auto' CHECK (sim_state IN ('auto','delayed','failed'));
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE deposits DROP CONSTRAINT deposits_effect_check;
      UPDATE deposits SET effect = 'applied' WHERE effect IN ('to_return','returned');
      ALTER TABLE deposits ADD CONSTRAINT deposits_effect_check CHECK (effect IN ('pending','applied','recorded_only'));
      DROP INDEX IF EXISTS payments_delivery_address_idx;
      DROP INDEX IF EXISTS payments_deposit_address_any_chain_idx;
      DROP INDEX IF EXISTS wallets_address_lower_idx;
      ALTER TABLE payments DROP COLUMN delivery_chain, DROP COLUMN delivery_address, DROP COLUMN refund_address, DROP COLUMN source_address,
        DROP COLUMN bridge_transfer_id, DROP COLUMN amount_in_minor, DROP COLUMN bridge_fee_minor, DROP COLUMN quote_expires_at,
        DROP COLUMN gross_up, DROP COLUMN watcher_state, DROP COLUMN watcher_reason, DROP COLUMN recovery_tx_hash;
      ALTER TABLE sandbox_bridge_transfers DROP COLUMN kind, DROP COLUMN destination_chain, DROP COLUMN destination_address,
        DROP COLUMN destination_asset, DROP COLUMN fee_minor, DROP COLUMN covered_minor, DROP COLUMN delivered_minor, DROP COLUMN sim_state;
    `);
  }
}
