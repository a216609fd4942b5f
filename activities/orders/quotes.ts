/**
 * Quotes (spec 4.9): price a buy, sell or swap across every provider in parallel and keep each
 * offer for an order to take. Rules in domain/quotes.ts; the fan-out in providers/quote-providers.ts.
 */
import { DomainError, invalidRequest } from '../../domain/errors';
import {
  assertCountries,
  assertFiatScale,
  assertSideAssets,
  assetDecimals,
  bestOfferIndex,
  noOfferReason,
  parseDecimal,
  type PaymentMethod,
  type QuoteNetwork,
  type QuoteSide,
  type QuoteTerms,
} from '../../domain/quotes';
import { Quote, QuoteOffer, type StoredProviderResult } from '../../entities';
import { loadConfig } from '../../lib/config';
import { db } from '../../lib/db';
import { IdempotencyKeyTaken, type InlineIdempotency } from '../../lib/idempotency';
import { newId } from '../../lib/ids';
import { alternativeMethods, QUOTE_COUNTRIES, quoteAll, type ProviderResult } from '../../providers/quote-providers';
import { quoteView } from '../../views/quote';
import { providerIdentity } from '../records/orders';
import { scoped } from '../../lib/scoped';
import type { AccountScope, Scope } from '../scope';

/** The body of `POST /quotes` (validated by api/schemas/quotes.ts). */
export interface QuoteRequest {
  side: QuoteSide;
  from_asset: string;
  to_asset: string;
  from_amount?: string;
  to_amount?: string;
  payment_method?: PaymentMethod;
  country?: string;
  to_network?: QuoteNetwork;
  from_network?: QuoteNetwork;
}

/** The forwarded country headers judged by spec 4.9 rule 2 (documented in the OpenAPI description). */
export const COUNTRY_HEADERS = Object.freeze([
  'cf-ipcountry',
  'cloudfront-viewer-country',
  'x-vercel-ip-country',
  'x-country-code',
] as const);

/**
 * Terms of a request after the rules that need no provider (spec 4.9 rule 1, exactly one amount, the
 * assets and network by side). Throws 400 (`parameter_invalid`, `parameter_missing`,
 * `asset_invalid_for_side`, `network_invalid_for_side`) and 422 `amount_invalid`.
 */
export function quoteTerms(quoteRequest: QuoteRequest): QuoteTerms {
  if (quoteRequest.from_amount !== undefined && quoteRequest.to_amount !== undefined)
    throw invalidRequest('parameter_invalid', 'Give exactly one of from_amount and to_amount, not both.', 'to_amount');
  if (quoteRequest.from_amount === undefined && quoteRequest.to_amount === undefined) {
    throw new DomainError('invalid_request', 'parameter_missing', 'Give exactly one of from_amount and to_amount.', {
      param: 'from_amount',
    });
  }
  assertSideAssets(quoteRequest.side, quoteRequest.from_asset, quoteRequest.to_asset);
  if (quoteRequest.side === 'buy' && quoteRequest.from_network)
    throw invalidRequest('network_invalid_for_side', 'A buy names `to_network`, not `from_network`.', 'from_network');
  if (quoteRequest.side === 'sell' && quoteRequest.to_network)
    throw invalidRequest('network_invalid_for_side', 'A sell names `from_network`, not `to_network`.', 'to_network');
  assertFiatScale(quoteRequest.side, quoteRequest.from_asset, quoteRequest.from_amount);
  return {
    side: quoteRequest.side,
    fromAsset: quoteRequest.from_asset,
    toAsset: quoteRequest.to_asset,
    fromAmount: quoteRequest.from_amount ?? null,
    toAmount: quoteRequest.to_amount ?? null,
    paymentMethod: quoteRequest.payment_method ?? null,
    country: quoteRequest.country ?? null,
    network: (quoteRequest.side === 'sell' ? quoteRequest.from_network : (quoteRequest.to_network ?? quoteRequest.from_network)) ?? null,
  };
}

const stored = (r: ProviderResult, offerId: string | null): StoredProviderResult => ({
  provider: r.provider.id,
  status: r.status,
  reason: r.status === 'quoted' ? null : r.reason,
  latencyMs: r.latencyMs,
  offerId,
});

/**
 * `POST /quotes` for the body in `input` (`input.headers`: the request's headers; `input.claim`:
 * the operation's inline idempotency claim): judges the countries (explicit and each forwarded header; 409
 * `COUNTRY_NOT_SUPPORTED` before any provider is asked), asks every provider under its deadline,
 * stores the quote with each offer ranked (rank 0 wins: spec 4.9 rule 5 comparison), and returns
 * them; the completed idempotency record of `input.claim` is written in the same statement (throws
 * `IdempotencyKeyTaken`, nothing written, when the key already has one). No executable offer: `409 capability_unavailable` with `details.reason_code` and
 * `details.alternative_methods` (a pinned method other methods could serve). Errors of
 * domain/quotes.ts (400, 422 `amount_invalid`).
 */
