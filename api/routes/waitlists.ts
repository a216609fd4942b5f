/**
 * Product waitlists (spec 4.10 `POST /webhook_waitlist`, `POST /card_waitlist`; spec 5:
 * `account.write`, reachable by business keys). Joining is per account and waitlist: joining
 * again keeps the original `joined_at` and updates `email` / `use_case` when given. Body (all
 * optional): `email` (contact; defaults to the account email), `use_case` (up to 500 characters).
 * Not available in test mode (spec 1 rule 5).
 */
import type Router from '@koa/router';
import Joi from 'joi';
import { WaitlistEntry } from '../../entities';
import { db } from '../../lib/db';
import type { AppState } from '../context';
import { mount } from '../operation';
import { waitlistEntryResponse, waitlistEntryView } from '../../views/account-setup';

const body = Joi.object({
  email: Joi.string().trim().email({ tlds: { allow: false } }).max(254),
  use_case: Joi.string().trim().max(500).allow(null),
});

/** Mounts both waitlist operations (see the module doc). */
export function register(r: Router<AppState>): void {
  for (const [path, waitlist, id] of [['/webhook_waitlist', 'webhooks', 'webhook_waitlist.join'], ['/card_waitlist', 'cards', 'card_waitlist.join']] as const) {
    mount(r, {
      id, method: 'post', path, scope: 'account.write', testMode: 'unavailable',
      summary: `Join the ${waitlist} waitlist (once per account; repeat calls update the contact).`,
      body,
      response: waitlistEntryResponse,
      handler: async ({ caller, body: b }) => {
        const who = caller.keyId ?? caller.userId ?? 'unknown';
        await db().query(
          `INSERT INTO waitlist_entries(account_id, waitlist, email, use_case, joined_by)
           SELECT a.id, $2, COALESCE($3, a.email), $4, $5 FROM accounts a WHERE a.id = $1
           ON CONFLICT (account_id, waitlist) DO UPDATE SET
             email = COALESCE($3, waitlist_entries.email),
             use_case = CASE WHEN $6 THEN $4 ELSE waitlist_entries.use_case END,
             updated_at = date_trunc('milliseconds', clock_timestamp())`,
          [caller.accountId, waitlist, b.email ?? null, b.use_case ?? null, who, b.use_case !== undefined]);
        const entry = await db().getRepository(WaitlistEntry).findOneByOrFail({ account_id: caller.accountId, waitlist });
        return waitlistEntryView(entry);
      },
    });
  }
}
