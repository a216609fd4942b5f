/**
 * Bulk writes stay linear (docs/decisions/0089-linear-counter-triggers.md): the
 * counters behind `expand=summary` (decision 0077) are kept by statement-level triggers over
 * transition tables instead of row-level triggers.
 *
 * The row triggers of migrations 1764610000000 (`payment_link_counts`), 1764610100000
 * (`event_counts_hourly` / `_daily`) and 1764610200000 (`payment_counts`) upserted one counter row
 * per written row. One statement writing many rows of one account updated the same counter row
 * again and again inside one transaction, each update walking the chain of versions the earlier
 * ones left: quadratic (5,000 links 1.2 s, 20,000 links 12.2 s, 1,000,000 never finished).
 *
 * Here each table gets one trigger per event (`AFTER INSERT`, `AFTER UPDATE`, `AFTER DELETE`,
 * `FOR EACH STATEMENT`, `REFERENCING NEW TABLE AS new_rows` / `OLD TABLE AS old_rows`): the
 * statement's rows are aggregated with GROUP BY and each counter key gets one upsert, so a counter
 * row is written once per statement whatever the number of rows.
 * - Same counts, same keys, same stripes (`pg_backend_pid() % 16` for links and payments, `% 8`
 *   for events): `expand=summary` reads them unchanged.
 * - `payment_link_counts`, `payment_counts`: an INSERT adds each key's count, a DELETE subtracts
 *   it, an UPDATE subtracts the old rows' keys and adds the new rows' (a key whose net is zero is
 *   not written, as the row trigger's `WHEN` skipped a row whose key did not change). One
 *   `INSERT ... ON CONFLICT DO UPDATE` over the keys `ORDER BY` key: a statement takes its counter
 *   rows in key order, so two statements moving rows in opposite directions never wait on each
 *   other in a circle (the row triggers' rule, now across all rows of a statement). A one-row
 *   statement, the product's usual write, skips the grouping (`upsert`'s forms).
 * - `event_counts_*`: an INSERT adds each (type, hour) and (type, day) its count and first and
 *   last `created_at`. A DELETE, or an UPDATE that changes the multiset of (account, mode, type,
 *   `created_at`) of its rows, recomputes the hours and days it touched from `events`, as the row
 *   trigger's `event_counts_recompute` did (the buckets' counter rows deleted, one stripe-0 row
 *   per bucket that still has events), once per bucket instead of once per row; the counter rows
 *   are locked in key order first.
 * - The TRUNCATE triggers are unchanged. Tables: none of the three is partitioned.
 * No backfill: the counts the row triggers kept are the counts these keep. `down` restores the
 * row triggers and their functions as those migrations created them.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

/** A counter table kept per key and stripe (16 stripes), and the key of a row of its counted table. */
interface Keyed {
  table: string;
  keys: string;
  of: string;
}
const LINK_COUNTS: Keyed = {
  table: 'payment_link_counts',
  keys: 'account_id, livemode, status, has_partial, settlement_kind',
  of: "account_id, livemode, status, partial_payment IS NOT NULL AS has_partial, coalesce(settlement_kind, '') AS settlement_kind",
};
const PAYMENT_COUNTS: Keyed = {
  table: 'payment_counts',
  keys: 'account_id, livemode, status, settlement',
  of: "account_id, livemode, status, coalesce(settlement, '') AS settlement",
};

/**
 * The upsert of `source` (rows of `k`'s key columns and a delta `d`) into `k.table`, one counter
 * row per key, in key order. Three forms of the same statement:
 * - `one`: `source` holds at most one row (a one-row insert or delete, the product's usual
 *   write): no grouping;
 * - `few`: grouped and sorted in one query (a one-row update: its old and new rows);
 * - `many`: grouped in a MATERIALIZED CTE, planned apart from the ORDER BY. Without it the planner,
 *   which cannot know how few keys a transition table holds, sorts every row to group them in the
 *   order wanted (an external sort at 1,000,000 rows) instead of hashing them and sorting the few
 *   groups.
 */
