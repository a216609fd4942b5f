/**
 * The scope every command and query runs in (ARCHITECTURE.md "Layout", activities/):
 * commands are `(scope, input)`, queries `(scope, input)` or `(scope, id)`. Every operation is
 * bound to one (account, livemode) (spec 1 rule 5, spec 5): the scope carries them with the caller
 * that acts and the request that caused it, so no command spells its own account filter (reads go
 * through lib/scoped.ts `scoped(scope)`).
 */
import type { Caller } from '../domain/caller';
import type { RequestRef } from '../lib/outbox';

/** Who acts, for which (account, livemode), under which request. */
export interface Scope {
  accountId: string;
  livemode: boolean;
  /** The authenticated caller (null for system work: a workflow, the simulator, a payer's public token). */
  caller: Caller | null;
  /** Request id and Idempotency-Key, copied onto outbox events (spec 2.11 `request`); null outside a request. */
  request: RequestRef | null;
}

/** The (account, livemode) a read is bound to (a Scope or a Caller fits). */
export type AccountScope = Pick<Scope, 'accountId' | 'livemode'>;

/** The scope of an API request made by `caller` (`request`: its id and Idempotency-Key). */
export function scopeOf(caller: Caller, request: RequestRef | null): Scope {
  return { accountId: caller.accountId, livemode: caller.livemode, caller, request };
}

/** The scope of system work on an object of (account, livemode): no caller, no request (a workflow, a sweep, a public-token page). */
export function systemScope(accountId: string, livemode: boolean, request: RequestRef | null = null): Scope {
  return { accountId, livemode, caller: null, request };
}
