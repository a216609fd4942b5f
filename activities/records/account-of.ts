/**
 * The account that owns an object, read by id without a tenant scope: what a signal helper needs to
 * address the object's workflow (workflow arguments `{ id, accountId }`) when the caller is a
 * provider report or a system process that knows only the object's id. Shared records
 * (activities/records/): every area may import it.
 */
import { db } from '../../lib/db';

/** The tables whose rows a signal helper looks up by id: each has an `id` primary key and an `account_id` column. */
const SIGNALLED_TABLES = [
  'customers',
  'orders',
  'payment_links',
  'payments',
  'payouts',
  'payroll_run_items',
  'payroll_runs',
  'wallet_deposit_intents',
  'wallet_offramp_intents',
  'wallet_send_intents',
] as const;

/** A table `accountOf` reads: one of a fixed list, so the table name spliced into the SQL is never caller text. */
export type SignalledTable = (typeof SIGNALLED_TABLES)[number];

/**
 * The `account_id` of row `id` of `table`, or null when there is no such row. `table` is checked
 * against the fixed list at run time too (a cast cannot smuggle text into the SQL): any other
 * value throws Error.
 */
export async function accountOf(table: SignalledTable, id: string): Promise<string | null> {
  if (!(SIGNALLED_TABLES as readonly string[]).includes(table)) throw new Error(`accountOf: ${String(table)} is not a signalled table`);
  const rows: Array<{ account_id: string }> = await db().query(`SELECT account_id FROM ${table} WHERE id = $1`, [id]);
  return rows[0]?.account_id ?? null;
}