function upsert(k: Keyed, source: string, form: 'one' | 'few' | 'many'): string {
  const insert = `INSERT INTO ${k.table} AS c (${k.keys}, stripe, n)`;
  const conflict = `ON CONFLICT (${k.keys}, stripe) DO UPDATE SET n = c.n + EXCLUDED.n`;
  if (form === 'one') return `${insert} SELECT ${k.keys}, pg_backend_pid() % 16, d FROM (${source}) m ${conflict}`;
  const grouped = `FROM (${source}) m GROUP BY ${k.keys} HAVING sum(d) <> 0`;
  if (form === 'few') return `${insert} SELECT ${k.keys}, pg_backend_pid() % 16, sum(d) ${grouped} ORDER BY ${k.keys} ${conflict}`;
  return `WITH g AS MATERIALIZED (SELECT ${k.keys}, sum(d) AS n ${grouped})
      ${insert} SELECT ${k.keys}, pg_backend_pid() % 16, n FROM g ORDER BY ${k.keys} ${conflict}`;
}
const keysOf = (k: Keyed, rows: string, d: number) => `SELECT ${k.of}, ${d} AS d FROM ${rows}`;
/** True when the transition table `rows` holds at most one row (reads at most two). */
const atMostOne = (rows: string) => `NOT EXISTS (SELECT FROM ${rows} OFFSET 1)`;

/** The statement trigger function `name` keeping `k`: inserts add, deletes subtract, updates subtract the old rows' keys and add the new rows'. */
function keyedFunction(k: Keyed, name: string): string {
  const moved = `${keysOf(k, 'old_rows', -1)} UNION ALL ${keysOf(k, 'new_rows', 1)}`;
  return `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      IF ${atMostOne('new_rows')} THEN
        ${upsert(k, keysOf(k, 'new_rows', 1), 'one')};
      ELSE
        ${upsert(k, keysOf(k, 'new_rows', 1), 'many')};
      END IF;
    ELSIF TG_OP = 'DELETE' THEN
      IF ${atMostOne('old_rows')} THEN
        ${upsert(k, keysOf(k, 'old_rows', -1), 'one')};
      ELSE
        ${upsert(k, keysOf(k, 'old_rows', -1), 'many')};
      END IF;
    ELSIF ${atMostOne('new_rows')} THEN
      ${upsert(k, moved, 'few')};
    ELSE
      ${upsert(k, moved, 'many')};
    END IF;
    RETURN NULL;
  END $$`;
}

const EVENT_BUCKETS: Array<[table: string, unit: string]> = [
  ['event_counts_hourly', 'hour'],
  ['event_counts_daily', 'day'],
];
const EVENT_CONFLICT = `ON CONFLICT (account_id, livemode, type, bucket, stripe)
        DO UPDATE SET n = c.n + EXCLUDED.n, first_at = least(c.first_at, EXCLUDED.first_at), last_at = greatest(c.last_at, EXCLUDED.last_at)`;

/**
 * Adds the inserted events (`new_rows`) to the hourly and daily counts: one upsert per (account,
 * mode, type, bucket), in key order; one event without grouping, more grouped as `upsert`'s `many`.
 */
