/**
 * Conditional status writes in SQL through a transition table (issue 26 item 3): the one way a
 * status column is written outside an entity (`table.move(row, to)` of domain/transitions.ts is
 * the in-memory way). `moveRows` writes `status = to` only on rows whose current status may move
 * to `to` by the table (`WHERE ... AND status = ANY(sources)`), so a concurrent writer that already
 * moved a row past it leaves that row untouched; it answers how many rows moved.
 *
 * tests/unit/status-writes.test.ts fails on any other status write in the product's code.
 */
import type { EntityManager } from 'typeorm';
import type { TransitionTable } from '../domain/transitions';

/** One conditional status write (SQL fragments use `$1..$n` of `params`; the helper appends its own). */
export interface MoveRows<S extends string> {
  /** The table's SQL name (`wallet_sends`). */
  sqlTable: string;
  /** Row selection (`payout_id = $1 AND account_id = $2`), without the status condition. */
  where: string;
  params: unknown[];
  to: S;
  /** Only these current statuses (each must be allowed to move to `to`; default: every source of `to`). */
  from?: readonly S[];
  /** Further assignments in the same UPDATE (`closed_at = now(), tx_hash = $3`). */
  set?: string;
  /** The column holding the status (default `status`). */
  column?: string;
}

/**
 * Moves the rows `q` selects to `q.to` where the table allows it; returns their ids. Throws Error
 * (a programming error, not a 409) when `q.from` names a status that may not move to `q.to`.
 */
export async function moveRows<S extends string>(m: EntityManager | { query: EntityManager['query'] }, table: TransitionTable<S>, q: MoveRows<S>): Promise<string[]> {
  const sources = table.sources(q.to);
  const from = q.from ?? sources;
  for (const s of from) if (!sources.includes(s)) throw new Error(`${table.object}: ${s} -> ${q.to} is not in the transition table`);
  if (from.length === 0) return [];
  const col = q.column ?? 'status';
  const n = q.params.length;
  const set = q.set ? `, ${q.set}` : '';
  const res: unknown = await m.query(
    `UPDATE ${q.sqlTable} SET ${col} = $${n + 1}${set} WHERE (${q.where}) AND ${col} = ANY($${n + 2}::text[]) RETURNING id`,
    [...q.params, q.to, [...from]]);
  // TypeORM answers an UPDATE ... RETURNING as [rows, count]; pg as rows.
  const rows = (Array.isArray(res) && Array.isArray(res[0]) ? res[0] : res) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}
