/**
 * Event counts per type and UTC hour and day (decision 0077), for
 * `GET /activity/summary` and `GET /activity?expand=summary`: they sum whole hours and days from
 * these rows and count only the partial hours at the period's edges from `events`.
 *
 * - `event_counts_hourly` / `event_counts_daily`: per (account, mode, type, bucket, stripe) the
 *   number of events and the first and last `created_at`; the bucket is the UTC hour or day
 *   (`timestamp`, UTC, so it does not depend on the session's time zone); 8 stripes
 *   (`pg_backend_pid() % 8`) so concurrent writers of one account rarely update the same row.
 * - A trigger adds each inserted event in its transaction. An event deleted, or updated in its
 *   account, mode, type or `created_at` (tests do; retention may), recomputes its buckets from
 *   `events` (one hour and one day of one type).
 * - `events_account_created_idx` `(account_id, livemode, created_at)`: the edges' count, and the
 *   recomputation.
 * Backfilled here from every existing event.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventCounts1764610100000 implements MigrationInterface {
  name = 'EventCounts1764610100000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX IF NOT EXISTS events_account_created_idx ON events(account_id, livemode, created_at)');
    for (const t of ['hourly', 'daily']) {
      await runner.query(`
        CREATE TABLE event_counts_${t} (
          account_id text NOT NULL,
          livemode boolean NOT NULL,
          type text NOT NULL,
          bucket timestamp NOT NULL,
          stripe smallint NOT NULL,
          n bigint NOT NULL,
          first_at timestamptz NOT NULL,
          last_at timestamptz NOT NULL,
          PRIMARY KEY (account_id, livemode, type, bucket, stripe)
        )`);
    }
    await runner.query(`
      CREATE FUNCTION event_counts_add(a text, lm boolean, ty text, at timestamptz) RETURNS void LANGUAGE sql AS $$
        INSERT INTO event_counts_hourly AS c VALUES (a, lm, ty, date_trunc('hour', at AT TIME ZONE 'UTC'), pg_backend_pid() % 8, 1, at, at)
        ON CONFLICT (account_id, livemode, type, bucket, stripe)
        DO UPDATE SET n = c.n + 1, first_at = least(c.first_at, EXCLUDED.first_at), last_at = greatest(c.last_at, EXCLUDED.last_at);
        INSERT INTO event_counts_daily AS c VALUES (a, lm, ty, date_trunc('day', at AT TIME ZONE 'UTC'), pg_backend_pid() % 8, 1, at, at)
        ON CONFLICT (account_id, livemode, type, bucket, stripe)
        DO UPDATE SET n = c.n + 1, first_at = least(c.first_at, EXCLUDED.first_at), last_at = greatest(c.last_at, EXCLUDED.last_at);
      $$;
      CREATE FUNCTION event_counts_recompute(a text, lm boolean, ty text, at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        h timestamp := date_trunc('hour', at AT TIME ZONE 'UTC');
        d timestamp := date_trunc('day', at AT TIME ZONE 'UTC');
      BEGIN
        DELETE FROM event_counts_hourly WHERE account_id = a AND livemode = lm AND type = ty AND bucket = h;
        INSERT INTO event_counts_hourly
          SELECT a, lm, ty, h, 0, count(*), min(created_at), max(created_at) FROM events
          WHERE account_id = a AND livemode = lm AND type = ty
            AND created_at >= (h AT TIME ZONE 'UTC') AND created_at < ((h + interval '1 hour') AT TIME ZONE 'UTC')
          HAVING count(*) > 0;
        DELETE FROM event_counts_daily WHERE account_id = a AND livemode = lm AND type = ty AND bucket = d;
        INSERT INTO event_counts_daily
          SELECT a, lm, ty, d, 0, count(*), min(created_at), max(created_at) FROM events
          WHERE account_id = a AND livemode = lm AND type = ty
            AND created_at >= (d AT TIME ZONE 'UTC') AND created_at < ((d + interval '1 day') AT TIME ZONE 'UTC')
          HAVING count(*) > 0;
      END $$;
      CREATE FUNCTION event_counts_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM event_counts_add(NEW.account_id, NEW.livemode, NEW.type, NEW.created_at);
        ELSE
          PERFORM event_counts_recompute(OLD.account_id, OLD.livemode, OLD.type, OLD.created_at);
          IF TG_OP = 'UPDATE' THEN
            PERFORM event_counts_recompute(NEW.account_id, NEW.livemode, NEW.type, NEW.created_at);
          END IF;
        END IF;
        RETURN NULL;
      END $$;
      CREATE FUNCTION event_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM event_counts_hourly;
        DELETE FROM event_counts_daily;
        RETURN NULL;
      END $$;
      CREATE TRIGGER event_counts_ins_del AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION event_counts_row();
      CREATE TRIGGER event_counts_upd AFTER UPDATE OF account_id, livemode, type, created_at ON events FOR EACH ROW
        WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode
          OR OLD.type IS DISTINCT FROM NEW.type OR OLD.created_at IS DISTINCT FROM NEW.created_at)
        EXECUTE FUNCTION event_counts_row();
      CREATE TRIGGER event_counts_trunc AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION event_counts_truncate();
    `);
    // The backfill and the triggers see the same rows: no event is written between them.
    await runner.query('LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE');
    for (const [t, unit] of [
      ['hourly', 'hour'],
      ['daily', 'day'],
    ]) {
      await runner.query(`
        INSERT INTO event_counts_${t}
        SELECT account_id, livemode, type, date_trunc('${unit}', created_at AT TIME ZONE 'UTC'), 0, count(*), min(created_at), max(created_at)
        FROM events GROUP BY 1, 2, 3, 4`);
    }
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER IF EXISTS event_counts_trunc ON events;
      DROP TRIGGER IF EXISTS event_counts_upd ON events;
      DROP TRIGGER IF EXISTS event_counts_ins_del ON events;
      DROP FUNCTION IF EXISTS event_counts_truncate();
      DROP FUNCTION IF EXISTS event_counts_row();
      DROP FUNCTION IF EXISTS event_counts_recompute(text, boolean, text, timestamptz);
      DROP FUNCTION IF EXISTS event_counts_add(text, boolean, text, timestamptz);
      DROP TABLE IF EXISTS event_counts_daily;
      DROP TABLE IF EXISTS event_counts_hourly;
      DROP INDEX IF EXISTS events_account_created_idx;
    `);
  }
}
