/**
 * Crypto processing area (spec 4.2): GET /payments (filters payment_link_id, subscription_id,
 * settlement, status; expand=summary), /payments/{id}, /payments/{id}/events,
 * /payment_links/{id}/payments. Scope payment_links.read. Cross-account ids are 404.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { PAYMENT_STATUS_FILTER_VALUES } from '../../domain/verdicts';
import { getPayment, listLinkPayments, listPayments, paymentChain } from '../../activities/payments/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../../lib/pagination';
import { listQuery } from '../schemas/common';
import { paymentResponse, paymentView } from '../../views/payment';
import { eventResponse } from '../../views/event';
import { listEnvelope } from '../../views/schema';
import { objectEventsPage } from '../object-events';

/** Registers the payment operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'payments.list',
    method: 'get',
    path: '/payments',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: listEnvelope(
      paymentResponse,
      Joi.object({
        by_status: Joi.object(Object.fromEntries(PAYMENT_STATUS_FILTER_VALUES.map((s) => [s, Joi.number().integer().required()])))
          .unknown(true)
          .required(),
        total: Joi.number().integer().required(),
      }),
    ),
    query: Joi.object({
      ...listQuery,
      payment_link_id: Joi.string(),
      subscription_id: Joi.string(),
      settlement: Joi.string().valid('wallet').messages({ 'any.only': '`settlement` must be `wallet`' }),
      status: Joi.string().valid(...PAYMENT_STATUS_FILTER_VALUES),
    }),
    handler: async ({ scope, query }) => {
      const chain = paymentChain();
      const payments = listPayments(scope, query);
      const page = await paginate(payments.query, 'p', query, (p) => paymentView(p, chain));
      if (wantsExpand(query.expand, 'summary')) page.summary = await payments.summary();
      return page;
    },
  });

  mount(router, {
    id: 'payments.get',
    method: 'get',
    path: '/payments/:id',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: paymentResponse,
    handler: async ({ scope, params }) => paymentView(await getPayment(scope, { id: params.id }), paymentChain()),
  });

  mount(router, {
    id: 'payments.events',
    method: 'get',
    path: '/payments/:id/events',
    scope: 'payment_links.read',
    testMode: 'full',
    response: listEnvelope(eventResponse),
    query: Joi.object(listQuery),
    handler: async ({ caller, scope, params, query }) => objectEventsPage(caller, (await getPayment(scope, { id: params.id })).id, query),
  });

  mount(router, {
    id: 'payment_links.payments',
    method: 'get',
    path: '/payment_links/:id/payments',
    scope: 'payment_links.read',
    testMode: 'unavailable',
    response: listEnvelope(paymentResponse),
    roles: ['owner'],
    query: Joi.object(listQuery),
    handler: async ({ scope, params, query }) => {
      const chain = paymentChain();
      return paginate(await listLinkPayments(scope, { id: params.id }), 'p', query, (p) => paymentView(p, chain));
    },
  });
}