export async function createQuote(
  scope: Scope,
  input: QuoteRequest & { headers: Record<string, string | string[] | undefined>; claim?: InlineIdempotency },
): Promise<{ quote: Quote; offers: QuoteOffer[]; wire: Record<string, unknown> }> {
  const { headers, claim } = input;
  const b: QuoteRequest = input;
  const terms = quoteTerms(b);
  const countries: Array<{ source: string; value: string }> = [];
  if (b.country) countries.push({ source: 'country', value: b.country });
  for (const h of COUNTRY_HEADERS) {
    const v = headers[h];
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value === 'string' && value.trim()) countries.push({ source: h, value: value.trim().toUpperCase() });
  }
  assertCountries(countries, QUOTE_COUNTRIES);
  const cfg = loadConfig();
  const results = await quoteAll(terms, scope.accountId, cfg.quoteProviderDeadlineMs);
  const quoted = results.filter((r): r is Extract<ProviderResult, { status: 'quoted' }> => r.status === 'quoted');
  const requestedOut = terms.toAmount !== null ? parseDecimal(terms.toAmount, assetDecimals(terms.toAsset), 'floor') : null;
  const comparable = quoted.filter((r) => requestedOut === null || r.offer.finalOut === requestedOut);
  if (comparable.length === 0) {
    const reason = noOfferReason(
      results.map((r) => (r.status === 'quoted' ? { code: 'PROVIDER_FILTER_MISMATCH' as const, reason: 'amount_not_exact' } : r)),
    );
    const alternatives = terms.paymentMethod ? alternativeMethods(terms) : [];
    throw new DomainError('capability_unavailable', 'capability_unavailable', `No provider can execute this quote (${reason}).`, {
      details: {
        reason_code: reason,
        ...(alternatives.length > 0 ? { alternative_methods: alternatives } : {}),
        providers: results.map((r) => ({
          provider: r.provider.id,
          status: r.status,
          reason: r.status === 'quoted' ? 'amount_not_exact' : r.reason,
        })),
      },
    });
  }
  // Rank: the comparable offers best first (rule 5), then the others by the same order.
  const order: Array<Extract<ProviderResult, { status: 'quoted' }>> = [];
  const pool = [...comparable];
  while (pool.length > 0) {
    const i = bestOfferIndex(
      pool.map((r) => r.offer),
      requestedOut,
    );
    order.push(pool.splice(i, 1)[0]);
  }
  const rest = quoted.filter((r) => !comparable.includes(r));
  const quoteId = newId('quo_');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + cfg.quoteTtlSeconds * 1000);
  const offers = [...order, ...rest].map((r, rank) =>
    Object.assign(new QuoteOffer(), {
      id: newId('qof_'),
      quote_id: quoteId,
      account_id: scope.accountId,
      livemode: scope.livemode,
      provider: r.provider.id,
      rank,
      comparable: rank < order.length,
      side: terms.side,
      from_asset: terms.fromAsset,
      to_asset: terms.toAsset,
      payment_method: r.offer.paymentMethod,
      network: r.offer.network,
      final_in_minor: r.offer.finalIn.toString(),
      final_out_minor: r.offer.finalOut.toString(),
      fee_minor: r.offer.fee.toString(),
      expires_at: expiresAt,
      order_id: null,
      created_at: now,
    }),
  );
  const offerOf = new Map(offers.map((o) => [o.provider, o.id]));
  const quote = Object.assign(new Quote(), {
    id: quoteId,
    account_id: scope.accountId,
    livemode: scope.livemode,
    side: terms.side,
    from_asset: terms.fromAsset,
    to_asset: terms.toAsset,
    from_amount: terms.fromAmount,
    to_amount: terms.toAmount,
    payment_method: terms.paymentMethod,
    country: terms.country,
    network: terms.network,
    offer_id: offers[0].id,
    providers: results.map((r) => stored(r, r.status === 'quoted' ? (offerOf.get(r.provider.id) ?? null) : null)),
    expires_at: expiresAt,
    created_at: now,
  });
  const wire = quoteView(quote, offers, providerIdentity, now.getTime());
  // One statement: the completed idempotency record (when the caller claimed a key), the quote and its offers.
  // The record's body goes in as `json` (kept verbatim; `jsonb` reorders keys): a replay is byte-identical to this answer.
  const rows: Array<{ n: number }> = await db().query(
    `WITH claim AS (
       INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, response_status, response_body, redactions, completed_at)
       SELECT $1, $2, $3, $4, $5, 'completed', $6, $7::json, '[]', now() WHERE $3::text IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING key),
     go AS (SELECT 1 FROM claim UNION ALL SELECT 1 WHERE $3::text IS NULL),
     q AS (INSERT INTO quotes SELECT r.* FROM jsonb_populate_record(NULL::quotes, $8::jsonb) r WHERE EXISTS (SELECT 1 FROM go) RETURNING id),
     o AS (INSERT INTO quote_offers SELECT r.* FROM jsonb_populate_recordset(NULL::quote_offers, $9::jsonb) r WHERE EXISTS (SELECT 1 FROM q) RETURNING id)
     SELECT (SELECT count(*) FROM q)::int AS n, (SELECT count(*) FROM o)::int AS offers`,
    [
      scope.accountId,
      claim?.route ?? null,
      claim?.key ?? null,
      scope.livemode,
      claim?.hash ?? null,
      claim?.status ?? null,
      JSON.stringify(wire),
      JSON.stringify(quote),
      JSON.stringify(offers),
    ],
  );
  if (!rows[0] || rows[0].n === 0) throw new IdempotencyKeyTaken();
  return { quote, offers, wire };
}

/** `GET /quotes/{id}` of quote `input.id` of the caller's account and mode, with its offers best first; 404 param `id` otherwise. */
export async function getQuote(scope: AccountScope, input: { id: string }): Promise<{ quote: Quote; offers: QuoteOffer[] }> {
  const { id } = input;
  const quote = await scoped(scope).getOne(
    Quote,
    { id },
    () => new DomainError('not_found', 'not_found', `No such quote: ${id}.`, { param: 'id' }),
  );
  const offers = await db()
    .getRepository(QuoteOffer)
    .find({ where: { quote_id: id }, order: { rank: 'ASC' } });
  return { quote, offers };
}
