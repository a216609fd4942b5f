/**
 * Payouts (spec 2.6, 3, 4.3, 6) and capabilities (spec 4.6). Scopes `payouts.read` / `.write` and
 * `capabilities.read`. Test mode is unavailable (503) except the per-object event list (spec 1
 * rule 5). Cross-account or cross-mode ids are 404. The funding POST is the money boundary: a human
 * confirms it through a dashboard session. Rules live in activities/payouts.ts and domain/payouts.ts,
 * wire names in api/views/payout.ts.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import Joi from 'joi';
import {
  cancelPayout, createPayout, currentAttempt, markPayoutSent, replacePayout, requestFunding, setBeneficiary, signalPayout, signalPayoutCancelled,
} from '../../activities/payouts';
import type { RequestRef } from '../../lib/outbox';
import { conflict, DomainError, notFound } from '../../domain/errors';
import { DEFAULT_SOURCE_CHAIN, fundingQuote, PAYOUT_SOURCE_ASSET, PAYOUT_STATUS_GROUPS, walletSendEstimate, type PayoutStatusGroup } from '../../domain/payouts';
import { Payout, PayoutAttempt, Wallet } from '../../entities';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import { payoutFundSignal } from '../../workflows/payout';
import { capabilitiesFor, payoutCapabilities, payoutGate } from '../capabilities';
import type { AppState, Caller } from '../context';
import { objectEventsPage } from '../object-events';
import { mount } from '../operation';
import { paginate } from '../pagination';
import { listQuery } from '../schemas/common';
import { listEnvelope } from '../../views/schema';
import {
  attemptResponse, beneficiaryBody, eventResponseList, capabilitiesQuery, capabilitiesResponse, createPayoutBody, fundingInstructionsResponse, fundRequestBody,
  listPayoutsQuery, markSentResponse, payoutListResponse, payoutResponse, receiptResponse, replacePayoutBody, walletFundingQuoteResponse,
} from '../schemas/payouts';
import { attemptView, fundingInstructionsView, payoutView, receiptView, walletFundingQuoteView } from '../../views/payout';

const READ = 'payouts.read';
const WRITE = 'payouts.write';

/** How long the funding POST waits for the workflow to create the provider transfer before answering 503. */
const TRANSFER_WAIT_MS = 10_000;

const requestRef = (ctx: Koa.ParameterizedContext<AppState>): RequestRef => ({ id: ctx.state.requestId, idempotency_key: ctx.state.idempotencyKey });

/** The caller's payout by id (404 for any other account or mode). */
async function findPayout(caller: Caller, id: string): Promise<Payout> {
  const p = await db().getRepository(Payout).findOneBy({ id, account_id: caller.accountId, livemode: caller.livemode });
  if (!p) throw notFound(`No such payout: ${id}.`, 'id');
  return p;
}

const quoted = (xs: readonly string[]) => xs.map((s) => `'${s}'`).join(',');

/** SQL predicate of a status group (spec 4.3; `needs_you` also takes any payout with needs_attention). */
function groupPredicate(g: PayoutStatusGroup): string {
  const inGroup = `p.status IN (${quoted(PAYOUT_STATUS_GROUPS[g])})`;
  return g === 'needs_you' ? `(${inGroup} OR p.needs_attention)` : inGroup;
}

