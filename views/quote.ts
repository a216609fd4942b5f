/**
 * Quote projections (spec 4.9 rule 5, 2.10): the quote with its winning offer, every offer, every
 * provider's terminal result and the route facts. Quote amounts are bare decimal strings in major
 * units (spec 1 rule 1, the one exception to Money).
 */
import Joi from 'joi';
import { assetDecimals, formatDecimal, rateOf } from '../domain/quotes';
import type { Quote, QuoteOffer } from '../entities';
import { at, kind, text, textOrNull } from './schema';
import type { QuotesCreate } from './wire';

/** Identity and limits of a provider (USD, major units), as offers and orders publish it. */
export interface ProviderIdentity {
  id: string;
  name: string;
  minUsdMicro: bigint;
  maxUsdMicro: bigint;
}

/** `provider` on offers and orders: identity and limits. */
export function providerView(providerIdentity: ProviderIdentity): QuotesCreate['offers'][number]['provider'] {
  return {
    id: providerIdentity.id,
    name: providerIdentity.name,
    limits: {
      currency: 'USD',
      min_amount: formatDecimal(providerIdentity.minUsdMicro, 6).replace(/0{4}$/, ''),
      max_amount: formatDecimal(providerIdentity.maxUsdMicro, 6).replace(/0{4}$/, ''),
    },
  };
}

const dec = (minor: string, asset: string) => formatDecimal(BigInt(minor), assetDecimals(asset));

/** One priced offer (`offers[]`). */
export function offerView(quoteOffer: QuoteOffer, provider: ProviderIdentity): QuotesCreate['offers'][number] {
  return {
    object: 'quote_offer',
    offer_id: quoteOffer.id,
    provider: providerView(provider),
    payment_method: quoteOffer.payment_method,
    network: quoteOffer.network,
    from_asset: quoteOffer.from_asset,
    to_asset: quoteOffer.to_asset,
    final_in: dec(quoteOffer.final_in_minor, quoteOffer.from_asset),
    final_out: dec(quoteOffer.final_out_minor, quoteOffer.to_asset),
    fee: dec(quoteOffer.fee_minor, quoteOffer.from_asset),
    fee_asset: quoteOffer.from_asset,
    rate: rateOf(
      BigInt(quoteOffer.final_in_minor),
      assetDecimals(quoteOffer.from_asset),
      BigInt(quoteOffer.final_out_minor),
      assetDecimals(quoteOffer.to_asset),
    ),
    comparable: quoteOffer.comparable,
    expires_at: quoteOffer.expires_at.toISOString(),
    used: quoteOffer.order_id !== null,
  };
}

/** The quote (`POST /quotes` 201, `GET /quotes/{id}`), `now` deciding `quote_status`. */
export function quoteView(
  quote: Quote,
  offers: QuoteOffer[],
  providerOf: (id: string) => ProviderIdentity,
  now = Date.now(),
): QuotesCreate {
  const winner = offers.find((o) => o.id === quote.offer_id) ?? null;
  const comparedBy = quote.to_amount !== null ? 'final_in' : 'final_out';
  return {
    object: 'quote',
    id: quote.id,
    livemode: quote.livemode,
    side: quote.side,
    from_asset: quote.from_asset,
    to_asset: quote.to_asset,
    from_amount: quote.from_amount,
    to_amount: quote.to_amount,
    payment_method: quote.payment_method,
    country: quote.country,
    to_network: quote.side === 'sell' ? null : quote.network,
    from_network: quote.side === 'sell' ? quote.network : null,
    quote_status: now < quote.expires_at.getTime() ? 'indicative' : 'expired',
    indicative_as_of: quote.created_at.toISOString(),
    expires_at: quote.expires_at.toISOString(),
    offer_id: quote.offer_id,
    rate: winner
      ? rateOf(
          BigInt(winner.final_in_minor),
          assetDecimals(winner.from_asset),
          BigInt(winner.final_out_minor),
          assetDecimals(winner.to_asset),
        )
      : null,
    final_in: winner ? dec(winner.final_in_minor, winner.from_asset) : null,
    final_out: winner ? dec(winner.final_out_minor, winner.to_asset) : null,
    offers: offers.map((o) => offerView(o, providerOf(o.provider))),
    providers: quote.providers.map((p) => ({
      provider: p.provider,
      name: providerOf(p.provider).name,
      status: p.status,
      reason: p.reason,
      latency_ms: p.latencyMs,
      offer_id: p.offerId,
    })),
    route_facts: {
      best_price: winner
        ? {
            offer_id: winner.id,
            provider: winner.provider,
            compared_by: comparedBy,
            value: comparedBy === 'final_in' ? dec(winner.final_in_minor, winner.from_asset) : dec(winner.final_out_minor, winner.to_asset),
          }
        : null,
      offers_compared: offers.filter((o) => o.comparable).length,
      providers_asked: quote.providers.length,
    },
    created_at: quote.created_at.toISOString(),
  };
}

const decimal = Joi.string().pattern(/^[0-9]+(\.[0-9]+)?$/);
const providerResponse = Joi.object({
  id: text(),
  name: text(),
  limits: Joi.object({ currency: text(), min_amount: decimal.required(), max_amount: decimal.required() }).required(),
});

/** Response schema of `providerView`. */
export const providerIdentityResponse = providerResponse;

const offerResponse = Joi.object({
  object: kind('quote_offer'),
  offer_id: text(),
  provider: providerResponse.required(),
  payment_method: text(),
  network: textOrNull(),
  from_asset: text(),
  to_asset: text(),
  final_in: decimal.required(),
  final_out: decimal.required(),
  fee: decimal.required(),
  fee_asset: text(),
  rate: decimal.required(),
  comparable: Joi.boolean().required(),
  expires_at: at(),
  used: Joi.boolean().required(),
});

/** Response schema of `quoteView`. */
export const quoteResponse = Joi.object({
  object: kind('quote'),
  id: text(),
  livemode: Joi.boolean().required(),
  side: Joi.string().valid('buy', 'sell', 'swap').required(),
  from_asset: text(),
  to_asset: text(),
  from_amount: decimal.allow(null).required(),
  to_amount: decimal.allow(null).required(),
  payment_method: textOrNull(),
  country: textOrNull(),
  to_network: textOrNull(),
  from_network: textOrNull(),
  quote_status: Joi.string().valid('indicative', 'expired').required(),
  indicative_as_of: at(),
  expires_at: at(),
  offer_id: textOrNull(),
  rate: decimal.allow(null).required(),
  final_in: decimal.allow(null).required(),
  final_out: decimal.allow(null).required(),
  offers: Joi.array().items(offerResponse).required(),
  providers: Joi.array()
    .items(
      Joi.object({
        provider: text(),
        name: text(),
        status: Joi.string().valid('quoted', 'no_offer', 'paused', 'failed', 'timed_out').required(),
        reason: textOrNull(),
        latency_ms: Joi.number().integer().min(0).required(),
        offer_id: textOrNull(),
      }),
    )
    .required(),
  route_facts: Joi.object({
    best_price: Joi.object({
      offer_id: text(),
      provider: text(),
      compared_by: Joi.string().valid('final_in', 'final_out').required(),
      value: decimal.required(),
    })
      .allow(null)
      .required(),
    offers_compared: Joi.number().integer().min(0).required(),
    providers_asked: Joi.number().integer().min(0).required(),
  }).required(),
  created_at: at(),
});