const EVENT_ADD = `
      IF ${atMostOne('new_rows')} THEN${EVENT_BUCKETS.map(
        ([t, unit]) => `
        INSERT INTO ${t} AS c (account_id, livemode, type, bucket, stripe, n, first_at, last_at)
        SELECT account_id, livemode, type, date_trunc('${unit}', created_at AT TIME ZONE 'UTC'), pg_backend_pid() % 8, 1, created_at, created_at FROM new_rows
        ${EVENT_CONFLICT};`,
      ).join('')}
      ELSE${EVENT_BUCKETS.map(
        ([t, unit]) => `
        WITH g AS MATERIALIZED (
          SELECT account_id, livemode, type, date_trunc('${unit}', created_at AT TIME ZONE 'UTC') AS bucket, count(*) AS n,
                 min(created_at) AS first_at, max(created_at) AS last_at
            FROM new_rows GROUP BY 1, 2, 3, 4)
        INSERT INTO ${t} AS c (account_id, livemode, type, bucket, stripe, n, first_at, last_at)
        SELECT account_id, livemode, type, bucket, pg_backend_pid() % 8, n, first_at, last_at FROM g ORDER BY 1, 2, 3, 4
        ${EVENT_CONFLICT};`,
      ).join('')}
      END IF;`;

/**
 * Recomputes, from `events`, the hourly and daily buckets of the hours held in the function's
 * arrays `a`, `lm`, `ty`, `hr` (account, mode, type, UTC hour; one element per distinct hour): per
 * table, the buckets' counter rows are locked in key order and deleted, and each bucket that still
 * has events gets one stripe-0 row. Each bucket is counted by its own range of
 * `events_account_created_idx` (a LATERAL subquery: a join let the planner hash the account's
 * whole history, 120 ms for one moved event among 100,000).
 */
const EVENT_RECOMPUTE = EVENT_BUCKETS.map(([t, unit]) => {
  const hours = 'unnest(a, lm, ty, hr) AS h(account_id, livemode, type, hour_start)';
  const buckets = `SELECT DISTINCT account_id, livemode, type, date_trunc('${unit}', hour_start) AS bucket FROM ${hours}`;
  return `
    PERFORM 1 FROM ${t} c WHERE (c.account_id, c.livemode, c.type, c.bucket) IN (${buckets})
      ORDER BY c.account_id, c.livemode, c.type, c.bucket, c.stripe FOR UPDATE;
    DELETE FROM ${t} c WHERE (c.account_id, c.livemode, c.type, c.bucket) IN (${buckets});
    INSERT INTO ${t} (account_id, livemode, type, bucket, stripe, n, first_at, last_at)
    SELECT k.account_id, k.livemode, k.type, k.bucket, 0, x.n, x.first_at, x.last_at
      FROM (${buckets}) k
      CROSS JOIN LATERAL (
        SELECT count(*) AS n, min(e.created_at) AS first_at, max(e.created_at) AS last_at FROM events e
         WHERE e.account_id = k.account_id AND e.livemode = k.livemode AND e.type = k.type
           AND e.created_at >= (k.bucket AT TIME ZONE 'UTC') AND e.created_at < ((k.bucket + interval '1 ${unit}') AT TIME ZONE 'UTC')) x
     WHERE x.n > 0
     ORDER BY k.account_id, k.livemode, k.type, k.bucket;`;
}).join('');

/** Collects into the arrays `a`, `lm`, `ty`, `hr` the distinct (account, mode, type, UTC hour) of `moved` (account_id, livemode, type, created_at). */
const hoursOf = (moved: string) => `
      SELECT array_agg(account_id), array_agg(livemode), array_agg(type), array_agg(hour_start) INTO a, lm, ty, hr
        FROM (SELECT DISTINCT account_id, livemode, type, date_trunc('hour', created_at AT TIME ZONE 'UTC') AS hour_start FROM (${moved}) m) x;`;
const eventKeys = (rows: string) => `SELECT account_id, livemode, type, created_at FROM ${rows}`;

