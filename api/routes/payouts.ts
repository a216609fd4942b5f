/**
 * Payouts (spec 2.6, 3, 4.3, 6) and capabilities (spec 4.6). Scopes `payouts.read` / `.write` and
 * `capabilities.read`. Test mode is unavailable (503) except the per-object event list (spec 1
 * rule 5). Cross-account or cross-mode ids are 404. The funding POST is the money boundary: a human
 * confirms it through a dashboard session. Rules live in activities/payouts/ and domain/payouts/,
 * wire names in views/payout.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import {
  cancelPayoutAndSignal,
  createPayout,
  fundPayout,
  markPayoutSent,
  replacePayout,
  setBeneficiary,
} from '../../activities/payouts/commands';
import {
  attemptListQuery,
  findPayout,
  loadFundingInstructions,
  payoutListQuery,
  payoutReceipt,
  walletFundingQuote,
} from '../../activities/payouts/queries';
import type { PayoutStatusGroup } from '../../domain/payouts/statuses';
import { capabilitiesFor, payoutCapabilities } from '../capabilities';
import type { AppState } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { paginate } from '../../lib/pagination';
import { listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import {
  beneficiaryBody,
  capabilitiesQuery,
  createPayoutBody,
  fundRequestBody,
  listPayoutsQuery,
  replacePayoutBody,
} from '../schemas/payouts';
import {
  attemptResponse,
  attemptView,
  eventResponseList,
  fundingInstructionsResponse,
  fundingInstructionsView,
  markSentResponse,
  payoutListResponse,
  payoutResponse,
  payoutView,
  receiptResponse,
  receiptView,
  walletFundingQuoteResponse,
  walletFundingQuoteView,
} from '../../views/payout';
import { capabilitiesResponse } from '../../views/capabilities';

const READ = 'payouts.read';
const WRITE = 'payouts.write';

/** Registers the payout and capabilities operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'capabilities.get',
    method: 'get',
    path: '/capabilities',
    scope: 'capabilities.read',
    testMode: 'unavailable',
    query: capabilitiesQuery,
    response: capabilitiesResponse,
    errors: [409],
    summary: 'What the account can execute now per corridor or rail of one product (availability is never authorization).',
    handler: async ({ caller, query }) => capabilitiesFor(query.product, caller),
  });

  mount(router, {
    id: 'payouts.list',
    method: 'get',
    path: '/payouts',
    scope: READ,
    testMode: 'unavailable',
    query: listPayoutsQuery,
    response: payoutListResponse,
    summary: 'List payouts, newest first; status_group needs_you, in_progress or done.',
    handler: async ({ scope, query }) =>
      paginate(payoutListQuery(scope, { status_group: query.status_group as PayoutStatusGroup | undefined }), 'p', query, payoutView),
  });

  mount(router, {
    id: 'payouts.create',
    method: 'post',
    path: '/payouts',
    scope: WRITE,
    testMode: 'unavailable',
    // 422 payer_type_mismatch (spec 4.3).
    body: createPayoutBody,
    successStatus: 201,
    response: payoutResponse,
    errors: [422],
    summary: 'Create a draft payout on an executable corridor.',
    handler: async ({ scope, body }) => payoutView(await createPayout(scope, body)),
  });

  mount(router, {
    id: 'payouts.get_eligibility',
    method: 'get',
    path: '/payouts/eligibility',
    scope: READ,
    testMode: 'unavailable',
    response: capabilitiesResponse,
    summary: 'Payout corridors and funding sources (same contract as GET /capabilities?product=payouts).',
    handler: async ({ caller }) => payoutCapabilities(caller),
  });

  mount(router, {
    id: 'payouts.get',
    method: 'get',
    path: '/payouts/:id',
    scope: READ,
    testMode: 'unavailable',
    response: payoutResponse,
    handler: async ({ scope, params }) => payoutView(await findPayout(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payouts.beneficiary.set',
    method: 'post',
    path: '/payouts/:id/beneficiary',
    scope: WRITE,
    testMode: 'unavailable',
    body: beneficiaryBody,
    response: payoutResponse,
    summary: 'Raw bank details for the payout rail (rules and masked shape of the address book), accepted once; read back only masked.',
    handler: async ({ scope, params, body }) => payoutView(await setBeneficiary(scope, { ...body, id: params.id })),
  });

  mount(router, {
    id: 'payouts.funding_instructions.get',
    method: 'get',
    path: '/payouts/:id/funding_instructions',
    scope: READ,
    testMode: 'unavailable',
    // 409 funding_instructions_unavailable before the funding POST created them.
    response: fundingInstructionsResponse,
    errors: [409],
    handler: async ({ caller, scope, params }) => {
      const f = await loadFundingInstructions(scope, { id: params.id });
      return fundingInstructionsView(f.payout, f.attempt, f.send, caller.kind);
    },
  });

  mount(router, {
    id: 'payouts.funding_instructions.create',
    terms: 'account',
    method: 'post',
    path: '/payouts/:id/funding_instructions',
    scope: WRITE,
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    body: fundRequestBody,
    response: fundingInstructionsResponse,
    summary: 'The money boundary: a human confirms funding; the provider transfer is created and the payout awaits funds.',
    handler: async ({ caller, scope, params, body }) => {
      const f = await fundPayout(scope, { ...body, id: params.id });
      return fundingInstructionsView(f.payout, f.attempt, f.send, caller.kind);
    },
  });

  mount(router, {
    id: 'payouts.get_wallet_funding_quote',
    method: 'get',
    path: '/payouts/:id/wallet_funding_quote',
    scope: READ,
    testMode: 'unavailable',
    response: walletFundingQuoteResponse,
    summary: 'What funding this payout from the service wallet would cost and whether the balance covers it.',
    handler: async ({ scope, params }) => walletFundingQuoteView(await walletFundingQuote(scope, { id: params.id })),
  });

  mount(router, {
    // 409 receipt_unavailable until settled (never for paid_with_shortfall, spec 2.6).
    id: 'payouts.get_receipt',
    method: 'get',
    path: '/payouts/:id/receipt',
    scope: READ,
    testMode: 'unavailable',
    response: receiptResponse,
    errors: [409],
    summary: 'Receipt of a settled payout: confirmed figures only, estimates labelled.',
    handler: async ({ scope, params }) => {
      const r = await payoutReceipt(scope, { id: params.id });
      return receiptView(r.payout, r.attempt, r.providerReference);
    },
  });

  mount(router, {
    id: 'payouts.attempts.list',
    method: 'get',
    path: '/payouts/:id/attempts',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: listEnvelope(attemptResponse),
    handler: async ({ scope, params, query }) => paginate(await attemptListQuery(scope, { id: params.id }), 'a', query, attemptView),
  });

  mount(router, {
    id: 'payouts.events.list',
    method: 'get',
    path: '/payouts/:id/events',
    scope: READ,
    testMode: 'full',
    query: Joi.object(listQuery),
    response: eventResponseList,
    handler: async ({ caller, scope, params, query }) => objectEventsPage(caller, (await findPayout(scope, { id: params.id })).id, query),
  });

  mount(router, {
    id: 'payouts.cancel',
    method: 'post',
    path: '/payouts/:id/cancel',
    scope: WRITE,
    testMode: 'unavailable',
    response: payoutResponse,
    summary: 'Cancel a payout before funds move (idempotent).',
    handler: async ({ scope, params }) => payoutView(await cancelPayoutAndSignal(scope, { id: params.id })),
  });

  mount(router, {
    id: 'payouts.mark_sent',
    method: 'post',
    path: '/payouts/:id/mark_sent',
    scope: WRITE,
    testMode: 'unavailable',
    response: markSentResponse,
    summary: 'Self-report that funds were sent (authoritative: false); never advances status.',
    handler: async ({ scope, params }) => ({ ...payoutView(await markPayoutSent(scope, { id: params.id })), authoritative: false }),
  });

  mount(router, {
    id: 'payouts.replace',
    method: 'post',
    path: '/payouts/:id/replace',
    scope: WRITE,
    testMode: 'unavailable',
    body: replacePayoutBody,
    successStatus: 201,
    response: payoutResponse,
    summary: 'A new draft replacing a failed, returned, expired or cancelled payout (payout.created_as_replacement).',
    handler: async ({ scope, params, body }) => payoutView(await replacePayout(scope, { ...body, id: params.id })),
  });
}
