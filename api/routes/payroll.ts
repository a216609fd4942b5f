/**
 * Payroll runs (spec 2.7, 3, 4.4, 6), first operations: create, list (`status_group`,
 * `expand=summary`), get, readiness preview, approve, cancel, items and one item, export (CSV),
 * the per-object event list, recipients (list, get) and templates (create, list, get). Scopes `payroll.read` / `.write`. Test mode is unavailable (503)
 * except the event list (spec 1 rule 5). Cross-account or cross-mode ids are 404. Rules live in
 * activities/payroll/ and domain/payroll*.ts, wire names in views/payroll.ts. Approve, cancel and
 * execute wake the run's workflow (workflows/payroll-run.ts) after their commit.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { approveRun, cancelRun, createRun, executeRun } from '../../activities/payroll/commands';
import { wakePayrollRun } from '../../activities/payroll/signals';
import {
  exportItems,
  findItem,
  findRecipient,
  findRun,
  itemCounts,
  itemPage,
  recipientListQuery,
  recipientsOf,
  runListQuery,
  runReadiness,
  runSummary,
} from '../../activities/payroll/queries';
import type { PayrollStatusGroup } from '../../domain/payroll';
import { payrollExportCsv } from '../../domain/payroll-rows';
import type { PayrollRun } from '../../entities';
import { paginate, wantsExpand } from '../../lib/pagination';
import { eventResponseList } from '../../views/payout';
import {
  payrollItemListResponse,
  payrollItemResponse,
  payrollItemView,
  payrollReadinessResponse,
  payrollRecipientListResponse,
  payrollRecipientResponse,
  payrollRecipientView,
  payrollTemplateListResponse,
  payrollTemplateResponse,
  payrollTemplateView,
  payrollRunListResponse,
  payrollRunResponse,
  payrollRunView,
} from '../../views/payroll';
import type { AppState } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { listQuery } from '../schemas/common';
import { createPayrollRunBody, createPayrollTemplateBody, listPayrollRunsQuery } from '../schemas/payroll';
import { createTemplate, findTemplate, templateListQuery } from '../../activities/payroll/templates';
import { adoptPendingDestination, reissueLink } from '../../activities/payroll/destinations';
import { loadConfig } from '../../lib/config';
import { adoptionResponse, adoptionView, reissuedLinkResponse, reissuedLinkView } from '../../views/payroll-destination';
import { adoptPendingDestinationBody, reissueLinkBody } from '../schemas/payroll-destinations';

const READ = 'payroll.read';
const WRITE = 'payroll.write';

/**
 * Wakes the run's workflow after a committed change (activities/payroll/signals.ts): the workflow
 * starts at approval, so a run never approved has none to wake.
 */
async function woken(run: PayrollRun): Promise<PayrollRun> {
  if (run.approved_at !== null) await wakePayrollRun(run.id, run.account_id);
  return run;
}

/** The run's wire form with its item counts. */
async function runOut(run: PayrollRun): Promise<Record<string, unknown>> {
  return payrollRunView(run, (await itemCounts([run.id])).get(run.id)!);
}