const UP = `
  DROP TRIGGER payment_link_counts_ins_del ON payment_links;
  DROP TRIGGER payment_link_counts_upd ON payment_links;
  DROP FUNCTION payment_link_counts_row();
  DROP FUNCTION payment_link_counts_add(text, boolean, text, boolean, text, integer);
  ${keyedFunction(LINK_COUNTS, 'payment_link_counts_statement')};
  CREATE TRIGGER payment_link_counts_insert AFTER INSERT ON payment_links REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_link_counts_statement();
  CREATE TRIGGER payment_link_counts_update AFTER UPDATE ON payment_links REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_link_counts_statement();
  CREATE TRIGGER payment_link_counts_delete AFTER DELETE ON payment_links REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_link_counts_statement();

  DROP TRIGGER payment_counts_ins_del ON payments;
  DROP TRIGGER payment_counts_upd ON payments;
  DROP FUNCTION payment_counts_row();
  DROP FUNCTION payment_counts_add(text, boolean, text, text, integer);
  ${keyedFunction(PAYMENT_COUNTS, 'payment_counts_statement')};
  CREATE TRIGGER payment_counts_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_statement();
  CREATE TRIGGER payment_counts_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_statement();
  CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_statement();

  DROP TRIGGER event_counts_ins_del ON events;
  DROP TRIGGER event_counts_upd ON events;
  DROP FUNCTION event_counts_row();
  DROP FUNCTION event_counts_recompute(text, boolean, text, timestamptz);
  DROP FUNCTION event_counts_add(text, boolean, text, timestamptz);
  CREATE FUNCTION event_counts_statement() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    a text[];
    lm boolean[];
    ty text[];
    hr timestamp[];
  BEGIN
    IF TG_OP = 'INSERT' THEN${EVENT_ADD}
      RETURN NULL;
    END IF;
    -- The hours to recompute: every deleted event's; of an update, the events whose counted columns
    -- changed (old rows not among the new ones and the reverse, as multisets), none when nothing moved.
    IF TG_OP = 'DELETE' THEN${hoursOf(eventKeys('old_rows'))}
    ELSE${hoursOf(`(${eventKeys('old_rows')} EXCEPT ALL ${eventKeys('new_rows')}) UNION ALL (${eventKeys('new_rows')} EXCEPT ALL ${eventKeys('old_rows')})`)}
    END IF;
    IF a IS NULL THEN
      RETURN NULL;
    END IF;${EVENT_RECOMPUTE}
    RETURN NULL;
  END $$;
  CREATE TRIGGER event_counts_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION event_counts_statement();
  CREATE TRIGGER event_counts_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION event_counts_statement();
  CREATE TRIGGER event_counts_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION event_counts_statement();
`;

