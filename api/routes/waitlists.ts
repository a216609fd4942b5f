/**
 * Product waitlists (spec 4.10 `POST /webhook_waitlist`, `POST /card_waitlist`; spec 5:
 * `account.write`, reachable by business keys). Joining is per account and waitlist: joining
 * again keeps the original `joined_at` and updates `email` / `use_case` when given. Body (all
 * optional): `email` (contact; defaults to the account email), `use_case` (up to 500 characters).
 * Not available in test mode (spec 1 rule 5).
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { joinWaitlist } from '../../activities/accounts/commands';
import type { AppState } from '../context';
import { mount } from '../operation';
import { waitlistEntryResponse, waitlistEntryView } from '../../views/account-setup';

const body = Joi.object({
  email: Joi.string()
    .trim()
    .email({ tlds: { allow: false } })
    .max(254),
  use_case: Joi.string().trim().max(500).allow(null),
});

/** Mounts both waitlist operations (see the module doc). */
export function register(router: Router<AppState>): void {
  for (const [path, waitlist, id] of [
    ['/webhook_waitlist', 'webhooks', 'webhook_waitlist.join'],
    ['/card_waitlist', 'cards', 'card_waitlist.join'],
  ] as const) {
    mount(router, {
      id,
      method: 'post',
      path,
      scope: 'account.write',
      testMode: 'unavailable',
      summary: `Join the ${waitlist} waitlist (once per account; repeat calls update the contact).`,
      body,
      response: waitlistEntryResponse,
      handler: async ({ scope, body: b }) =>
        waitlistEntryView(await joinWaitlist(scope, { waitlist, email: b.email ?? null, use_case: b.use_case })),
    });
  }
}
