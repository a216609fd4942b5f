/**
 * Subscriptions billed in USDC (spec 4.2): subscriptions and their invoices, one per
 * billed period (unique per subscription and number, so issuing is idempotent), each paid through
 * its pay-in in `payments` (`subscription_id`).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Subscriptions1764450000000 implements MigrationInterface {
  name = 'Subscriptions1764450000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS subscriptions (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      client_id text NOT NULL,
      description text,
      amount_minor bigint NOT NULL,
      currency text NOT NULL,
      decimals integer NOT NULL,
      interval text NOT NULL,
      interval_count integer NOT NULL,
      billing_cycle_anchor timestamptz NOT NULL,
      cycles integer,
      grace_period_days integer NOT NULL,
      settlement_destination_id text NOT NULL,
      settlement_chain text NOT NULL,
      settlement_address text NOT NULL,
      status text NOT NULL,
      next_period integer NOT NULL DEFAULT 0,
      skipped_periods integer NOT NULL DEFAULT 0,
      paused_at timestamptz,
      cancelled_at timestamptz,
      ended_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS subscriptions_account_list ON subscriptions (account_id, livemode, created_at DESC, id DESC)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS subscription_invoices (
      id text PRIMARY KEY,
      subscription_id text NOT NULL REFERENCES subscriptions(id),
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      number integer NOT NULL,
      period_start timestamptz NOT NULL,
      period_end timestamptz NOT NULL,
      amount_minor bigint NOT NULL,
      currency text NOT NULL,
      decimals integer NOT NULL,
      status text NOT NULL,
      payment_id text NOT NULL UNIQUE,
      issued_at timestamptz NOT NULL,
      due_at timestamptz NOT NULL,
      overdue_at timestamptz,
      paid_at timestamptz,
      voided_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (subscription_id, number)
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS subscription_invoices_list ON subscription_invoices (subscription_id, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE INDEX IF NOT EXISTS payments_subscription ON payments (subscription_id, created_at DESC) WHERE subscription_id IS NOT NULL',
    );
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX IF EXISTS payments_subscription');
    await runner.query('DROP TABLE IF EXISTS subscription_invoices');
    await runner.query('DROP TABLE IF EXISTS subscriptions');
  }
}
