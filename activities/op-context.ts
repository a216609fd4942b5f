/** The context every command of an area runs in (ARCHITECTURE.md "Layout", activities/). */
import type { RequestRef } from '../lib/outbox';

/** Who acts and under which request: every operation is scoped to (account, livemode). */
export interface OpContext {
  accountId: string;
  livemode: boolean;
  /** Request id and Idempotency-Key, copied onto outbox events (spec 2.11 `request`). */
  request: RequestRef | null;
}

/** The (account, livemode) a read is scoped to (a Caller or an OpContext fits). */
export type AccountScope = Pick<OpContext, 'accountId' | 'livemode'>;
