/**
 * Credits (spec 2.11 "Credits", 4.10): GET /credits, GET /credit_events, POST /credit_checkouts.
 * Dashboard session only, never a business key (403 permission_error `role_denied`); the balance
 * is the account owner's personal one, so only the owner reads or buys it (other roles 403
 * `scope_denied`). A checkout returns the provider's hosted `url` and grants nothing: credits
 * arrive when the provider confirms payment (activities/credits.ts).
 */
import type Router from '@koa/router';
import { accountCreditBalance, createCheckout } from '../../activities/credits/commands';
import { listCreditEvents } from '../../activities/credits/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import { createCheckoutBody, listCreditEventsQuery } from '../schemas/credits';
import {
  creditBalanceOut,
  creditBalanceView,
  creditCheckoutOut,
  creditCheckoutView,
  creditEventListOut,
  creditEventView,
} from '../../views/credits';

const OWNER_SESSION = { callers: ['dashboard_session' as const], roles: ['owner' as const], testMode: 'unavailable' as const };

/** Registers the credits operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'credits.get',
    method: 'get',
    path: '/credits',
    scope: 'credits.read',
    ...OWNER_SESSION,
    response: creditBalanceOut,
    summary: "The account owner's personal screening-credit balance.",
    handler: async ({ scope }) => creditBalanceView(await accountCreditBalance(scope), scope.livemode),
  });

  mount(router, {
    id: 'credit_events.list',
    method: 'get',
    path: '/credit_events',
    scope: 'credits.read',
    ...OWNER_SESSION,
    query: listCreditEventsQuery,
    response: creditEventListOut,
    summary: 'The credit ledger, newest first, with `events_total` (exact lifetime row count).',
    handler: async ({ scope, query }) =>
      listCreditEvents(scope, { type: query.type, page: (qb) => paginate(qb, 'e', query, creditEventView) }),
  });

  mount(router, {
    id: 'credit_checkouts.create',
    method: 'post',
    path: '/credit_checkouts',
    scope: 'credits.write',
    ...OWNER_SESSION,
    body: createCheckoutBody,
    successStatus: 201,
    response: creditCheckoutOut,
    summary: 'Open a hosted checkout for a pack of 5, 10 or 20 credits; grants nothing until the provider confirms payment.',
    handler: async ({ scope, body }) => creditCheckoutView(await createCheckout(scope, { pack: body.pack })),
  });
}
