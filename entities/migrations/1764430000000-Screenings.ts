/**
 * Screenings (`scr_`) and screening reports (`srp_`) (spec 2.9, 4.8): what the provider
 * said about an address on a network, and the paid (or cached) reports with the figures the
 * evidence PDF renders and their SHA-256.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Screenings1764430000000 implements MigrationInterface {
  name = 'Screenings1764430000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS screenings (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      chain text NOT NULL,
      address text NOT NULL,
      address_key text NOT NULL,
      risk_score integer NOT NULL,
      risk_level text NOT NULL,
      verdict text NOT NULL,
      action text NOT NULL,
      flags text[] NOT NULL,
      confidence text NOT NULL,
      coverage text[] NOT NULL,
      provider_version text NOT NULL,
      cached boolean NOT NULL,
      screened_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query('CREATE INDEX IF NOT EXISTS screenings_list ON screenings (account_id, livemode, created_at DESC, id DESC)');
    await runner.query(
      'CREATE INDEX IF NOT EXISTS screenings_address ON screenings (account_id, livemode, chain, address_key, screened_at DESC)',
    );
    await runner.query(`CREATE TABLE IF NOT EXISTS screening_reports (
      id text PRIMARY KEY,
      screening_id text NOT NULL REFERENCES screenings(id),
      account_id text NOT NULL,
      livemode boolean NOT NULL,
      chain text NOT NULL,
      address_key text NOT NULL,
      cached boolean NOT NULL,
      cached_from text,
      credit_event_id text,
      credit_event_type text NOT NULL,
      figures jsonb NOT NULL,
      data_sha256 text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await runner.query(
      'CREATE INDEX IF NOT EXISTS screening_reports_by_screening ON screening_reports (screening_id, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE INDEX IF NOT EXISTS screening_reports_address ON screening_reports (account_id, livemode, chain, address_key, created_at DESC)',
    );
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS screening_reports');
    await runner.query('DROP TABLE IF EXISTS screenings');
  }
}
