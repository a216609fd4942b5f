/**
 * The command scope a payer's request on a payment link runs in (activities/scope.ts
 * `systemScope`: the link's account and mode, no caller), for tests that start payments on a link
 * by id as the payer session routes do. An unknown link gets a scope in which nothing is found.
 */
import { systemScope, type Scope } from '../../activities/scope';
import { db } from '../../lib/db';
import type { RequestRef } from '../../lib/outbox';

/** The payer scope of link `linkId` (its account and mode) under `request`. */
export async function payerScopeOf(linkId: string, request: RequestRef | null = null): Promise<Scope> {
  const rows: Array<{ account_id: string; livemode: boolean }> = await db().query(
    'SELECT account_id, livemode FROM payment_links WHERE id = $1',
    [linkId],
  );
  return rows[0] ? systemScope(rows[0].account_id, rows[0].livemode, request) : systemScope('acct_unknown', true, request);
}
