/**
 * Terms acceptances (spec 1 rule 6): who accepted which revision, for the account
 * (`scope = account`, the owner) or for themselves (`scope = personal`), and when. One row per
 * (account, user, scope, revision).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class TermsAcceptances1764420000000 implements MigrationInterface {
  name = 'TermsAcceptances1764420000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE IF NOT EXISTS terms_acceptances (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      user_id text NOT NULL,
      scope text NOT NULL,
      revision text NOT NULL,
      accepted_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (account_id, user_id, scope, revision)
    )`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS terms_acceptances');
  }
}
