/**
 * Quotes and orders (spec 2.10, 4.9): quotes with every provider's terminal result, the
 * priced offers (each taken by at most one order), orders, and the sandbox order providers' own
 * records.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class QuotesOrders1764460000000 implements MigrationInterface {
  name = 'QuotesOrders1764460000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS quotes (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      side text NOT NULL,
      from_asset text NOT NULL,
      to_asset text NOT NULL,
      from_amount text,
      to_amount text,
      payment_method text,
      country text,
      network text,
      offer_id text,
      providers jsonb NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(`CREATE TABLE IF NOT EXISTS quote_offers (
      id text PRIMARY KEY,
      quote_id text NOT NULL REFERENCES quotes(id),
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      provider text NOT NULL,
      rank integer NOT NULL,
      comparable boolean NOT NULL,
      side text NOT NULL,
      from_asset text NOT NULL,
      to_asset text NOT NULL,
      payment_method text NOT NULL,
      network text,
      final_in_minor bigint NOT NULL,
      final_out_minor bigint NOT NULL,
      fee_minor bigint NOT NULL,
      expires_at timestamptz NOT NULL,
      order_id text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query('CREATE INDEX IF NOT EXISTS quote_offers_quote ON quote_offers (quote_id, rank)');
    await runner.query(`CREATE TABLE IF NOT EXISTS orders (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      quote_id text NOT NULL,
      offer_id text NOT NULL UNIQUE,
      selected_offer_id text,
      selection_reason text,
      provider text NOT NULL,
      side text NOT NULL,
      from_asset text NOT NULL,
      to_asset text NOT NULL,
      payment_method text NOT NULL,
      payment_rail text,
      network text,
      final_in_minor bigint NOT NULL,
      final_out_minor bigint NOT NULL,
      fee_minor bigint NOT NULL,
      status text NOT NULL,
      money_state text NOT NULL,
      failure_kind text,
      return_reason text,
      purpose text NOT NULL,
      payment_link_id text,
      payment_id text,
      destination jsonb NOT NULL,
      refund_address text,
      provider_order_id text,
      checkout_url text,
      checkout_expires_at timestamptz,
      bank_instructions jsonb,
      deposit_instructions jsonb,
      completed_at timestamptz,
      cancelled_at timestamptz,
      failed_at timestamptz,
      refunded_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query('CREATE INDEX IF NOT EXISTS orders_account_list ON orders (account_id, livemode, created_at DESC, id DESC)');
    await runner.query(
      `CREATE INDEX IF NOT EXISTS orders_open ON orders (id) WHERE status IN ('pending', 'awaiting_payment', 'processing')`,
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS sandbox_provider_orders (
      id text PRIMARY KEY,
      provider text NOT NULL,
      order_id text NOT NULL UNIQUE,
      account_id text NOT NULL,
      state text NOT NULL,
      captured boolean NOT NULL DEFAULT false,
      payment_rail text,
      failure_kind text,
      provider_reason text,
      delivery_tx_hash text,
      placement jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS sandbox_provider_orders');
    await runner.query('DROP TABLE IF EXISTS orders');
    await runner.query('DROP TABLE IF EXISTS quote_offers');
    await runner.query('DROP TABLE IF EXISTS quotes');
  }
}
