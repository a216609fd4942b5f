/**
 * Payment links (spec 2.3, 3, 4.1, 6): list/create/get/update, activate, cancel, refund, send_invoice,
 * reminder schedule get/update/disable, per-link events and receipt. Scopes
 * `payment_links.read` / `.write`. Test mode is unavailable (503) except for the per-object
 * event list (spec 1 rule 5). Cross-account or cross-mode ids are 404. Thin routes: rules live
 * in activities/payment-links/ and domain/, wire names in views/payment-link.ts.
 */
import type Router from '@koa/router';
import type { LinkStatusGroup } from '../../domain/verdicts';
import {
  activateLink,
  cancelLink,
  createLink,
  disableReminderSchedule,
  sendInvoice,
  updateLink,
  updateReminderSchedule,
} from '../../activities/payment-links/commands';
import { getLink, getLinkReceipt, listLinks } from '../../activities/payment-links/queries';
import type { PaymentLink } from '../../entities';
import { linkViewContext } from '../../lib/rails-availability';
import type { AppState } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { paginate, wantsExpand } from '../../lib/pagination';
import {
  activateLinkBody,
  createLinkBody,
  linkEventsQuery,
  listLinksQuery,
  refundLinkBody,
  reminderScheduleBody,
  updateLinkBody,
} from '../schemas/payment-links';
import { refundLink } from '../../activities/payment-links/refund';
import {
  linkReceiptResponse,
  linkReceiptView,
  paymentLinkResponse,
  paymentLinkView,
  reminderScheduleResponse,
  reminderScheduleView,
} from '../../views/payment-link';
import { eventResponse } from '../../views/event';
import { listEnvelope } from '../../views/schema';
import Joi from '../schemas/joi';

const READ = 'payment_links.read';
const WRITE = 'payment_links.write';

/** The link's wire view with its account's view context (lib/rails-availability.ts). */
async function view(link: PaymentLink): Promise<Record<string, unknown>> {
  return paymentLinkView(link, await linkViewContext(link.account_id));
}

interface ListQuery {
  status_group?: LinkStatusGroup;
  q?: string;
  client_id?: string;
  settlement_kind?: string;
  limit?: unknown;
  cursor?: unknown;
  expand?: unknown;
}

/** Registers the payment link operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'payment_links.list',
    method: 'get',
    path: '/payment_links',
    scope: READ,
    testMode: 'unavailable',
    response: listEnvelope(
      paymentLinkResponse,
      Joi.object({
        by_status_group: Joi.object({
          open: Joi.number().integer().required(),
          needs_attention: Joi.number().integer().required(),
          paid: Joi.number().integer().required(),
          ended: Joi.number().integer().required(),
        }).required(),
        total: Joi.number().integer().required(),
      }),
    ),
    query: listLinksQuery,
    summary: 'List payment links, newest first, filtered by status_group, q, client_id, settlement_kind; expand=summary adds counts.',
    handler: async ({ scope, query }) => {
      const q = query as ListQuery;
      const vctx = await linkViewContext(scope.accountId);
      const links = listLinks(scope, q);
      const page = await paginate(links.query, 'l', q, (l) => paymentLinkView(l, vctx));
      if (wantsExpand(q.expand, 'summary')) page.summary = await links.summary();
      return page;
    },
  });

  mount(router, {
    id: 'payment_links.create',
    method: 'post',
    path: '/payment_links',
    scope: WRITE,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    errors: [422],
    body: createLinkBody,
    successStatus: 201,
    inlineIdempotency: true,
    summary: 'Create a draft payment link.',
    handler: async ({ scope, body, idempotency }) => (await createLink(scope, { ...body, claim: idempotency! })).wire,
  });

  mount(router, {
    id: 'payment_links.get',
    method: 'get',
    path: '/payment_links/:id',
    scope: READ,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    handler: async ({ scope, params }) => view(await getLink(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payment_links.update',
    method: 'patch',
    path: '/payment_links/:id',
    scope: WRITE,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    errors: [422],
    body: updateLinkBody,
    summary: 'Update a draft, active or viewed payment link.',
    handler: async ({ scope, params, body }) => view(await updateLink(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'payment_links.activate',
    method: 'post',
    path: '/payment_links/:id/activate',
    scope: WRITE,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    errors: [422],
    body: activateLinkBody,
    summary: 'Activate a draft (human attestation required): mints the payer URL and starts the link workflow.',
    handler: async ({ scope, params, body }) =>
      view(await activateLink(scope, { id: params.id, attestation_accepted: body.attestation_accepted })),
  });

  mount(router, {
    id: 'payment_links.cancel',
    method: 'post',
    path: '/payment_links/:id/cancel',
    scope: WRITE,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    handler: async ({ scope, params }) => view(await cancelLink(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payment_links.refund',
    method: 'post',
    path: '/payment_links/:id/refund',
    scope: WRITE,
    testMode: 'unavailable',
    body: refundLinkBody,
    response: paymentLinkResponse,
    errors: [409],
    summary:
      'Refund a paid or settled link in full: the money goes back to the payer through the rail it came in on (status refunded, payment_link.refunded).',
    handler: async ({ scope, params, body }) => view(await refundLink(scope, { ...(body as { reason?: string | null }), id: params.id })),
  });

  mount(router, {
    id: 'payment_links.send_invoice',
    method: 'post',
    path: '/payment_links/:id/send_invoice',
    scope: WRITE,
    testMode: 'unavailable',
    response: paymentLinkResponse,
    summary: 'Email the payer URL to payer_email (active or viewed links).',
    handler: async ({ scope, params }) => view(await sendInvoice(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payment_links.reminder_schedule.get',
    method: 'get',
    path: '/payment_links/:id/reminder_schedule',
    scope: READ,
    testMode: 'unavailable',
    response: reminderScheduleResponse,
    handler: async ({ scope, params }) => reminderScheduleView(await getLink(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payment_links.reminder_schedule.update',
    method: 'patch',
    path: '/payment_links/:id/reminder_schedule',
    scope: WRITE,
    testMode: 'unavailable',
    response: reminderScheduleResponse,
    errors: [422],
    body: reminderScheduleBody,
    handler: async ({ scope, params, body }) => reminderScheduleView(await updateReminderSchedule(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'payment_links.reminder_schedule.disable',
    method: 'post',
    path: '/payment_links/:id/reminder_schedule/disable',
    scope: WRITE,
    testMode: 'unavailable',
    response: reminderScheduleResponse,
    handler: async ({ scope, params }) => reminderScheduleView(await disableReminderSchedule(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payment_links.events.list',
    method: 'get',
    path: '/payment_links/:id/events',
    scope: READ,
    testMode: 'full',
    response: listEnvelope(eventResponse),
    query: linkEventsQuery,
    summary: 'Events of one payment link (about it or naming it as related), newest first.',
    handler: async ({ caller, scope, params, query }) => {
      const link = await getLink(scope, { id: params.id });
      return objectEventsPage(caller, link.id, query);
    },
  });

  mount(router, {
    id: 'payment_links.get_receipt',
    method: 'get',
    path: '/payment_links/:id/receipt',
    scope: READ,
    testMode: 'unavailable',
    response: linkReceiptResponse,
    errors: [409],
    handler: async ({ scope, params }) => {
      const { link, paid } = await getLinkReceipt(scope, { id: params.id });
      return linkReceiptView(link, paid);
    },
  });
}