/** Registers the payroll operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'payroll_runs.list',
    method: 'get',
    path: '/payroll_runs',
    scope: READ,
    testMode: 'unavailable',
    query: listPayrollRunsQuery,
    response: payrollRunListResponse,
    summary: 'List payroll runs, newest first; status_group needs_you, in_progress or done; expand=summary adds counts over every run.',
    handler: async ({ scope, query }) => {
      const page = await paginate(
        runListQuery(scope, { status_group: query.status_group as PayrollStatusGroup | undefined }),
        'r',
        query,
        (x) => x,
      );
      const counts = await itemCounts(page.data.map((x) => x.id));
      const out = { ...page, data: page.data.map((x) => payrollRunView(x, counts.get(x.id)!)) };
      return wantsExpand(query.expand, 'summary') ? { ...out, summary: await runSummary(scope) } : out;
    },
  });

  mount(router, {
    id: 'payroll_runs.create',
    method: 'post',
    path: '/payroll_runs',
    scope: WRITE,
    testMode: 'unavailable',
    // 422 payroll_cap_exceeded naming the row (spec 8); 409 capability_unavailable with crypto funding off (spec 4.4).
    body: createPayrollRunBody,
    successStatus: 201,
    response: payrollRunResponse,
    errors: [422],
    summary: 'Create a payroll run (status reviewed) from rows of recipients and amounts.',
    handler: async ({ scope, body }) => runOut(await createRun(scope, body)),
  });

  mount(router, {
    id: 'payroll_runs.get',
    method: 'get',
    path: '/payroll_runs/:id',
    scope: READ,
    testMode: 'unavailable',
    response: payrollRunResponse,
    handler: async ({ scope, params }) => runOut(await findRun(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payroll_runs.get_readiness',
    method: 'get',
    path: '/payroll_runs/:id/readiness',
    scope: READ,
    testMode: 'unavailable',
    response: payrollReadinessResponse,
    summary: 'Readiness preview: ready when the payer-compliance gate is clear; blockers are reason codes (run_has_no_rows, ...).',
    handler: async ({ scope, params }) => {
      const v = await runReadiness(scope, { id: params.id });
      return { object: 'payroll_run_readiness', run_id: v.run.id, ready: v.ready, blockers: v.blockers };
    },
  });

  mount(router, {
    id: 'payroll_runs.approve',
    method: 'post',
    path: '/payroll_runs/:id/approve',
    scope: WRITE,
    testMode: 'unavailable',
    response: payrollRunResponse,
    summary: 'Approve a reviewed run: it awaits funding (funding_pending).',
    handler: async ({ scope, params }) => runOut(await woken(await approveRun(scope, { id: params.id }))),
  });

  mount(router, {
    id: 'payroll_runs.cancel',
    method: 'post',
    path: '/payroll_runs/:id/cancel',
    scope: WRITE,
    testMode: 'unavailable',
    response: payrollRunResponse,
    summary: 'Cancel a run before it executes (idempotent); items stay where they were.',
    handler: async ({ scope, params }) => runOut(await woken(await cancelRun(scope, { id: params.id }))),
  });

  mount(router, {
    id: 'payroll_runs.execute',
    terms: 'account',
    method: 'post',
    path: '/payroll_runs/:id/execute',
    scope: WRITE,
    testMode: 'unavailable',
    response: payrollRunResponse,
    // 409 payroll_run_underfunded naming the shortfall; 422 payroll_cap_exceeded (caps re-checked, spec 8).
    errors: [422],
    summary: "Execute a funded run: every item is paid to its recipient's destination; the run ends completed, partial or failed.",
    handler: async ({ scope, params }) => runOut(await woken(await executeRun(scope, { id: params.id }))),
  });

  mount(router, {
    id: 'payroll_runs.items.list',
    method: 'get',
    path: '/payroll_runs/:id/items',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: payrollItemListResponse,
    handler: async ({ scope, params, query }) => {
      const page = await itemPage(scope, { ...query, id: params.id });
      const rcp = await recipientsOf(page.data);
      return { ...page, data: page.data.map((i) => payrollItemView(i, rcp.get(i.recipient_id)!)) };
    },
  });

  mount(router, {
    id: 'payroll_runs.items.get',
    method: 'get',
    path: '/payroll_runs/:id/items/:item_id',
    scope: READ,
    testMode: 'unavailable',
    response: payrollItemResponse,
    handler: async ({ scope, params }) => {
      const { item, recipient } = await findItem(scope, { id: params.id, item_id: params.item_id });
      return payrollItemView(item, recipient);
    },
  });

  mount(router, {
    id: 'payroll_runs.get_export',
    method: 'get',
    path: '/payroll_runs/:id/export',
    scope: READ,
    testMode: 'unavailable',
    response: Joi.string(),
    responseContentType: 'text/csv',
    summary: 'The run as CSV (RFC 4180): one row per item with its status.',
    handler: async ({ scope, params, ctx }) => {
      const { run, items } = await exportItems(scope, { id: params.id });
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${run.id}.csv"`);
      return payrollExportCsv(items);
    },
  });

  mount(router, {
    id: 'payroll_runs.events.list',
    method: 'get',
    path: '/payroll_runs/:id/events',
    scope: READ,
    testMode: 'full',
    query: Joi.object(listQuery),
    response: eventResponseList,
    handler: async ({ caller, scope, params, query }) => objectEventsPage(caller, (await findRun(scope, { id: params.id })).id, query),
  });

  mount(router, {
    id: 'payroll_recipients.list',
    method: 'get',
    path: '/payroll_recipients',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: payrollRecipientListResponse,
    summary: 'List the payroll recipients of the account, newest first.',
    handler: async ({ scope, query }) => paginate(recipientListQuery(scope), 'p', query, payrollRecipientView),
  });

  mount(router, {
    id: 'payroll_recipients.get',
    method: 'get',
    path: '/payroll_recipients/:id',
    scope: READ,
    testMode: 'unavailable',
    response: payrollRecipientResponse,
    summary: 'One payroll recipient with its masked destination and pending_destination (null when none).',
    handler: async ({ scope, params }) => payrollRecipientView(await findRecipient(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payroll_templates.list',
    method: 'get',
    path: '/payroll_templates',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: payrollTemplateListResponse,
    handler: async ({ scope, query }) => paginate(templateListQuery(scope), 't', query, payrollTemplateView),
  });

  mount(router, {
    id: 'payroll_templates.create',
    method: 'post',
    path: '/payroll_templates',
    scope: WRITE,
    testMode: 'unavailable',
    body: createPayrollTemplateBody,
    successStatus: 201,
    response: payrollTemplateResponse,
    errors: [422],
    summary: 'Save rows (or the rows of a run, from_run_id) as a template a run can be created from (template_id).',
    handler: async ({ scope, body }) => payrollTemplateView(await createTemplate(scope, body)),
  });

  mount(router, {
    id: 'payroll_templates.get',
    method: 'get',
    path: '/payroll_templates/:id',
    scope: READ,
    testMode: 'unavailable',
    response: payrollTemplateResponse,
    handler: async ({ scope, params }) => payrollTemplateView(await findTemplate(scope, { id: params.id })),
  });

  // Destinations (spec 4.4; activities/payroll/destinations.ts). The public recipient session routes are api/routes/payroll-recipient-sessions.ts.
  mount(router, {
    id: 'payroll_recipients.adopt_pending_destination',
    method: 'post',
    path: '/payroll_recipients/:id/adopt_pending_destination',
    scope: WRITE,
    testMode: 'unavailable',
    // 409 no_pending_destination / pending_destination_changed; 422 destination_rail_keyless.
    body: adoptPendingDestinationBody,
    response: adoptionResponse,
    errors: [422],
    summary:
      'Adopt the destination the recipient submitted: it pays the pending items of open runs (updated_run_items); the rest are skipped_run_items.',
    handler: async ({ scope, params, body }) => {
      const res = await adoptPendingDestination(scope, { id: params.id, expected_submitted_at: body.expected_submitted_at });
      return adoptionView(res.recipient, res.updated, res.skipped);
    },
  });

  mount(router, {
    id: 'payroll_runs.items.reissue_link',
    method: 'post',
    path: '/payroll_runs/:id/items/:item_id/reissue_link',
    scope: WRITE,
    testMode: 'unavailable',
    body: reissueLinkBody,
    response: reissuedLinkResponse,
    summary:
      'A new recipient session link for the item (the old token stops working); the only place a session token is handed out. 409 on a finished or cancelled run.',
    handler: async ({ scope, params, ctx }) => {
      ctx.state.redact.push('recipient_session'); // never stored for replay: an idempotent replay answers it null
      const { item, recipient } = await reissueLink(scope, { id: params.id, item_id: params.item_id });
      return reissuedLinkView(item, recipient, loadConfig().payerHost);
    },
  });
}
