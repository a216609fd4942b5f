/**
 * The open set of a transition table as an SQL list of literals (`'a', 'b'`), for a recovery
 * sweep's `status IN (...)` (lib/db.ts `forEachByKeyset` binds only the cursor and the batch).
 */
import type { TransitionTable } from '../domain/transitions';

/** `table.open` as `'a', 'b'`. Statuses are the table's own names; anything but `[a-z_]` throws Error. */
export function openStatusList<S extends string>(table: TransitionTable<S>): string {
  return table.open
    .map((s) => {
      if (!/^[a-z_]+$/.test(s)) throw new Error(`${table.object}: status ${s} is not a plain name`);
      return `'${s}'`;
    })
    .join(', ');
}
