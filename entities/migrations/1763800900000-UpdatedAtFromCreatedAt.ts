/**
 * A new row's `updated_at` is its `created_at` (new clients and products showed
 * `updated_at` 1-5 ms before `created_at`). The columns had two clocks: `created_at` defaults to
 * `clock_timestamp()` (the statement's time, in milliseconds), `updated_at` to `now()` (the
 * transaction's start). A BEFORE INSERT trigger on every table with both columns raises
 * `updated_at` to `created_at` when it is earlier, so both come from one clock value whatever
 * the insert path (TypeORM entities, raw SQL, bulk inserts). Later updates are untouched.
 * A future table with both columns adds the same trigger (`updated_at_not_before_created`).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES_WITH_BOTH = `
  SELECT c.table_name FROM information_schema.columns c
  JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
  WHERE c.table_schema = current_schema() AND c.column_name IN ('created_at', 'updated_at')
  GROUP BY c.table_name HAVING count(*) = 2 ORDER BY c.table_name`;

export class UpdatedAtFromCreatedAt1763800900000 implements MigrationInterface {
  name = 'UpdatedAtFromCreatedAt1763800900000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE OR REPLACE FUNCTION updated_at_not_before_created() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.updated_at IS NULL OR NEW.updated_at < NEW.created_at THEN NEW.updated_at := NEW.created_at; END IF;
        RETURN NEW;
      END $$`);
    for (const { table_name: t } of (await runner.query(TABLES_WITH_BOTH)) as Array<{ table_name: string }>) {
      await runner.query(
        `CREATE TRIGGER updated_at_not_before_created BEFORE INSERT ON "${t}" FOR EACH ROW EXECUTE FUNCTION updated_at_not_before_created()`,
      );
    }
  }

  public async down(runner: QueryRunner): Promise<void> {
    for (const { table_name: t } of (await runner.query(TABLES_WITH_BOTH)) as Array<{ table_name: string }>) {
      await runner.query(`DROP TRIGGER IF EXISTS updated_at_not_before_created ON "${t}"`);
    }
    await runner.query('DROP FUNCTION IF EXISTS updated_at_not_before_created()');
  }
}
