/**
 * Virtual accounts funding the wallet and their credits (spec 2.5, 4.5): one row per
 * account, currency and purpose (`wallet_funding`, `collection`, `legacy_wallet`); a credit row per
 * provider credit (unique), with the USDC it became and the on-chain transfer into the wallet.
 * Backfills the `collection` rows of currencies the accounts' bank-rail payments already received.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class WalletVirtualAccounts1764330000000 implements MigrationInterface {
  name = 'WalletVirtualAccounts1764330000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_virtual_accounts (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      purpose text NOT NULL,
      status text NOT NULL,
      currency text NOT NULL,
      rails text[] NOT NULL,
      instructions jsonb NOT NULL DEFAULT '[]'::jsonb,
      wallet_id text,
      wallet_address text,
      deactivated_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE UNIQUE INDEX IF NOT EXISTS wallet_virtual_accounts_one ON wallet_virtual_accounts (account_id, livemode, currency, purpose)',
    );
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_virtual_accounts_list ON wallet_virtual_accounts (account_id, created_at DESC, id DESC)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS wallet_virtual_account_credits (
      id text PRIMARY KEY,
      virtual_account_id text NOT NULL REFERENCES wallet_virtual_accounts(id),
      account_id text NOT NULL,
      provider_credit_id text NOT NULL UNIQUE,
      rail text NOT NULL,
      currency text NOT NULL,
      amount_minor bigint NOT NULL,
      decimals integer NOT NULL,
      sender_name text,
      reference text,
      status text NOT NULL,
      usdc_minor bigint,
      rate_usdc_per_major bigint,
      tx_hash text,
      return_reason text,
      settled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS wallet_virtual_account_credits_va ON wallet_virtual_account_credits (virtual_account_id, created_at DESC, id DESC)',
    );
    await runner.query(`INSERT INTO wallet_virtual_accounts(id, account_id, livemode, purpose, status, currency, rails)
      SELECT 'va_' || substr(md5(p.account_id || ':' || b.currency), 1, 24), p.account_id, p.livemode, 'collection', 'active', b.currency, array_agg(DISTINCT b.rail)
        FROM bank_credits b JOIN payments p ON p.id = b.payment_id
       GROUP BY p.account_id, p.livemode, b.currency
      ON CONFLICT DO NOTHING`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS wallet_virtual_account_credits');
    await runner.query('DROP TABLE IF EXISTS wallet_virtual_accounts');
  }
}
