/**
 * Subscriptions (spec 4.2; scopes `payment_links.read` / `.write`, which cover subscriptions): a
 * merchant bills a client a fixed USDC amount per interval, settled to its own wallet; each invoice
 * is a pay-in (`GET /payments?subscription_id=`). Test mode unavailable, like the payments it
 * creates. Rules in activities/subscriptions/.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { cancelSubscription, createSubscription, pauseSubscription, resumeSubscription } from '../../activities/subscriptions/commands';
import { findInvoice, findSubscription, invoiceListQuery, paymentsOf, subscriptionListQuery } from '../../activities/subscriptions/queries';
import { subscriptionWire } from '../../activities/records/subscriptions';
import type { SubscriptionStatus } from '../../domain/subscriptions';
import { paginate } from '../../lib/pagination';
import { chainAdapter } from '../../providers/chain';
import { listEnvelope } from '../../views/schema';
import { invoiceResponse, invoiceView, subscriptionResponse } from '../../views/subscription';
import type { AppState } from '../context';
import { mount, type OperationDef } from '../operation';
import { listQuery } from '../schemas/common';
import { createSubscriptionBody, listSubscriptionsQuery } from '../schemas/subscriptions';

const READ: Pick<OperationDef, 'scope' | 'testMode'> = { scope: 'payment_links.read', testMode: 'unavailable' };
const WRITE: Pick<OperationDef, 'scope' | 'testMode'> = { scope: 'payment_links.write', testMode: 'unavailable' };

/** Registers the subscription operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    ...READ,
    id: 'subscriptions.list',
    method: 'get',
    path: '/subscriptions',
    query: listSubscriptionsQuery,
    response: listEnvelope(subscriptionResponse),
    summary: "The account's subscriptions, newest first (filters `status`, `client_id`).",
    handler: async ({ scope, query }) =>
      paginate(
        subscriptionListQuery(scope, { status: query.status as SubscriptionStatus | undefined, client_id: query.client_id }),
        's',
        query,
        (s) => subscriptionWire(s),
      ),
  });

  mount(router, {
    ...WRITE,
    id: 'subscriptions.create',
    method: 'post',
    path: '/subscriptions',
    successStatus: 201,
    body: createSubscriptionBody,
    response: subscriptionResponse,
    summary:
      'Bill a client a fixed USDC amount every interval, settled to an address-book wallet on the service chain; the first invoice is issued at the anchor.',
    handler: async ({ scope, body }) => subscriptionWire(await createSubscription(scope, body)),
  });

  mount(router, {
    ...READ,
    id: 'subscriptions.get',
    method: 'get',
    path: '/subscriptions/:id',
    response: subscriptionResponse,
    handler: async ({ scope, params }) => subscriptionWire(await findSubscription(scope, { id: params.id })),
  });

  for (const [verb, fn, summary] of [
    [
      'pause',
      pauseSubscription,
      'Pause billing: no invoice is issued for a period that starts while paused (409 `subscription_not_pausable`).',
    ],
    ['resume', resumeSubscription, 'Resume billing at the next period boundary, without proration (409 `subscription_not_paused`).'],
    [
      'cancel',
      cancelSubscription,
      'Cancel: open and overdue invoices are void and their pay-ins closed (409 `subscription_not_cancellable` once completed).',
    ],
  ] as const) {
    mount(router, {
      ...WRITE,
      id: `subscriptions.${verb}`,
      method: 'post',
      path: `/subscriptions/:id/${verb}`,
      response: subscriptionResponse,
      summary,
      handler: async ({ scope, params }) => subscriptionWire(await fn(scope, { id: params.id })),
    });
  }

  mount(router, {
    ...READ,
    id: 'subscriptions.invoices.list',
    method: 'get',
    path: '/subscriptions/:id/invoices',
    query: Joi.object(listQuery),
    response: listEnvelope(invoiceResponse),
    summary: "The subscription's invoices, newest first, each with its pay-in's status and deposit instructions while payable.",
    handler: async ({ scope, params, query }) => {
      const page = await paginate(await invoiceListQuery(scope, { id: params.id }), 'i', query, (i) => i);
      const payments = await paymentsOf(scope, { invoices: page.data });
      return { ...page, data: page.data.map((i) => invoiceView(i, payments.get(i.payment_id) ?? null, chainAdapter())) };
    },
  });

  mount(router, {
    ...READ,
    id: 'subscriptions.invoices.get',
    method: 'get',
    path: '/subscriptions/:id/invoices/:invoice_id',
    response: invoiceResponse,
    handler: async ({ scope, params }) => {
      const { invoice, payment } = await findInvoice(scope, { id: params.id, invoice_id: params.invoice_id });
      return invoiceView(invoice, payment, chainAdapter());
    },
  });
}
