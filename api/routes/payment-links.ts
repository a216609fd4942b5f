/**
 * Payment links (spec 2.3, 3, 4.1, 6): list/create/get/update, activate, cancel, send_invoice,
 * reminder schedule get/update/disable, per-link events and receipt. Scopes
 * `payment_links.read` / `.write`. Test mode is unavailable (503) except for the per-object
 * event list (spec 1 rule 5). Cross-account or cross-mode ids are 404. Thin routes: rules live
 * in activities/links.ts and domain/, wire names in api/views/payment-link.ts.
 */
import type Router from '@koa/router';
import type { SelectQueryBuilder } from 'typeorm';
import { conflict, notFound } from '../../domain/errors';
import { LINK_STATUS_GROUPS, NEEDS_ATTENTION_STATUS, type LinkStatusGroup } from '../../domain/verdicts';
import {
  activateLink, cancelLink, createLink, disableReminderSchedule, sendInvoice, updateLink, updateReminderSchedule,
} from '../../activities/payment-links/commands';
import { Payment, PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import type { AppState, Caller } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../pagination';
import {
  activateLinkBody, createLinkBody, linkEventsQuery, listLinksQuery, reminderScheduleBody, updateLinkBody,
} from '../schemas/payment-links';
import {
  linkReceiptResponse, linkReceiptView, linkViewContext, paymentLinkResponse, paymentLinkView, reminderScheduleResponse, reminderScheduleView,
} from '../../views/payment-link';
import { eventResponse } from '../../views/event';
import { listEnvelope } from '../../views/schema';
import Joi from 'joi';
import { likeContains, opContext } from './clients';

const READ = 'payment_links.read';
const WRITE = 'payment_links.write';

/** The link `id` of (account, livemode), else 404 (also for every cross-account id). */
/**
 * The caller's link by id (404 for any other account or mode). A plain parameterized select: the
 * driver already returns the entity's column types (bigint as string, timestamptz as Date, jsonb
 * parsed), so the hot read path skips the query builder and entity hydration.
 */
async function findLink(caller: Caller, id: string): Promise<PaymentLink> {
  const rows: PaymentLink[] = await db().query('SELECT * FROM payment_links WHERE id = $1 AND account_id = $2 AND livemode = $3', [id, caller.accountId, caller.livemode]);
  if (!rows[0]) throw notFound(`No such payment link: ${id}.`, 'id');
  return rows[0];
}

async function view(link: PaymentLink): Promise<Record<string, unknown>> {
  return paymentLinkView(link, await linkViewContext(link.account_id));
}

const quoted = (xs: readonly string[]) => xs.map((s) => `'${s}'`).join(',');

/** SQL predicate of a status group (spec 4.1; `needs_attention` = processing with a partial payment). */
function groupPredicate(alias: string, g: LinkStatusGroup): string {
  if (g === 'needs_attention') return `(${alias}.status = '${NEEDS_ATTENTION_STATUS}' AND ${alias}.partial_payment IS NOT NULL)`;
  return `${alias}.status IN (${quoted(LINK_STATUS_GROUPS[g])})`;
}

interface ListQuery { status_group?: LinkStatusGroup; q?: string; client_id?: string; settlement_kind?: string; limit?: unknown; cursor?: unknown; expand?: unknown }

/** Applies the list filters of spec 4.1 (never cursor/limit) to `qb` (alias `l`). */
function applyFilters(qb: SelectQueryBuilder<PaymentLink>, caller: Caller, q: ListQuery): SelectQueryBuilder<PaymentLink> {
  qb.where('l.account_id = :a AND l.livemode = :lm', { a: caller.accountId, lm: caller.livemode });
  if (q.status_group) qb.andWhere(groupPredicate('l', q.status_group));
  if (q.q) qb.andWhere('(l.title ILIKE :q OR l.memo ILIKE :q OR l.invoice_number ILIKE :q)', { q: likeContains(q.q) });
  if (q.client_id) qb.andWhere('l.client_id = :cid', { cid: q.client_id });
  // A crypto-only draft has a null settlement_kind and so matches neither value (spec 4.1).
  if (q.settlement_kind) qb.andWhere('l.settlement_kind = :sk', { sk: q.settlement_kind });
  return qb;
}

/** `summary` of `expand=summary`: counts per status group (buckets overlap) and `total`, over every matching row. */
async function summary(caller: Caller, q: ListQuery): Promise<Record<string, unknown>> {
  const qb = applyFilters(db().getRepository(PaymentLink).createQueryBuilder('l'), caller, q)
    .select('count(*)::int', 'total');
  for (const g of ['open', 'needs_attention', 'paid', 'ended'] as LinkStatusGroup[]) {
    qb.addSelect(`(count(*) FILTER (WHERE ${groupPredicate('l', g)}))::int`, g);
  }
  const row = (await qb.getRawOne()) as Record<string, number>;
  return {
    by_status_group: { open: row.open, needs_attention: row.needs_attention, paid: row.paid, ended: row.ended },
    total: row.total,
  };
}

/** Registers the payment link operations on `r`. */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'payment_links.list', method: 'get', path: '/payment_links', scope: READ, testMode: 'unavailable',
    response: listEnvelope(paymentLinkResponse, Joi.object({
      by_status_group: Joi.object({ open: Joi.number().integer().required(), needs_attention: Joi.number().integer().required(), paid: Joi.number().integer().required(), ended: Joi.number().integer().required() }).required(),
      total: Joi.number().integer().required(),
    })),
    query: listLinksQuery,
    summary: 'List payment links, newest first, filtered by status_group, q, client_id, settlement_kind; expand=summary adds counts.',
    handler: async ({ caller, query }) => {
      const q = query as ListQuery;
      const vctx = await linkViewContext(caller.accountId);
      const page = await paginate(applyFilters(db().getRepository(PaymentLink).createQueryBuilder('l'), caller, q), 'l', q,
        (l) => paymentLinkView(l, vctx));
      if (wantsExpand(q.expand, 'summary')) page.summary = await summary(caller, q);
      return page;
    },
  });

  mount(r, {
    id: 'payment_links.create', method: 'post', path: '/payment_links', scope: WRITE, testMode: 'unavailable',
    response: paymentLinkResponse, errors: [422],
    body: createLinkBody, successStatus: 201, inlineIdempotency: true,
    summary: 'Create a draft payment link.',
    handler: async ({ caller, body, ctx, idempotency }) => (await createLink(opContext(caller, ctx), body, idempotency!)).wire,
  });

  mount(r, {
    id: 'payment_links.get', method: 'get', path: '/payment_links/:id', scope: READ, testMode: 'unavailable',
    response: paymentLinkResponse,
    handler: async ({ caller, params }) => view(await findLink(caller, params.id)),
  });

  mount(r, {
    id: 'payment_links.update', method: 'patch', path: '/payment_links/:id', scope: WRITE, testMode: 'unavailable',
    response: paymentLinkResponse, errors: [422],
    body: updateLinkBody,
    summary: 'Update a draft, active or viewed payment link.',
    handler: async ({ caller, params, body, ctx }) => view(await updateLink(opContext(caller, ctx), params.id, body)),
  });

  mount(r, {
    id: 'payment_links.activate', method: 'post', path: '/payment_links/:id/activate', scope: WRITE, testMode: 'unavailable',
    response: paymentLinkResponse, errors: [422],
    body: activateLinkBody,
    summary: 'Activate a draft (human attestation required): mints the payer URL and starts the link workflow.',
    handler: async ({ caller, params, body, ctx }) => view(await activateLink(opContext(caller, ctx), params.id, body.attestation_accepted)),
  });

  mount(r, {
    id: 'payment_links.cancel', method: 'post', path: '/payment_links/:id/cancel', scope: WRITE, testMode: 'unavailable',
    response: paymentLinkResponse,
    handler: async ({ caller, params, ctx }) => view(await cancelLink(opContext(caller, ctx), params.id)),
  });

  mount(r, {
    id: 'payment_links.send_invoice', method: 'post', path: '/payment_links/:id/send_invoice', scope: WRITE, testMode: 'unavailable',
    response: paymentLinkResponse,
    summary: 'Email the payer URL to payer_email (active or viewed links).',
    handler: async ({ caller, params, ctx }) => view(await sendInvoice(opContext(caller, ctx), params.id)),
  });

  mount(r, {
    id: 'payment_links.reminder_schedule.get', method: 'get', path: '/payment_links/:id/reminder_schedule', scope: READ, testMode: 'unavailable',
    response: reminderScheduleResponse,
    handler: async ({ caller, params }) => reminderScheduleView(await findLink(caller, params.id)),
  });

  mount(r, {
    id: 'payment_links.reminder_schedule.update', method: 'patch', path: '/payment_links/:id/reminder_schedule', scope: WRITE, testMode: 'unavailable',
    response: reminderScheduleResponse, errors: [422],
    body: reminderScheduleBody,
    handler: async ({ caller, params, body, ctx }) => reminderScheduleView(await updateReminderSchedule(opContext(caller, ctx), params.id, body)),
  });

  mount(r, {
    id: 'payment_links.reminder_schedule.disable', method: 'post', path: '/payment_links/:id/reminder_schedule/disable', scope: WRITE, testMode: 'unavailable',
    response: reminderScheduleResponse,
    handler: async ({ caller, params, ctx }) => reminderScheduleView(await disableReminderSchedule(opContext(caller, ctx), params.id)),
  });

  mount(r, {
    id: 'payment_links.events.list', method: 'get', path: '/payment_links/:id/events', scope: READ, testMode: 'full',
    response: listEnvelope(eventResponse),
    query: linkEventsQuery,
    summary: 'Events of one payment link (about it or naming it as related), newest first.',
    handler: async ({ caller, params, query }) => {
      const link = await findLink(caller, params.id);
      return objectEventsPage(caller, link.id, query);
    },
  });

  mount(r, {
    id: 'payment_links.get_receipt', method: 'get', path: '/payment_links/:id/receipt', scope: READ, testMode: 'unavailable',
    response: linkReceiptResponse, errors: [409],
    handler: async ({ caller, params }) => {
      const link = await findLink(caller, params.id);
      if (link.status !== 'paid' && link.status !== 'settled') {
        throw conflict('payment_link_not_paid', `A receipt exists only for a paid or settled link; this one is ${link.status}.`);
      }
      const paid = await db().getRepository(Payment).createQueryBuilder('p')
        .where('p.payment_link_id = :id AND p.account_id = :a', { id: link.id, a: caller.accountId })
        .andWhere(`p.status IN ('paid','overpaid','settled')`)
        .orderBy('p.paid_at', 'DESC', 'NULLS LAST').addOrderBy('p.created_at', 'DESC').getOne();
      return linkReceiptView(link, paid ?? null);
    },
  });
}
