/**
 * What the webhook pipeline holds for one endpoint URL, as text for a test's timeout message: the
 * dispatcher's cursor against the newest event, its gap wait, the oldest open transactions that
 * hold a transaction id (a gap waits for them), and the endpoint's deliveries. Read from the test
 * database; never throws (a failed read is reported in the text).
 */
import { db } from '../../lib/db';

const line = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n    ');

type Q = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;
const query: Q = (sql, params = []) => db().query(sql, params) as Promise<Array<Record<string, unknown>>>;

/** The dispatcher's part of the report: its cursor and gap wait against the newest event, and the oldest open transactions holding an id, by database. */
async function dispatcherLines(q: Q): Promise<string[]> {
  const [cursor] = await q(`SELECT seq, wait_up_to, wait_xmax, updated_at FROM outbox_cursors WHERE name = 'webhooks'`);
  const [head] = await q('SELECT max(seq) AS max_seq, pg_current_snapshot()::text AS snapshot FROM events');
  const open =
    await q(`SELECT pid, datname, backend_xid::text AS xid, round(extract(epoch FROM now() - xact_start)::numeric, 1) AS open_s, state, left(query, 120) AS query
                          FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start LIMIT 5`);
  return [
    `  dispatcher cursor ${JSON.stringify(cursor)}; newest event seq ${head.max_seq}; snapshot ${head.snapshot}`,
    `  oldest open transactions with an id:\n    ${line(open) || '(none)'}`,
  ];
}

/** The dispatcher's state alone (see module doc), for a wait on the dispatcher's cursor; never throws. */
export async function dispatcherReport(): Promise<string> {
  try {
    return ['webhook dispatcher:', ...(await dispatcherLines(query))].join('\n');
  } catch (e) {
    return `webhook dispatcher: unreadable (${String(e)})`;
  }
}

/** The report for endpoint URL `url` (see module doc). */
export async function webhookPipelineReport(url: string): Promise<string> {
  try {
    const deliveries = await query(
      `SELECT d.id, d.event_type, d.status, d.attempt_count, d.last_error, d.next_attempt_at, d.held_at, d.created_at, w.enabled
                                  FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.url = $1 ORDER BY d.created_at`,
      [url],
    );
    return [`webhook pipeline for ${url}:`, ...(await dispatcherLines(query)), `  deliveries:\n    ${line(deliveries) || '(none)'}`].join(
      '\n',
    );
  } catch (e) {
    return `webhook pipeline for ${url}: unreadable (${String(e)})`;
  }
}
