/**
 * Transition tables of long-lived objects (spec part 3; ARCHITECTURE.md "Data flow" 3). Every
 * status change is written by the object's record module (activities/records/<object>.ts), one
 * named function per transition, through the object's table: `table.move(row, to)` in memory,
 * or lib/status-writes.ts `moveRows` / `moveRowsEach` for a conditional SQL write (the table's
 * sources of `to` in the WHERE). tests/unit/status-writes.test.ts fails on any other write.
 *
 * An illegal transition throws `IllegalTransition`: a `409 conflict` on the wire (code
 * `<object>_state_changed` unless the table names another; "state moved, re-read"), and, because
 * its `name` is `IllegalTransition`, a non-retryable failure when an activity throws it (workflows
 * list the name in `nonRetryableErrorTypes`, see workflows/convention.ts).
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { DomainError } from './errors';

/** For each status, the statuses it may move to (an empty list: terminal). */
export type TransitionMap<S extends string> = { readonly [K in S]: readonly S[] };

/** The `409 conflict` thrown for a status change its table does not allow. */
export class IllegalTransition extends DomainError {
  override readonly name: string = 'IllegalTransition';
  constructor(object: string, code: string, from: string, to: string) {
    super('conflict', code, `A ${from} ${object.replace(/_/g, ' ')} cannot become ${to}.`, {
      details: { object, status: from, requested_status: to },
    });
  }
}

/** A checked transition table of one object type. */
export interface TransitionTable<S extends string> {
  /** Wire name of the object (`payment_link`, `payout`, ...). */
  readonly object: string;
  /** Every status, in the order of the map. */
  readonly statuses: readonly S[];
  /** Statuses with no way out. */
  readonly terminal: readonly S[];
  /** True when `from -> to` is allowed (`from === to` is not a transition and answers false). */
  can(from: string, to: S): boolean;
  /** Returns `to` when `from -> to` is allowed; throws `IllegalTransition` (409 conflict) otherwise. */
  assert(from: string, to: S): S;
  /** True when `s` is one of the object's statuses. */
  isStatus(s: string): s is S;
  /**
   * The open set: statuses in which the object is still live (its workflow runs, a recovery sweep
   * re-drives it). Every non-terminal status unless the table was built with `open`.
   */
  readonly open: readonly S[];
  /** The statuses that may move to `to` (what a conditional SQL write accepts in `WHERE status = ANY(...)`). */
  sources(to: S): S[];
  /**
   * The one way a row's status is written in memory (called only by record modules): sets
   * `row.status` to `to` when `row.status -> to` is allowed, throws `IllegalTransition` (409)
   * otherwise. Does not save.
   */
  move<R extends { status: string }>(row: R, to: S): R;
}

/**
 * Builds the table of `object` from `map`. `code` is the 409 code of an illegal transition
 * (default `<object>_state_changed`). Throws at load time when the map names an unknown status.
 */
export function transitionTable<S extends string>(
  object: string,
  map: TransitionMap<S>,
  code = `${object}_state_changed`,
  opts: { open?: readonly S[] } = {},
): TransitionTable<S> {
  const statuses = Object.keys(map) as S[];
  for (const s of statuses) {
    for (const n of map[s]) if (!(n in map)) throw new Error(`transition table ${object}: ${s} -> unknown status ${n}`);
  }
  for (const s of opts.open ?? []) if (!(s in map)) throw new Error(`transition table ${object}: open status ${s} is unknown`);
  const frozen = Object.freeze(Object.fromEntries(statuses.map((s) => [s, Object.freeze([...map[s]])]))) as TransitionMap<S>;
  const isStatus = (s: string): s is S => Object.prototype.hasOwnProperty.call(frozen, s);
  const can = (from: string, to: S) => isStatus(from) && frozen[from].includes(to);
  const assert = (from: string, to: S): S => {
    if (!can(from, to)) throw new IllegalTransition(object, code, from, to);
    return to;
  };
  return Object.freeze({
    object,
    statuses: Object.freeze(statuses),
    terminal: Object.freeze(statuses.filter((s) => frozen[s].length === 0)),
    open: Object.freeze([...(opts.open ?? statuses.filter((s) => frozen[s].length > 0))]),
    can,
    isStatus,
    assert,
    sources: (to: S) => statuses.filter((s) => frozen[s].includes(to)),
    move<R extends { status: string }>(row: R, to: S): R {
      row.status = assert(row.status, to);
      return row;
    },
  });
}
