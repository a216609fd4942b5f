/**
 * Crypto processing area (spec 4.2): GET /payments (filters payment_link_id, subscription_id,
 * settlement, status; expand=summary), /payments/{id}, /payments/{id}/events,
 * /payment_links/{id}/payments. Scope payment_links.read. Cross-account ids are 404.
 */
import type Router from '@koa/router';
import Joi from 'joi';
import { DomainError } from '../../domain/errors';
import { PAYMENT_STATUS_FILTER_VALUES } from '../../domain/verdicts';
import { Payment, PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../pagination';
import { listQuery } from '../schemas/common';
import { paymentResponse, paymentView } from '../../views/payment';
import { eventResponse } from '../../views/event';
import { listEnvelope } from '../../views/schema';
import { objectEventsPage } from '../object-events';

async function ownPayment(caller: Caller, id: string): Promise<Payment> {
  const p = await db().getRepository(Payment).findOneBy({ id, account_id: caller.accountId, livemode: caller.livemode });
  if (!p) throw new DomainError('not_found', 'not_found', `No such payment: ${id}.`, { param: 'id' });
  return p;
}

export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'payments.list', method: 'get', path: '/payments', scope: 'payment_links.read', testMode: 'unavailable',
    response: listEnvelope(paymentResponse, Joi.object({
      by_status: Joi.object(Object.fromEntries(PAYMENT_STATUS_FILTER_VALUES.map((s) => [s, Joi.number().integer().required()]))).unknown(true).required(),
      total: Joi.number().integer().required(),
    })),
    query: Joi.object({
      ...listQuery,
      payment_link_id: Joi.string(),
      subscription_id: Joi.string(),
      settlement: Joi.string().valid('wallet').messages({ 'any.only': '`settlement` must be `wallet`' }),
      status: Joi.string().valid(...PAYMENT_STATUS_FILTER_VALUES),
    }),
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(Payment).createQueryBuilder('p')
        .where('p.account_id = :a AND p.livemode = :l', { a: caller.accountId, l: caller.livemode });
      if (query.payment_link_id) qb.andWhere('p.payment_link_id = :pl', { pl: query.payment_link_id });
      if (query.subscription_id) qb.andWhere('p.subscription_id = :sub', { sub: query.subscription_id });
      if (query.settlement) qb.andWhere('p.settlement = :st', { st: query.settlement });
      const summaryQb = qb.clone();
      if (query.status) qb.andWhere('p.status = :s', { s: query.status });
      const page = await paginate(qb, 'p', query, paymentView);
      if (wantsExpand(query.expand, 'summary')) {
        if (query.status) summaryQb.andWhere('p.status = :s', { s: query.status });
        const rows: Array<{ status: string; n: string }> = await summaryQb.select('p.status', 'status').addSelect('COUNT(*)', 'n').groupBy('p.status').getRawMany();
        const byStatus: Record<string, number> = Object.fromEntries(PAYMENT_STATUS_FILTER_VALUES.map((s) => [s, 0]));
        let total = 0;
        for (const row of rows) { byStatus[row.status] = Number(row.n); total += Number(row.n); }
        page.summary = { by_status: byStatus, total };
      }
      return page;
    },
  });

  mount(r, {
    id: 'payments.get', method: 'get', path: '/payments/:id', scope: 'payment_links.read', testMode: 'unavailable',
    response: paymentResponse,
    handler: async ({ caller, params }) => paymentView(await ownPayment(caller, params.id)),
  });

  mount(r, {
    id: 'payments.events', method: 'get', path: '/payments/:id/events', scope: 'payment_links.read', testMode: 'full',
    response: listEnvelope(eventResponse),
    query: Joi.object(listQuery),
    handler: async ({ caller, params, query }) => objectEventsPage(caller, (await ownPayment(caller, params.id)).id, query),
  });

  mount(r, {
    id: 'payment_links.payments', method: 'get', path: '/payment_links/:id/payments', scope: 'payment_links.read', testMode: 'unavailable',
    response: listEnvelope(paymentResponse),
    roles: ['owner'],
    query: Joi.object(listQuery),
    handler: async ({ caller, params, query }) => {
      const link = await db().getRepository(PaymentLink).findOneBy({ id: params.id, account_id: caller.accountId, livemode: caller.livemode });
      if (!link) throw new DomainError('not_found', 'not_found', `No such payment link: ${params.id}.`, { param: 'id' });
      const qb = db().getRepository(Payment).createQueryBuilder('p').where('p.payment_link_id = :id', { id: link.id });
      return paginate(qb, 'p', query, paymentView);
    },
  });
}
