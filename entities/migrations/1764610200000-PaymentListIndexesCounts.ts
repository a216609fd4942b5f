/**
 * `GET /payments` and `GET /payouts` lists and the payments summary that stay flat as an account
 * grows (decision 0077).
 *
 * - `payments`: `status` and `settlement` in the list order `(account_id, livemode, <filter>,
 *   created_at DESC, id DESC)` (settlement partial: null matches no filter);
 * - `payment_counts`: rows per (account, mode, status, settlement), 16 stripes as
 *   `payment_link_counts`, kept by triggers in the writing transaction and backfilled here;
 *   `GET /payments?expand=summary` without `payment_link_id` or `subscription_id` sums them;
 * - `payouts`: one partial index per status group of spec 4.3 on the list order (`needs_you` also
 *   holds any payout with `needs_attention`; the literals of domain/payouts/statuses.ts
 *   `PAYOUT_STATUS_GROUPS` as of this migration, which activities/payouts/queries.ts
 *   `groupPredicate` writes the same way).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

const PAYOUT_GROUPS: Array<[string, string]> = [
  ['needs_you', "(status IN ('draft','awaiting_funds','paid_with_shortfall') OR needs_attention)"],
  ['in_progress', "status IN ('funds_received','processing','paid')"],
  ['done', "status IN ('settled','failed','returned','expired','cancelled')"],
];

export class PaymentListIndexesCounts1764610200000 implements MigrationInterface {
  name = 'PaymentListIndexesCounts1764610200000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX IF NOT EXISTS payments_status_idx ON payments(account_id, livemode, status, created_at DESC, id DESC)',
    );
    await runner.query(
      'CREATE INDEX IF NOT EXISTS payments_settlement_idx ON payments(account_id, livemode, settlement, created_at DESC, id DESC) WHERE settlement IS NOT NULL',
    );
    for (const [g, pred] of PAYOUT_GROUPS) {
      await runner.query(
        `CREATE INDEX IF NOT EXISTS payouts_group_${g}_idx ON payouts(account_id, livemode, created_at DESC, id DESC) WHERE ${pred}`,
      );
    }
    await runner.query(`
      CREATE TABLE payment_counts (
        account_id text NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL,
        settlement text NOT NULL,
        stripe smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, livemode, status, settlement, stripe)
      );
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
      CREATE FUNCTION payment_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM payment_counts;
        RETURN NULL;
      END $$;
      CREATE TRIGGER payment_counts_ins_del AFTER INSERT OR DELETE ON payments FOR EACH ROW EXECUTE FUNCTION payment_counts_row();
      CREATE TRIGGER payment_counts_upd AFTER UPDATE OF account_id, livemode, status, settlement ON payments FOR EACH ROW
        WHEN (OLD.account_id IS DISTINCT FROM NEW.account_id OR OLD.livemode IS DISTINCT FROM NEW.livemode
          OR OLD.status IS DISTINCT FROM NEW.status OR OLD.settlement IS DISTINCT FROM NEW.settlement)
        EXECUTE FUNCTION payment_counts_row();
      CREATE TRIGGER payment_counts_trunc AFTER TRUNCATE ON payments FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_truncate();
    `);
    // The backfill and the triggers see the same rows: no payment is written between them.
    await runner.query('LOCK TABLE payments IN SHARE ROW EXCLUSIVE MODE');
    await runner.query(`
      INSERT INTO payment_counts (account_id, livemode, status, settlement, stripe, n)
      SELECT account_id, livemode, status, coalesce(settlement, ''), 0, count(*) FROM payments GROUP BY 1, 2, 3, 4`);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER IF EXISTS payment_counts_trunc ON payments;
      DROP TRIGGER IF EXISTS payment_counts_upd ON payments;
      DROP TRIGGER IF EXISTS payment_counts_ins_del ON payments;
      DROP FUNCTION IF EXISTS payment_counts_truncate();
      DROP FUNCTION IF EXISTS payment_counts_row();
      DROP FUNCTION IF EXISTS payment_counts_add(text, boolean, text, text, integer);
      DROP TABLE IF EXISTS payment_counts;
      DROP INDEX IF EXISTS payments_settlement_idx;
      DROP INDEX IF EXISTS payments_status_idx;
    `);
    for (const [g] of PAYOUT_GROUPS) await runner.query(`DROP INDEX IF EXISTS payouts_group_${g}_idx`);
  }
}