/** The row triggers and functions exactly as migrations 1764610000000, 1764610100000 and 1764610200000 created them. */
const DOWN = `
  DROP TRIGGER payment_link_counts_insert ON payment_links;
  DROP TRIGGER payment_link_counts_update ON payment_links;
  DROP TRIGGER payment_link_counts_delete ON payment_links;
  DROP FUNCTION payment_link_counts_statement();
  CREATE FUNCTION payment_link_counts_add(a text, lm boolean, st text, hp boolean, sk text, d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO payment_link_counts AS c (account_id, livemode, status, has_partial, settlement_kind, stripe, n)
    VALUES (a, lm, st, hp, coalesce(sk, ''), pg_backend_pid() % 16, d)
    ON CONFLICT (account_id, livemode, status, has_partial, settlement_kind, stripe) DO UPDATE SET n = c.n + d
  $$;
  CREATE FUNCTION payment_link_counts_row() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- A move takes its two counter rows in key order, so two opposite moves never wait on each other in a circle.
    IF TG_OP = 'UPDATE' AND (NEW.account_id, NEW.livemode, NEW.status, NEW.partial_payment IS NOT NULL, coalesce(NEW.settlement_kind, ''))
        < (OLD.account_id, OLD.livemode, OLD.status, OLD.partial_payment IS NOT NULL, coalesce(OLD.settlement_kind, '')) THEN
      PERFORM payment_link_counts_add(NEW.account_id, NEW.livemode, NEW.status, NEW.partial_payment IS NOT NULL, NEW.settlement_kind, 1);
      PERFORM payment_link_counts_add(OLD.account_id, OLD.livemode, OLD.status, OLD.partial_payment IS NOT NULL, OLD.settlement_kind, -1);
      RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
      PERFORM payment_link_counts_add(OLD.account_id, OLD.livemode, OLD.status, OLD.partial_payment IS NOT NULL, OLD.settlement_kind, -1);
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM payment_link_counts_add(NEW.account_id, NEW.livemode, NEW.status, NEW.partial_payment IS NOT NULL, NEW.settlement_kind, 1);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER payment_link_counts_ins_del AFTER INSERT OR DELETE ON payment_links FOR EACH ROW EXECUTE FUNCTION payment_link_counts_row();
  CREATE TRIGGER payment_link_counts_upd AFTER UPDATE OF account_id, livemode, status, partial_payment, settlement_kind ON payment_links FOR EACH ROW
    WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode OR OLD.status IS DISTINCT FROM NEW.status
      OR (OLD.partial_payment IS NULL) <> (NEW.partial_payment IS NULL) OR OLD.settlement_kind IS DISTINCT FROM NEW.settlement_kind)
    EXECUTE FUNCTION payment_link_counts_row();

  DROP TRIGGER payment_counts_insert ON payments;
  DROP TRIGGER payment_counts_update ON payments;
  DROP TRIGGER payment_counts_delete ON payments;
  DROP FUNCTION payment_counts_statement();
  CREATE FUNCTION payment_counts_add(a text, lm boolean, st text, se text, d integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO payment_counts AS c (account_id, livemode, status, settlement, stripe, n)
    VALUES (a, lm, st, coalesce(se, ''), pg_backend_pid() % 16, d)
    ON CONFLICT (account_id, livemode, status, settlement, stripe) DO UPDATE SET n = c.n + d
  $$;
  CREATE FUNCTION payment_counts_row() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- A move takes its two counter rows in key order, so two opposite moves never wait on each other in a circle.
    IF TG_OP = 'UPDATE' AND (NEW.account_id, NEW.livemode, NEW.status, coalesce(NEW.settlement, ''))
        < (OLD.account_id, OLD.livemode, OLD.status, coalesce(OLD.settlement, '')) THEN
      PERFORM payment_counts_add(NEW.account_id, NEW.livemode, NEW.status, NEW.settlement, 1);
      PERFORM payment_counts_add(OLD.account_id, OLD.livemode, OLD.status, OLD.settlement, -1);
      RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
      PERFORM payment_counts_add(OLD.account_id, OLD.livemode, OLD.status, OLD.settlement, -1);
    END IF;
    IF TG_OP <> 'DELETE' THEN
      PERFORM payment_counts_add(NEW.account_id, NEW.livemode, NEW.status, NEW.settlement, 1);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER payment_counts_ins_del AFTER INSERT OR DELETE ON payments FOR EACH ROW EXECUTE FUNCTION payment_counts_row();
  CREATE TRIGGER payment_counts_upd AFTER UPDATE OF account_id, livemode, status, settlement ON payments FOR EACH ROW
    WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode
      OR OLD.status IS DISTINCT FROM NEW.status OR OLD.settlement IS DISTINCT FROM NEW.settlement)
    EXECUTE FUNCTION payment_counts_row();

  DROP TRIGGER event_counts_insert ON events;
  DROP TRIGGER event_counts_update ON events;
  DROP TRIGGER event_counts_delete ON events;
  DROP FUNCTION event_counts_statement();
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
  CREATE TRIGGER event_counts_ins_del AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION event_counts_row();
  CREATE TRIGGER event_counts_upd AFTER UPDATE OF account_id, livemode, type, created_at ON events FOR EACH ROW
    WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode
      OR OLD.type IS DISTINCT FROM NEW.type OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION event_counts_row();
`;

export class LinearCounterTriggers1764660000000 implements MigrationInterface {
  name = 'LinearCounterTriggers1764660000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(UP);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(DOWN);
  }
}
