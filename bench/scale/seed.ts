/**
 * bench:scale's bulk load: copies of rows the product itself wrote (templates made through the API
 * and /sim in bench/scale.ts), multiplied in SQL with `generate_series`, so every column holds
 * what the product writes. Each copy gets ids derived from the template's (same prefix, `S<g>T<hash>`
 * or `M<g>T<hash>` for the small accounts), so references between copies (a payment's link, an
 * event's object) stay consistent within one generation `g`.
 */
import { Client } from 'pg';
import { LINK_WORKFLOW_LIVE_STATUSES } from '../../domain/payment-links';
import { LIVE_PAYMENT_STATUSES, SETTLEABLE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';

/** Row counts at scale 1 (issue 27 item 1). */
export const FULL = {
  links: 1_000_000,
  events: 10_000_000,
  requestLogs: 20_000_000,
  payouts: 100_000,
  payrollRuns: 1_000,
  smallAccounts: 10_000,
};
/** What each small account holds. */
export const PER_SMALL = { links: 10, events: 20, requestLogs: 50 };
/** Rows per INSERT statement (progress and transaction size). */
const CHUNK_ROWS = 200_000;
const DAY_S = 86_400;

export interface SeedTimes {
  table: string;
  rows: number;
  seconds: number;
}

/**
 * Rebuilds the counts (payment_link_counts, payment_counts, event_counts_hourly and _daily, kept by
 * triggers, migrations 1764610000000-1764610200000; request_log_counts, kept by the batch insert,
 * migration 1764640000000) from their tables after a load that bypassed what keeps them, each in one
 * transaction that holds off writers of its table; timed into `times`.
 */
async function rebuildCounts(c: Client, log: (m: string) => void, times: SeedTimes[]): Promise<void> {
  const t0 = performance.now();
  const rebuild = async (table: string, counts: string[], inserts: string[]) => {
    await c.query('BEGIN');
    try {
      await c.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
      for (const t of counts) await c.query(`DELETE FROM ${t}`);
      for (const sql of inserts) await c.query(sql);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    }
  };
  await rebuild(
    'payment_links',
    ['payment_link_counts'],
    [
      `INSERT INTO payment_link_counts (account_id, livemode, status, has_partial, settlement_kind, stripe, n)
    SELECT account_id, livemode, status, partial_payment IS NOT NULL, coalesce(settlement_kind, ''), 0, count(*) FROM payment_links GROUP BY 1, 2, 3, 4, 5`,
    ],
  );
  await rebuild(
    'payments',
    ['payment_counts'],
    [
      `INSERT INTO payment_counts (account_id, livemode, status, settlement, stripe, n)
    SELECT account_id, livemode, status, coalesce(settlement, ''), 0, count(*) FROM payments GROUP BY 1, 2, 3, 4`,
    ],
  );
  await rebuild(
    'events',
    ['event_counts_hourly', 'event_counts_daily'],
    ['hour', 'day'].map(
      (unit) => `INSERT INTO event_counts_${unit === 'hour' ? 'hourly' : 'daily'}
    SELECT account_id, livemode, type, date_trunc('${unit}', created_at AT TIME ZONE 'UTC'), 0, count(*), min(created_at), max(created_at) FROM events GROUP BY 1, 2, 3, 4`,
    ),
  );
  await rebuild(
    'request_logs',
    ['request_log_counts'],
    [
      `INSERT INTO request_log_counts (account_id, livemode, hour, api_key_id, method, status, n)
    SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'), coalesce(api_key_id, ''), method, status, count(*)
      FROM request_logs WHERE account_id IS NOT NULL AND livemode IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`,
    ],
  );
  const seconds = (performance.now() - t0) / 1000;
  times.push({ table: 'counts rebuilt (links, payments, events, request logs)', rows: 0, seconds });
  log(`seed: counts rebuilt in ${seconds.toFixed(1)} s`);
}

/** The copy's id: the template's prefix, `<tag><g>T<6 hex of md5(template id)>`; NULL stays NULL. */
const SID = `CREATE FUNCTION pg_temp.sid(id text, tag text, g bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT substring(id from '^(.*_)') || tag || g::text || 'T' || substr(md5(id), 1, 6) $$`;

/**
 * Loads the scaled rows (`FULL` x `scale`) for `large` (whose template rows already exist) and
 * `smallCount` small accounts cloned from `emptyAccount`'s row; prints progress through `log`.
 * Returns each table's rows and seconds. Throws on any SQL error.
 */
export async function seedScale(
  url: string,
  callback: { large: string; emptyAccount: string; scale: number; log: (m: string) => void },
): Promise<SeedTimes[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  const times: SeedTimes[] = [];
  const n = (x: number) => Math.max(1, Math.round(x * callback.scale));
  try {
    await c.query(SID);
    await c.query('SET synchronous_commit = off');
    // Bulk load: the counter triggers (decision 0077) would add to one counter row per copied row in
    // one statement (an O(n^2) update chain), so ordinary triggers and FK checks are off here and the
    // counts are rebuilt from the rows at the end (rebuildCounts), as the migrations backfilled them.
    await c.query('SET session_replication_role = replica');
    /** Templates only: never a copy made here (ids ending `<S|M><g>T<6 hex>`). */
    const original = (where: string) => `(${where}) AND t0.id !~ '_[SM][0-9]+T[0-9a-f]{6}$'`;
    const cols = async (table: string, omit: string[] = []) =>
      (
        await c.query(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
          [table],
        )
      ).rows
        .map((r: { column_name: string }) => r.column_name)
        .filter((x: string) => !omit.includes(x));
    /**
     * INSERT copies of `table`'s rows matching `where` (alias t0; row number `t.rn__` from 1) for
     * g = 1..gens, `set` overriding columns by SQL over `t` and `g`; chunked; timed. Rows go in
     * generation by generation, each in the templates' order, so a sequence column (events.seq)
     * interleaves types as the product writes them (not 5,000 copies of one template in a row).
     */
    const clone = async (
      table: string,
      where0: string,
      params: unknown[],
      gens: number,
      set: Record<string, string>,
      label = table,
      omit: string[] = [],
    ) => {
      const where = original(where0);
      const cs = await cols(table, omit);
      const tpl = Number((await c.query(`SELECT count(*)::int AS n FROM ${table} t0 WHERE ${where}`, params)).rows[0].n);
      if (tpl === 0) {
        callback.log(`seed ${label}: no template rows, skipped`);
        return;
      }
      const per = Math.max(1, Math.floor(CHUNK_ROWS / tpl));
      const t0 = performance.now();
      let rows = 0;
      for (let lo = 1; lo <= gens; lo += per) {
        const hi = Math.min(gens, lo + per - 1);
        const sql = `INSERT INTO ${table} (${cs.map((x) => `"${x}"`).join(', ')})
          SELECT ${cs.map((x) => set[x] ?? `t."${x}"`).join(', ')}
            FROM (SELECT t0.*, row_number() OVER (ORDER BY t0.created_at, t0.id) AS rn__ FROM ${table} t0 WHERE ${where}) t
            CROSS JOIN generate_series(${lo}::bigint, ${hi}::bigint) g
          ORDER BY g, t.rn__`;
        rows += (await c.query(sql, params)).rowCount ?? 0;
        if (performance.now() - t0 > 5000 && hi < gens) callback.log(`seed ${label}: ${rows.toLocaleString('en-US')} rows...`);
      }
      const seconds = (performance.now() - t0) / 1000;
      times.push({ table: label, rows, seconds });
      callback.log(`seed ${label}: ${rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s (${tpl} templates x ${gens})`);
    };
    const gensFor = async (table: string, where: string, params: unknown[], target: number) =>
      Math.max(
        1,
        Math.ceil(
          target /
            Math.max(1, Number((await c.query(`SELECT count(*)::int AS n FROM ${table} t0 WHERE ${original(where)}`, params)).rows[0].n)),
        ),
      );
    const spread = (gens: number, days: number) =>
      `t.created_at - make_interval(secs => ((${gens} - g + 1)::float8 * ${(days * DAY_S) / gens}))`;
    const L = [callback.large];

    // Templates: the large account's rows that no recovery sweep picks up (no live copies).
    const linkTpl = `t0.account_id = $1 AND t0.status NOT IN (${sqlStatusList(LINK_WORKFLOW_LIVE_STATUSES)})`;
    const payTpl = `t0.account_id = $1 AND t0.status NOT IN (${sqlStatusList([...LIVE_PAYMENT_STATUSES, ...SETTLEABLE_PAYMENT_STATUSES])}) AND t0.settlement_rail_payment_id IS NULL
      AND t0.payment_link_id IN (SELECT t0.id FROM payment_links t0 WHERE ${linkTpl})`;

    // Small accounts (their users and accounts rows, copies of the empty account's).
    const S = n(FULL.smallAccounts);
    await clone(
      'users',
      `t0.id = (SELECT owner_user_id FROM accounts WHERE id = $1)`,
      [callback.emptyAccount],
      S,
      { id: `pg_temp.sid(t.id, 'M', g)`, email: `'scale-small-' || g || '@merchant.example'` },
      'users (small accounts)',
    );
    await clone(
      'accounts',
      `t0.id = $1`,
      [callback.emptyAccount],
      S,
      {
        id: `pg_temp.sid(t.id, 'M', g)`,
        owner_user_id: `pg_temp.sid(t.owner_user_id, 'M', g)`,
        display_name: `'Small merchant ' || g`,
        email: `'scale-small-' || g || '@merchant.example'`,
      },
      'accounts (small)',
    );
    const smallAcct = (expr: string) => `pg_temp.sid('${callback.emptyAccount}', 'M', ((${expr}) % ${S}) + 1)`;

    // The large account's links and their payments: same generation -> same link.
    const gL = await gensFor('payment_links', linkTpl, L, n(FULL.links));
    const linkIds = (tag: string) => ({
      id: `pg_temp.sid(t.id, '${tag}', g)`,
      short_code: `t.short_code || '${tag}' || g`,
      reference_id: `t.reference_id || '-${tag}' || g`,
      payer_token: `CASE WHEN t.payer_token IS NULL THEN NULL ELSE t.payer_token || '${tag}' || g END`,
    });
    await clone(
      'payment_links',
      linkTpl,
      L,
      gL,
      {
        ...linkIds('S'),
        title: `t.title || ' ' || g`,
        invoice_number: `CASE WHEN t.invoice_number IS NULL THEN NULL ELSE t.invoice_number || '-' || g END`,
        created_at: spread(gL, 730),
        updated_at: spread(gL, 730),
      },
      'payment_links (large)',
    );
    await clone(
      'payments',
      payTpl,
      L,
      gL,
      {
        id: `pg_temp.sid(t.id, 'S', g)`,
        payment_link_id: `pg_temp.sid(t.payment_link_id, 'S', g)`,
        deposit_address: `CASE WHEN t.deposit_address IS NULL THEN NULL ELSE t.deposit_address || 'S' || g END`,
        bank_reference: `CASE WHEN t.bank_reference IS NULL THEN NULL ELSE t.bank_reference || 'S' || g END`,
        created_at: spread(gL, 730),
        updated_at: spread(gL, 730),
      },
      'payments (large)',
    );
    // Events: objects of generation ((g - 1) % gL) + 1, so `object=` finds a few per object.
    const evTpl = `t0.account_id = $1`;
    const gE = await gensFor('events', evTpl, L, n(FULL.events));
    const objG = `(((g - 1) % ${gL}) + 1)`;
    await clone(
      'events',
      evTpl,
      L,
      gE,
      {
        id: `pg_temp.sid(t.id, 'S', g)`,
        object_id: `pg_temp.sid(t.object_id, 'S', ${objG})`,
        related_object_ids: `ARRAY(SELECT pg_temp.sid(x, 'S', ${objG}) FROM unnest(t.related_object_ids) x)`,
        created_at: spread(gE, 730),
        dispatched_at: `coalesce(t.dispatched_at, t.created_at)`,
      },
      'events (large)',
      ['seq'],
    );
    const rlTpl = `t0.account_id = $1`;
    const gR = await gensFor('request_logs', rlTpl, L, n(FULL.requestLogs));
    await clone(
      'request_logs',
      rlTpl,
      L,
      gR,
      { id: `pg_temp.sid(t.id, 'S', g)`, created_at: `now() - make_interval(secs => (g::float8 * ${(29 * DAY_S) / gR}))` },
      'request_logs (large)',
    );
    const poTpl = `t0.account_id = $1`;
    const gPO = await gensFor('payouts', poTpl, L, n(FULL.payouts));
    await clone(
      'payouts',
      poTpl,
      L,
      gPO,
      {
        id: `pg_temp.sid(t.id, 'S', g)`,
        created_at: spread(gPO, 730),
        updated_at: spread(gPO, 730),
      },
      'payouts (large)',
    );
    const runTpl = `t0.account_id = $1`;
    const gP = await gensFor('payroll_runs', runTpl, L, n(FULL.payrollRuns));
    await clone(
      'payroll_runs',
      runTpl,
      L,
      gP,
      {
        id: `pg_temp.sid(t.id, 'S', g)`,
        run_reference: `t.run_reference || 'S' || g`,
        created_at: spread(gP, 730),
        updated_at: spread(gP, 730),
      },
      'payroll_runs (large)',
    );
    await clone(
      'payroll_run_items',
      `t0.account_id = $1`,
      L,
      gP,
      {
        id: `pg_temp.sid(t.id, 'S', g)`,
        run_id: `pg_temp.sid(t.run_id, 'S', g)`,
        session_token: `t.session_token || 'S' || g`,
      },
      'payroll_run_items (large)',
    );

    // The small accounts' links (drafts and ended ones only), events and request logs.
    const tplCount = async (table: string, where: string) =>
      Number((await c.query(`SELECT count(*)::int AS n FROM ${table} t0 WHERE ${original(where)}`, L)).rows[0].n);
    const smallLinkTpl = `${linkTpl} AND t0.id NOT IN (SELECT payment_link_id FROM payments WHERE payment_link_id IS NOT NULL)`;
    const nsl = await tplCount('payment_links', smallLinkTpl);
    await clone(
      'payment_links',
      smallLinkTpl,
      L,
      Math.ceil((S * PER_SMALL.links) / Math.max(1, nsl)),
      {
        ...linkIds('M'),
        account_id: smallAcct(`g * ${nsl} + t.rn__`),
        created_at: `t.created_at - make_interval(secs => (g::float8 * 3600))`,
        updated_at: `t.updated_at - make_interval(secs => (g::float8 * 3600))`,
      },
      'payment_links (small)',
    );
    const nse = await tplCount('events', evTpl);
    await clone(
      'events',
      evTpl,
      L,
      Math.ceil((S * PER_SMALL.events) / Math.max(1, nse)),
      {
        id: `pg_temp.sid(t.id, 'M', g)`,
        account_id: smallAcct(`g * ${nse} + t.rn__`),
        created_at: `t.created_at - make_interval(secs => (g::float8 * 3600))`,
        dispatched_at: `coalesce(t.dispatched_at, t.created_at)`,
      },
      'events (small)',
      ['seq'],
    );
    const nsr = await tplCount('request_logs', rlTpl);
    await clone(
      'request_logs',
      rlTpl,
      L,
      Math.ceil((S * PER_SMALL.requestLogs) / Math.max(1, nsr)),
      {
        id: `pg_temp.sid(t.id, 'M', g)`,
        account_id: smallAcct(`g * ${nsr} + t.rn__`),
        api_key_id: 'NULL',
        created_at: `now() - make_interval(secs => ((g * ${nsr} + t.rn__) % ${29 * DAY_S})::float8)`,
      },
      'request_logs (small)',
    );

    await c.query('SET session_replication_role = origin');
    await rebuildCounts(c, callback.log, times);

    // The seeded past was dispatched long ago: the dispatcher's durable cursor starts after it.
    await c.query(
      `UPDATE outbox_cursors SET seq = (SELECT max(seq) FROM events), wait_up_to = NULL, wait_xmax = NULL, updated_at = now() WHERE name = 'webhooks'`,
    );
    const t0 = performance.now();
    for (const t of [
      'users',
      'accounts',
      'payment_links',
      'payments',
      'events',
      'request_logs',
      'payouts',
      'payroll_runs',
      'payroll_run_items',
    ])
      await c.query(`VACUUM (ANALYZE) ${t}`);
    const seconds = (performance.now() - t0) / 1000;
    times.push({ table: 'VACUUM (ANALYZE)', rows: 0, seconds });
    callback.log(`seed: VACUUM (ANALYZE) in ${seconds.toFixed(1)} s`);
  } finally {
    await c.end();
  }
  return times;
}
