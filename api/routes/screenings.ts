/**
 * Screening (spec 4.8, 2.9, 2.11 credits): screen an address (free, unmetered), list and
 * read screenings, buy reports (one credit, or free from a 30-day cache) with their evidence PDF,
 * trace funds, and look up an on-chain transaction. Scopes `screenings.read` / `.write` (the old
 * `screening.*` names are accepted until the next version date: api/operation/authorize.ts hasScope). Test
 * mode unavailable. Rules in activities/screenings/*, wire names in views/screening.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createReport, createScreening } from '../../activities/screenings/commands';
import { getReport, getScreening, reportListQuery, screeningListQuery } from '../../activities/screenings/queries';
import { lookupTransaction, trace } from '../../activities/screenings/traces';
import { resolveChain } from '../../domain/addresses';
import { invalidRequest } from '../../domain/errors';
import { MAX_TRACE_DEPTH } from '../../domain/screening';
import { paginate } from '../../lib/pagination';
import { listEnvelope } from '../../views/schema';
import {
  chainTransactionResponse,
  chainTransactionView,
  screeningReportResponse,
  screeningReportView,
  screeningResponse,
  screeningView,
  traceResponse,
  traceView,
} from '../../views/screening';
import { renderEvidencePdf } from '../../views/screening-evidence';
import type { AppState } from '../context';
import { mount } from '../operation';
import { CHAIN_IDS, CHAIN_PATTERN, chainParam, documentedAlso, documentedAs, exactlyOneOf, listQuery } from '../schemas/common';

/** A network by name or alias (any case) or by EVM chain id (a JSON integer). */
const chainIdOrName = Joi.alternatives(chainParam, documentedAs(Joi.number().integer(), { type: 'integer', enum: [...CHAIN_IDS] }));

const READ = 'screenings.read';
const WRITE = 'screenings.write';

/** Registers the screening operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'screenings.create',
    method: 'post',
    path: '/screenings',
    scope: WRITE,
    testMode: 'unavailable',
    successStatus: 201,
    body: Joi.object({ address: Joi.string().min(1).max(200).required(), chain: chainIdOrName.required() }),
    response: screeningResponse,
    summary:
      'Screen an address on a network (free, unmetered): a risk signal, never a block. 409 network_not_supported for another network or an address impossible on it (nothing stored).',
    handler: async ({ scope, body }) => screeningView(await createScreening(scope, { chain: body.chain, address: body.address })),
  });

  mount(router, {
    id: 'screenings.list',
    method: 'get',
    path: '/screenings',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object({ ...listQuery, chain: chainParam }),
    response: listEnvelope(screeningResponse),
    summary: "The account's screenings, newest first, optionally on one network.",
    handler: async ({ scope, query }) => {
      const chain = query.chain === undefined ? undefined : resolveChain(query.chain);
      if (chain === null) throw invalidRequest('parameter_invalid', '`chain` names no network (a name, alias or chain id).', 'chain');
      return paginate(screeningListQuery(scope, { chain }), 's', query, screeningView);
    },
  });

  mount(router, {
    id: 'screenings.get',
    method: 'get',
    path: '/screenings/:id',
    scope: READ,
    testMode: 'unavailable',
    response: screeningResponse,
    handler: async ({ scope, params }) => screeningView(await getScreening(scope, { id: params.id })),
  });

  mount(router, {
    id: 'screenings.reports.create',
    method: 'post',
    path: '/screenings/:id/reports',
    scope: WRITE,
    testMode: 'unavailable',
    successStatus: 201,
    response: screeningReportResponse,
    errors: [402],
    summary:
      "A report on this screening: one credit of the owner's balance, free (cached: true) when an equivalent report for the address exists within 30 days; 402 quota_exhausted with no credit left.",
    handler: async ({ scope, params }) => screeningReportView(await createReport(scope, { id: params.id })),
  });

  mount(router, {
    id: 'screenings.reports.list',
    method: 'get',
    path: '/screenings/:id/reports',
    scope: READ,
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: listEnvelope(screeningReportResponse),
    handler: async ({ scope, params, query }) => paginate(await reportListQuery(scope, { id: params.id }), 'r', query, screeningReportView),
  });

  mount(router, {
    id: 'screenings.reports.get',
    method: 'get',
    path: '/screenings/:id/reports/:report_id',
    scope: READ,
    testMode: 'unavailable',
    response: screeningReportResponse,
    handler: async ({ scope, params }) => screeningReportView(await getReport(scope, { id: params.id, report_id: params.report_id })),
  });

  mount(router, {
    id: 'screenings.reports.evidence_pdf',
    method: 'get',
    path: '/screenings/:id/reports/:report_id/evidence_pdf',
    scope: READ,
    testMode: 'unavailable',
    response: Joi.string().description(
      "application/pdf (binary): the report's figures, the sources checked, the provider version and the SHA-256 of its data",
    ),
    responseContentType: 'application/pdf',
    summary: "The report's evidence as a PDF document.",
    handler: async ({ scope, params, ctx }) => {
      const report = await getReport(scope, { id: params.id, report_id: params.report_id });
      const pdf = await renderEvidencePdf(report);
      ctx.type = 'application/pdf';
      ctx.set('Content-Disposition', `attachment; filename="${report.id}.pdf"`);
      return pdf;
    },
  });

  mount(router, {
    id: 'traces.create',
    method: 'post',
    path: '/traces',
    scope: WRITE,
    testMode: 'unavailable',
    idempotent: false,
    // Exactly one of `address` and `tx_hash` (checked by the command: 400 `parameter_missing` /
    // `parameter_invalid`), stated as `oneOf`.
    body: documentedAlso(
      Joi.object({
        chain: chainIdOrName.required(),
        address: Joi.string().min(1).max(200),
        tx_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
        depth: Joi.number().integer().min(1).max(MAX_TRACE_DEPTH).default(2),
        direction: Joi.string().valid('incoming', 'outgoing', 'both').default('both'),
      }).example({ chain: 'base', address: '0x52908400098527886e0f7030069857d2e4169ee7', depth: 2, direction: 'both' }),
      exactlyOneOf('address', 'tx_hash'),
    ),
    response: traceResponse,
    errors: [409],
    summary:
      'Follow funds from an address or a transaction (exactly one), `depth` hops (1 to 5) in `direction`; at most 200 transfers (`truncated`).',
    handler: async ({ scope, body }) =>
      traceView(
        await trace(scope, {
          chain: body.chain,
          address: body.address,
          tx_hash: body.tx_hash,
          depth: body.depth,
          direction: body.direction,
        }),
      ),
  });

  mount(router, {
    id: 'transactions.get',
    method: 'get',
    path: '/transactions/:chain/:hash',
    scope: READ,
    testMode: 'unavailable',
    response: chainTransactionResponse,
    errors: [409],
    // Checked by the command (400 `parameter_invalid` param `hash`; an unindexed chain is 409); the document states both.
    pathParams: {
      chain: { type: 'string', minLength: 1, maxLength: 40, pattern: CHAIN_PATTERN, examples: ['base'] },
      hash: {
        type: 'string',
        pattern: '^0x[0-9a-fA-F]{64}$',
        examples: ['0x8b1f3c2a9d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbccdde'],
      },
    },
    summary: 'An on-chain transaction by hash (use this, not screening, for hashes): confirmed with its confirmations, or pending.',
    handler: async ({ scope, params }) => chainTransactionView(await lookupTransaction(scope, { chain: params.chain, hash: params.hash })),
  });
}