/** Polls until the attempt has its provider transfer; 503 (retry with the same key) when the workflow is slow. */
async function waitForTransfer(attemptId: string): Promise<PayoutAttempt> {
  const end = Date.now() + TRANSFER_WAIT_MS;
  for (;;) {
    const a = await db().getRepository(PayoutAttempt).findOneByOrFail({ id: attemptId });
    if (a.provider_transfer_id) return a;
    if (Date.now() > end) {
      throw new DomainError('temporarily_unavailable', 'funding_instructions_pending', 'The provider transfer is still being created. Retry with the same Idempotency-Key.',
        { details: { retry_after_seconds: 5 } });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function instructions(caller: Caller, p: Payout): Promise<Record<string, unknown>> {
  const { attempt, send } = await currentAttempt(p);
  if (!attempt || !attempt.provider_transfer_id) {
    throw conflict('funding_instructions_unavailable', 'This payout has no funding instructions yet; confirm funding with POST /payouts/{id}/funding_instructions.', { status: p.status });
  }
  return fundingInstructionsView(p, attempt, send, caller.kind);
}

/** Registers the payout and capabilities operations on `r`. */
export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'capabilities.get', method: 'get', path: '/capabilities', scope: 'capabilities.read', testMode: 'unavailable',
    query: capabilitiesQuery, response: capabilitiesResponse, errors: [409],
    summary: 'What the account can execute now per corridor or rail of one product (availability is never authorization).',
    handler: async ({ caller, query }) => capabilitiesFor(query.product, caller),
  });

  mount(r, {
    id: 'payouts.list', method: 'get', path: '/payouts', scope: READ, testMode: 'unavailable',
    query: listPayoutsQuery, response: payoutListResponse,
    summary: 'List payouts, newest first; status_group needs_you, in_progress or done.',
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(Payout).createQueryBuilder('p')
        .where('p.account_id = :a AND p.livemode = :l', { a: caller.accountId, l: caller.livemode });
      if (query.status_group) qb.andWhere(groupPredicate(query.status_group as PayoutStatusGroup));
      return paginate(qb, 'p', query, payoutView);
    },
  });

  mount(r, {
    id: 'payouts.create', method: 'post', path: '/payouts', scope: WRITE, testMode: 'unavailable',
    // 422 payer_type_mismatch (spec 4.3).
    body: createPayoutBody, successStatus: 201, response: payoutResponse, errors: [422],
    summary: 'Create a draft payout on an executable corridor.',
    handler: async ({ caller, body, ctx }) => payoutView(await createPayout({
      accountId: caller.accountId, livemode: caller.livemode, body, gate: await payoutGate(caller.accountId), request: requestRef(ctx),
    })),
  });

  mount(r, {
    id: 'payouts.get_eligibility', method: 'get', path: '/payouts/eligibility', scope: READ, testMode: 'unavailable',
    response: capabilitiesResponse,
    summary: 'Payout corridors and funding sources (same contract as GET /capabilities?product=payouts).',
    handler: async ({ caller }) => payoutCapabilities(caller),
  });

  mount(r, {
    id: 'payouts.get', method: 'get', path: '/payouts/:id', scope: READ, testMode: 'unavailable', response: payoutResponse,
    handler: async ({ caller, params }) => payoutView(await findPayout(caller, params.id)),
  });

  mount(r, {
    id: 'payouts.beneficiary.set', method: 'post', path: '/payouts/:id/beneficiary', scope: WRITE, testMode: 'unavailable',
    body: beneficiaryBody, response: payoutResponse,
    summary: 'Raw bank details for the payout rail (rules and masked shape of the address book), accepted once; read back only masked.',
    handler: async ({ caller, params, body, ctx }) => {
      return payoutView(await setBeneficiary({ accountId: caller.accountId, livemode: caller.livemode, id: params.id, body, request: requestRef(ctx) }));
    },
  });

  mount(r, {
    id: 'payouts.funding_instructions.get', method: 'get', path: '/payouts/:id/funding_instructions', scope: READ, testMode: 'unavailable',
    // 409 funding_instructions_unavailable before the funding POST created them.
    response: fundingInstructionsResponse, errors: [409],
    handler: async ({ caller, params }) => instructions(caller, await findPayout(caller, params.id)),
  });

  mount(r, {
    id: 'payouts.funding_instructions.create', method: 'post', path: '/payouts/:id/funding_instructions', scope: WRITE, testMode: 'unavailable',
    callers: ['dashboard_session'], roles: ['owner', 'admin'], body: fundRequestBody, response: fundingInstructionsResponse,
    summary: 'The money boundary: a human confirms funding; the provider transfer is created and the payout awaits funds.',
    handler: async ({ caller, params, body, ctx }) => {
      const r0 = await requestFunding({ accountId: caller.accountId, livemode: caller.livemode, id: params.id, body, gate: await payoutGate(caller.accountId), request: requestRef(ctx) });
      if (r0.signal) await signalPayout(r0.payout.id, r0.payout.account_id, payoutFundSignal);
      await waitForTransfer(r0.attemptId);
      return instructions(caller, await findPayout(caller, params.id));
    },
  });

  mount(r, {
    id: 'payouts.get_wallet_funding_quote', method: 'get', path: '/payouts/:id/wallet_funding_quote', scope: READ, testMode: 'unavailable',
    response: walletFundingQuoteResponse,
    summary: 'What funding this payout from the service wallet would cost and whether the balance covers it.',
    handler: async ({ caller, params }) => {
      const p = await findPayout(caller, params.id);
      const { attempt } = await currentAttempt(p);
      const chain = attempt?.source_chain ?? p.source_chain ?? DEFAULT_SOURCE_CHAIN;
      const required = attempt ? BigInt(attempt.gross_minor) : fundingQuote(BigInt(p.invoice_minor), p.currency, p.decimals, p.fee_bps).gross;
      const w = await db().getRepository(Wallet).findOneBy({ account_id: caller.accountId, network: chainAdapter().network, status: 'active' });
      const estimate = walletSendEstimate(required, w?.chain === chain);
      let balance: bigint | null = null;
      if (w) {
        try { balance = await chainAdapter().balanceOf(w.address, PAYOUT_SOURCE_ASSET); } catch {
          throw new DomainError('provider_error', 'balance_unavailable', 'The wallet balance could not be read right now. Retry later.', { status: 503 });
        }
      }
      let reason: string | null = null;
      if (p.marked_sent_at) reason = 'marked_sent';
      else if (!w) reason = 'wallet_not_found';
      else if (p.status !== 'draft' && !(p.status === 'awaiting_funds' && attempt?.funding_source === 'service_wallet')) reason = 'payout_not_fundable';
      else if (attempt && attempt.funding_source !== 'service_wallet') reason = 'funding_source_locked';
      return walletFundingQuoteView({ payout: p, available: reason === null, reason, sourceChain: chain, required, estimate, balance, expiresAt: new Date(Date.now() + 10 * 60 * 1000) });
    },
  });

  mount(r, {
    // 409 receipt_unavailable until settled (never for paid_with_shortfall, spec 2.6).
    id: 'payouts.get_receipt', method: 'get', path: '/payouts/:id/receipt', scope: READ, testMode: 'unavailable', response: receiptResponse, errors: [409],
    summary: 'Receipt of a settled payout: confirmed figures only, estimates labelled.',
    handler: async ({ caller, params }) => {
      const p = await findPayout(caller, params.id);
      const { attempt } = await currentAttempt(p);
      if (p.status !== 'settled' || !attempt) {
        throw conflict('receipt_unavailable', p.status === 'paid_with_shortfall'
          ? 'A payout paid with a shortfall has no receipt.' : `A ${p.status} payout has no receipt yet; receipts exist once settled.`, { status: p.status });
      }
      const ref = attempt.rail_payment_id ? (await fiatRails().get(attempt.rail_payment_id)).provider_reference : null;
      return receiptView(p, attempt, ref);
    },
  });

  mount(r, {
    id: 'payouts.attempts.list', method: 'get', path: '/payouts/:id/attempts', scope: READ, testMode: 'unavailable',
    query: Joi.object(listQuery), response: listEnvelope(attemptResponse),
    handler: async ({ caller, params, query }) => {
      const p = await findPayout(caller, params.id);
      const qb = db().getRepository(PayoutAttempt).createQueryBuilder('a').where('a.payout_id = :id', { id: p.id });
      return paginate(qb, 'a', query, attemptView);
    },
  });

  mount(r, {
    id: 'payouts.events.list', method: 'get', path: '/payouts/:id/events', scope: READ, testMode: 'full',
    query: Joi.object(listQuery), response: eventResponseList,
    handler: async ({ caller, params, query }) => objectEventsPage(caller, (await findPayout(caller, params.id)).id, query),
  });

  mount(r, {
    id: 'payouts.cancel', method: 'post', path: '/payouts/:id/cancel', scope: WRITE, testMode: 'unavailable', response: payoutResponse,
    summary: 'Cancel a payout before funds move (idempotent).',
    handler: async ({ caller, params, ctx }) => {
      const out = await cancelPayout({ accountId: caller.accountId, livemode: caller.livemode, id: params.id, request: requestRef(ctx) });
      if (out.changed) await signalPayoutCancelled(out.payout.id);
      return payoutView(out.payout);
    },
  });

  mount(r, {
    id: 'payouts.mark_sent', method: 'post', path: '/payouts/:id/mark_sent', scope: WRITE, testMode: 'unavailable', response: markSentResponse,
    summary: 'Self-report that funds were sent (authoritative: false); never advances status.',
    handler: async ({ caller, params, ctx }) => ({
      ...payoutView(await markPayoutSent({ accountId: caller.accountId, livemode: caller.livemode, id: params.id, request: requestRef(ctx) })),
      authoritative: false,
    }),
  });

  mount(r, {
    id: 'payouts.replace', method: 'post', path: '/payouts/:id/replace', scope: WRITE, testMode: 'unavailable',
    body: replacePayoutBody, successStatus: 201, response: payoutResponse,
    summary: 'A new draft replacing a failed, returned, expired or cancelled payout (payout.created_as_replacement).',
    handler: async ({ caller, params, body, ctx }) => payoutView(await replacePayout({
      accountId: caller.accountId, livemode: caller.livemode, id: params.id, body, gate: await payoutGate(caller.accountId), request: requestRef(ctx),
    })),
  });
}
