/**
 * Triggers that announce switch and cohort-flag changes on channel `switches_changed`
 * (docs/decisions/0079-pipeline-work-done-once.md), so every API instance drops its cached
 * switches as soon as a flip commits, whatever wrote the row (`npm run switch`, SQL, tests), instead
 * of after its cache's 2 s lifetime. One notification per statement; PostgreSQL folds identical
 * ones sent by a transaction into one.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class SwitchChangeNotify1764630000000 implements MigrationInterface {
  name = 'SwitchChangeNotify1764630000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION notify_switches_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('switches_changed', '');
        RETURN NULL;
      END $$;
      CREATE TRIGGER feature_switches_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON feature_switches FOR EACH STATEMENT EXECUTE FUNCTION notify_switches_changed();
      CREATE TRIGGER account_flags_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON account_flags FOR EACH STATEMENT EXECUTE FUNCTION notify_switches_changed();
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER IF EXISTS feature_switches_changed ON feature_switches;
      DROP TRIGGER IF EXISTS account_flags_changed ON account_flags;
      DROP FUNCTION IF EXISTS notify_switches_changed();
    `);
  }
}
