/**
 * Conditional status writes in SQL through a transition table: the one way a
 * status column is written outside an entity (`table.move(row, to)` of domain/transitions.ts is
 * the in-memory way). `moveRows` writes `status = to` only on rows whose current status may move
 * to `to` by the table (`WHERE ... AND status = ANY(sources)`), so a concurrent writer that already
 * moved a row past it leaves that row untouched; it answers the ids of the rows moved.
 * `moveRowsEach` is the same write for a batch whose rows each carry their own target (a drain's
 * attempt outcomes), guarded per row by the pair (current status, target).
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
export async function moveRows<S extends string>(
  value: EntityManager | { query: EntityManager['query'] },
  table: TransitionTable<S>,
  input: MoveRows<S>,
): Promise<string[]> {
  const sources = table.sources(input.to);
  const from = input.from ?? sources;
  for (const s of from) if (!sources.includes(s)) throw new Error(`${table.object}: ${s} -> ${input.to} is not in the transition table`);
  if (from.length === 0) return [];
  const col = input.column ?? 'status';
  const n = input.params.length;
  const set = input.set ? `, ${input.set}` : '';
  const res: unknown = await value.query(
    `UPDATE ${input.sqlTable} SET ${col} = $${n + 1}${set} WHERE (${input.where}) AND ${col} = ANY($${n + 2}::text[]) RETURNING id`,
    [...input.params, input.to, [...from]],
  );
  // TypeORM answers an UPDATE ... RETURNING as [rows, count]; pg as rows.
  const rows = (Array.isArray(res) && Array.isArray(res[0]) ? res[0] : res) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}

/**
 * One conditional status write whose target differs per row (a batch of outcomes written at once):
 * `UPDATE <sqlTable> <alias> SET status = t.target, <set> FROM <rows> WHERE <alias>.id = t.id ...`.
 */
export interface MoveRowsEach<S extends string> {
  /** The table's SQL name (`webhook_deliveries`). */
  sqlTable: string;
  /** Its alias in `set` and `where` (`d`). */
  alias: string;
  /**
   * The per-row relation, aliased `t`, with at least `id` (the row to move) and `target` (its
   * status to be), plus what `set` reads: `unnest($1::text[], $2::text[], $3::int[]) AS t(id, target, attempt)`.
   */
  rows: string;
  params: unknown[];
  /** Every target a row may carry (a row whose target is not listed does not move). */
  to: readonly S[];
  /**
   * Targets that may be written again on a row already in them (not a transition, e.g. a further
   * failed webhook attempt stays `retrying`); each must be in `to`.
   */
  repeat?: readonly S[];
  /** Further row selection (`d.endpoint_id = $7`), without the status condition. */
  where?: string;
  /** Further assignments (`attempt_count = t.attempt, updated_at = now()`). */
  set?: string;
  /** The column holding the status (default `status`). */
  column?: string;
}

/**
 * Moves each row of `q.rows` to its own `t.target` where the table allows it (the pair (current
 * status, target) is a transition of the table, or a listed `repeat`); returns the ids moved.
 * Throws Error (a programming error) when `to` or `repeat` names a status the table does not know.
 */
export async function moveRowsEach<S extends string>(
  value: EntityManager | { query: EntityManager['query'] },
  table: TransitionTable<S>,
  input: MoveRowsEach<S>,
): Promise<string[]> {
  const repeat = input.repeat ?? [];
  for (const s of [...input.to, ...repeat]) if (!table.isStatus(s)) throw new Error(`${table.object}: unknown status ${s}`);
  for (const s of repeat) if (!input.to.includes(s)) throw new Error(`${table.object}: repeat ${s} is not a target`);
  const pairs = input.to.flatMap((to) => [...table.sources(to), ...(repeat.includes(to) ? [to] : [])].map((from) => [from, to] as const));
  if (pairs.length === 0) return [];
  const col = input.column ?? 'status';
  const a = input.alias;
  const n = input.params.length;
  const set = input.set ? `, ${input.set}` : '';
  const where = input.where ? ` AND (${input.where})` : '';
  const res: unknown = await value.query(
    `UPDATE ${input.sqlTable} ${a} SET ${col} = t.target${set} FROM ${input.rows}
      WHERE ${a}.id = t.id${where} AND (${a}.${col}, t.target) IN (SELECT * FROM unnest($${n + 1}::text[], $${n + 2}::text[])) RETURNING ${a}.id`,
    [...input.params, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  const rows = (Array.isArray(res) && Array.isArray(res[0]) ? res[0] : res) as Array<{ id: string }>;
  return rows.map((r) => r.id);
}
