/**
 * Lists and summaries that stay flat as an account grows (decision 0077).
 *
 * `payment_links`:
 * - one partial index per status group of spec 4.1 (`open`, `needs_attention`, `paid`, `ended`) on
 *   the list order `(account_id, livemode, created_at DESC, id DESC)`: a group filter reads the
 *   group's rows in list order instead of walking the account's whole index. The predicates are
 *   the literals of domain/verdicts.ts `LINK_STATUS_GROUPS` as of this migration (the query's
 *   predicate, activities/payment-links/queries.ts `groupPredicate`, must imply them);
 * - `settlement_kind` in the list order (partial: a crypto-only draft's null kind matches no filter);
 * - `client_id` in the list order (replaces the plain partial index on `client_id`: same rows);
 * - `q` (title, memo, invoice number, ILIKE contains): one pg_trgm GIN index on the three columns
 *   joined by a newline; the list query adds the joined text's ILIKE, implied by any column's, and
 *   keeps the three columns' ILIKE, so it matches exactly what it matched before;
 * - `payment_link_counts`: rows per (account, mode, status, partial payment present, settlement
 *   kind), in 16 stripes (`pg_backend_pid() % 16`, so concurrent writers of one account rarely
 *   update the same row), kept by triggers in the writing transaction and backfilled here.
 *   `expand=summary` without `q` or `client_id` sums these rows instead of counting the links.
 *
 * `events`: `(account_id, livemode, type, seq DESC)`, the list order by type (`GET /events?type=`).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

const GROUPS: Array<[string, string]> = [
  ['open', "status IN ('draft','active','viewed','processing')"],
  ['needs_attention', "status = 'processing' AND partial_payment IS NOT NULL"],
  ['paid', "status IN ('paid','settled')"],
  ['ended', "status IN ('cancelled','expired','refunded')"],
];

export class ListIndexesLinkCounts1764610000000 implements MigrationInterface {
  name = 'ListIndexesLinkCounts1764610000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    for (const [g, pred] of GROUPS) {
      await runner.query(
        `CREATE INDEX IF NOT EXISTS payment_links_group_${g}_idx ON payment_links(account_id, livemode, created_at DESC, id DESC) WHERE ${pred}`,
      );
    }
    await runner.query(
      'CREATE INDEX IF NOT EXISTS payment_links_settlement_kind_idx ON payment_links(account_id, livemode, settlement_kind, created_at DESC, id DESC) WHERE settlement_kind IS NOT NULL',
    );
    await runner.query('DROP INDEX IF EXISTS payment_links_client_idx');
    await runner.query(
      'CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id, created_at DESC, id DESC) WHERE client_id IS NOT NULL',
    );
    await runner.query(`CREATE INDEX IF NOT EXISTS payment_links_text_trgm_idx ON payment_links
      USING gin ((title || E'\\n' || coalesce(memo, '') || E'\\n' || coalesce(invoice_number, '')) gin_trgm_ops)`);
    await runner.query('CREATE INDEX IF NOT EXISTS events_account_type_idx ON events(account_id, livemode, type, seq DESC)');

    await runner.query(`
      CREATE TABLE payment_link_counts (
        account_id text NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL,
        has_partial boolean NOT NULL,
        settlement_kind text NOT NULL,
        stripe smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, livemode, status, has_partial, settlement_kind, stripe)
      );
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
      CREATE FUNCTION payment_link_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM payment_link_counts;
        RETURN NULL;
      END $$;
      CREATE TRIGGER payment_link_counts_ins_del AFTER INSERT OR DELETE ON payment_links FOR EACH ROW EXECUTE FUNCTION payment_link_counts_row();
      CREATE TRIGGER payment_link_counts_upd AFTER UPDATE OF account_id, livemode, status, partial_payment, settlement_kind ON payment_links FOR EACH ROW
        WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode OR OLD.status IS DISTINCT FROM NEW.status
          OR (OLD.partial_payment IS NULL) <> (NEW.partial_payment IS NULL) OR OLD.settlement_kind IS DISTINCT FROM NEW.settlement_kind)
        EXECUTE FUNCTION payment_link_counts_row();
      CREATE TRIGGER payment_link_counts_trunc AFTER TRUNCATE ON payment_links FOR EACH STATEMENT EXECUTE FUNCTION payment_link_counts_truncate();
    `);
    // The backfill and the triggers see the same rows: no link is written between them.
    await runner.query('LOCK TABLE payment_links IN SHARE ROW EXCLUSIVE MODE');
    await runner.query(`
      INSERT INTO payment_link_counts (account_id, livemode, status, has_partial, settlement_kind, stripe, n)
      SELECT account_id, livemode, status, partial_payment IS NOT NULL, coalesce(settlement_kind, ''), 0, count(*)
      FROM payment_links GROUP BY 1, 2, 3, 4, 5`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER IF EXISTS payment_link_counts_trunc ON payment_links;
      DROP TRIGGER IF EXISTS payment_link_counts_upd ON payment_links;
      DROP TRIGGER IF EXISTS payment_link_counts_ins_del ON payment_links;
      DROP FUNCTION IF EXISTS payment_link_counts_truncate();
      DROP FUNCTION IF EXISTS payment_link_counts_row();
      DROP FUNCTION IF EXISTS payment_link_counts_add(text, boolean, text, boolean, text, integer);
      DROP TABLE IF EXISTS payment_link_counts;
      DROP INDEX IF EXISTS events_account_type_idx;
      DROP INDEX IF EXISTS payment_links_text_trgm_idx;
      DROP INDEX IF EXISTS payment_links_client_idx;
      CREATE INDEX IF NOT EXISTS payment_links_client_idx ON payment_links(client_id) WHERE client_id IS NOT NULL;
      DROP INDEX IF EXISTS payment_links_settlement_kind_idx;
    `);
    for (const [g] of GROUPS) await runner.query(`DROP INDEX IF EXISTS payment_links_group_${g}_idx`);
  }
}
