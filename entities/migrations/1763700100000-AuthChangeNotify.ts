/**
 * Triggers that announce credential changes on channel `auth_changed` (payload: the row id), so
 * every API instance drops its cached authentication at once whatever path changed the row:
 * API key revoke/roll/expiry edits, dashboard session revocation, membership changes (spec 5:
 * "a revoked key in flight fails").
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthChangeNotify1763700100000 implements MigrationInterface {
  name = 'AuthChangeNotify1763700100000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('auth_changed', COALESCE(OLD::text, NEW::text));
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_auth_changed();
      CREATE TRIGGER dashboard_sessions_auth_changed AFTER UPDATE OR DELETE ON dashboard_sessions FOR EACH ROW EXECUTE FUNCTION notify_auth_changed();
      CREATE TRIGGER memberships_auth_changed AFTER INSERT OR UPDATE OR DELETE ON memberships FOR EACH ROW EXECUTE FUNCTION notify_auth_changed();
      CREATE TRIGGER accounts_auth_changed AFTER UPDATE OF default_version ON accounts FOR EACH ROW EXECUTE FUNCTION notify_auth_changed();
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER IF EXISTS api_keys_auth_changed ON api_keys;
      DROP TRIGGER IF EXISTS dashboard_sessions_auth_changed ON dashboard_sessions;
      DROP TRIGGER IF EXISTS memberships_auth_changed ON memberships;
      DROP TRIGGER IF EXISTS accounts_auth_changed ON accounts;
      DROP FUNCTION IF EXISTS notify_auth_changed();
    `);
  }
}
