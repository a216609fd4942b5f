/**
 * Quotes and orders (spec 4.9, 2.10; scopes `orders.read` / `orders.write`, shared by quotes).
 * Test-mode callers are refused on every operation. `POST /orders` is gated by the account's
 * terms acceptance (spec part 1). Rules in activities/orders/.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { cancelOrder, createOrder } from '../../activities/orders/commands';
import { findOrder, orderListQuery } from '../../activities/orders/queries';
import { createQuote, getQuote } from '../../activities/orders/quotes';
import { providerIdentity } from '../../activities/records/orders';
import type { OrderStatus } from '../../domain/orders';
import type { Order } from '../../entities';
import { paginate } from '../../lib/pagination';
import { listEnvelope } from '../../views/schema';
import { orderCreatedResponse, orderCreatedView, orderDetailResponse, orderDetailView, orderResponse, orderView } from '../../views/order';
import { quoteResponse, quoteView } from '../../views/quote';
import type { AppState } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { eventResponseList } from '../../views/payout';
import { createOrderBody, createQuoteBody, listOrdersQuery } from '../schemas/orders';
import { listQuery } from '../schemas/common';

const READ = 'orders.read';
const WRITE = 'orders.write';
const listView = (o: Order) => orderView(o, providerIdentity(o.provider));

/** Registers the quote and order operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'quotes.create',
    method: 'post',
    path: '/quotes',
    scope: WRITE,
    testMode: 'unavailable',
    successStatus: 201,
    inlineIdempotency: true,
    body: createQuoteBody,
    response: quoteResponse,
    errors: [409, 422],
    summary:
      "Price a buy, sell or swap across every provider at once (each under its own deadline): the winning offer, every offer, every provider's result. " +
      'Amounts are bare decimal strings in major units. The country is judged from `country` and from each forwarded header ' +
      '(`CF-IPCountry`, `CloudFront-Viewer-Country`, `X-Vercel-IP-Country`, `X-Country-Code`), each on its own.',
    handler: async ({ scope, body, ctx, idempotency }) =>
      (await createQuote(scope, { ...body, headers: ctx.headers, claim: idempotency })).wire,
  });

  mount(router, {
    id: 'quotes.get',
    method: 'get',
    path: '/quotes/:id',
    scope: READ,
    testMode: 'unavailable',
    response: quoteResponse,
    summary: 'A quote with its offers (`quote_status` `expired` after `expires_at`: re-quote).',
    handler: async ({ scope, params }) => {
      const q = await getQuote(scope, { id: params.id });
      return quoteView(q.quote, q.offers, providerIdentity);
    },
  });

  mount(router, {
    id: 'orders.list',
    method: 'get',
    path: '/orders',
    scope: READ,
    testMode: 'unavailable',
    query: listOrdersQuery,
    response: listEnvelope(orderResponse),
    summary: "The account's orders, newest first (filters `status`, `quote_id`).",
    handler: async ({ scope, query }) =>
      paginate(orderListQuery(scope, { status: query.status as OrderStatus | undefined, quote_id: query.quote_id }), 'o', query, listView),
  });

  mount(router, {
    id: 'orders.create',
    method: 'post',
    path: '/orders',
    scope: WRITE,
    testMode: 'unavailable',
    terms: 'account',
    successStatus: 201,
    body: createOrderBody,
    response: orderCreatedResponse,
    summary:
      'Execute an offer at its provider: the order with how to pay (`next_action` for a hosted checkout, `bank_deposit_instructions`, or `deposit_instructions`).',
    handler: async ({ scope, body }) => {
      const o = await createOrder(scope, body);
      return orderCreatedView(o, providerIdentity(o.provider));
    },
  });

  mount(router, {
    id: 'orders.get',
    method: 'get',
    path: '/orders/:id',
    scope: READ,
    testMode: 'unavailable',
    response: orderDetailResponse,
    handler: async ({ scope, params }) => {
      const o = await findOrder(scope, { id: params.id });
      return orderDetailView(o, providerIdentity(o.provider));
    },
  });

  mount(router, {
    id: 'orders.events.list',
    method: 'get',
    path: '/orders/:id/events',
    scope: READ,
    testMode: 'full',
    query: Joi.object(listQuery),
    response: eventResponseList,
    handler: async ({ caller, scope, params, query }) => objectEventsPage(caller, (await findOrder(scope, { id: params.id })).id, query),
  });

  mount(router, {
    id: 'orders.cancel',
    method: 'post',
    path: '/orders/:id/cancel',
    scope: WRITE,
    testMode: 'unavailable',
    response: orderResponse,
    summary:
      'Cancel an order before money moved (409 when money is held or captured, `payment_link_pay_in`, `cancel_unavailable`; 503 when the provider is out).',
    handler: async ({ scope, params }) => listView(await cancelOrder(scope, { id: params.id })),
  });
}
