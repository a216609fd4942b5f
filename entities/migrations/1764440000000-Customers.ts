/**
 * Customers (spec 2.8, 4.7): one per account owner (unique per account), the provider's
 * mapping, the verification state and what the provider requires, the compliance profile; the
 * verification links issued; the associated persons the provider reports; and the sandbox KYC
 * provider's own records.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Customers1764440000000 implements MigrationInterface {
  name = 'Customers1764440000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS customers (
      id text PRIMARY KEY,
      account_id text NOT NULL UNIQUE,
      owner_user_id text NOT NULL,
      livemode boolean NOT NULL,
      customer_type text NOT NULL,
      country text,
      legal_name text,
      verification_state text NOT NULL,
      requirements_due text[] NOT NULL DEFAULT '{}',
      endorsements text[] NOT NULL DEFAULT '{}',
      rejection_outcome text,
      provider_customer_id text NOT NULL,
      compliance_profile jsonb NOT NULL DEFAULT '{}'::jsonb,
      verified_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(`CREATE TABLE IF NOT EXISTS customer_verification_links (
      id text PRIMARY KEY,
      customer_id text NOT NULL REFERENCES customers(id),
      kind text NOT NULL,
      url text NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS customer_verification_links_by_customer ON customer_verification_links (customer_id, created_at)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS sandbox_kyc_customers (
      provider_customer_id text PRIMARY KEY,
      client_reference text NOT NULL UNIQUE,
      customer_type text NOT NULL,
      state text NOT NULL,
      requirements_due text[] NOT NULL DEFAULT '{}',
      endorsements text[] NOT NULL DEFAULT '{}',
      rejection_outcome text,
      associated_persons jsonb NOT NULL DEFAULT '[]'::jsonb,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS sandbox_kyc_customers');
    await runner.query('DROP TABLE IF EXISTS customer_verification_links');
    await runner.query('DROP TABLE IF EXISTS customers');
  }
}
