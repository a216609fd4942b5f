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
export interface ProviderIdentity { id: string; name: string; minUsdMicro: bigint; maxUsdMicro: bigint }

/** `provider` on offers and orders: identity and limits. */
export function providerView(p: ProviderIdentity): QuotesCreate['offers'][number]['provider'] {
  return { id: p.id, name: p.name, limits: { currency: 'USD', min_amount: formatDecimal(p.minUsdMicro, 6).replace(/0{4}$/, ''), max_amount: formatDecimal(p.maxUsdMicro, 6).replace(/0{4}$/, '') } };
}

const dec = (minor: string, asset: string) => formatDecimal(BigInt(minor), assetDecimals(asset));

/** One priced offer (`offers[]`). */
export function offerView(o: QuoteOffer, provider: ProviderIdentity): QuotesCreate['offers'][number] {
  return {
    object: 'quote_offer',
    offer_id: o.id,
    provider: providerView(provider),
    payment_method: o.payment_method,
    network: o.network,
    from_asset: o.from_asset,
    to_asset: o.to_asset,
    final_in: dec(o.final_in_minor, o.from_asset),
    final_out: dec(o.final_out_minor, o.to_asset),
    fee: dec(o.fee_minor, o.from_asset),
    fee_asset: o.from_asset,
    rate: rateOf(BigInt(o.final_in_minor), assetDecimals(o.from_asset), BigInt(o.final_out_minor), assetDecimals(o.to_asset)),
    comparable: o.comparable,
    expires_at: o.expires_at.toISOString(),
    used: o.order_id !== null,
  };
}

/** The quote (`POST /quotes` 201, `GET /quotes/{id}`), `now` deciding `quote_status`. */
export function quoteView(q: Quote, offers: QuoteOffer[], providerOf: (id: string) => ProviderIdentity, now = Date.now()): QuotesCreate {
  const winner = offers.find((o) => o.id === q.offer_id) ?? null;
  const comparedBy = q.to_amount !== null ? 'final_in' : 'final_out';
  return {
    object: 'quote',
    id: q.id,
    livemode: q.livemode,
    side: q.side,
    from_asset: q.from_asset,
    to_asset: q.to_asset,
    from_amount: q.from_amount,
    to_amount: q.to_amount,
    payment_method: q.payment_method,
    country: q.country,
    to_network: q.side === 'sell' ? null : q.network,
    from_network: q.side === 'sell' ? q.network : null,
    quote_status: now < q.expires_at.getTime() ? 'indicative' : 'expired',
    indicative_as_of: q.created_at.toISOString(),
    expires_at: q.expires_at.toISOString(),
    offer_id: q.offer_id,
    rate: winner ? rateOf(BigInt(winner.final_in_minor), assetDecimals(winner.from_asset), BigInt(winner.final_out_minor), assetDecimals(winner.to_asset)) : null,
    final_in: winner ? dec(winner.final_in_minor, winner.from_asset) : null,
    final_out: winner ? dec(winner.final_out_minor, winner.to_asset) : null,
    offers: offers.map((o) => offerView(o, providerOf(o.provider))),
    providers: q.providers.map((p) => ({ provider: p.provider, name: providerOf(p.provider).name, status: p.status, reason: p.reason, latency_ms: p.latencyMs, offer_id: p.offerId })),
    route_facts: {
      best_price: winner ? { offer_id: winner.id, provider: winner.provider, compared_by: comparedBy, value: comparedBy === 'final_in' ? dec(winner.final_in_minor, winner.from_asset) : dec(winner.final_out_minor, winner.to_asset) } : null,
      offers_compared: offers.filter((o) => o.comparable).length,
      providers_asked: q.providers.length,
    },
    created_at: q.created_at.toISOString(),
  };
}

const decimal = Joi.string().pattern(/^[0-9]+(\.[0-9]+)?$/);
const providerResponse = Joi.object({
  id: text(), name: text(),
  limits: Joi.object({ currency: text(), min_amount: decimal.required(), max_amount: decimal.required() }).required(),
});

/** Response schema of `providerView`. */
export const providerIdentityResponse = providerResponse;

const offerResponse = Joi.object({
  object: kind('quote_offer'), offer_id: text(), provider: providerResponse.required(), payment_method: text(), network: textOrNull(),
  from_asset: text(), to_asset: text(), final_in: decimal.required(), final_out: decimal.required(), fee: decimal.required(), fee_asset: text(),
  rate: decimal.required(), comparable: Joi.boolean().required(), expires_at: at(), used: Joi.boolean().required(),
});

/** Response schema of `quoteView`. */
export const quoteResponse = Joi.object({
  object: kind('quote'), id: text(), livemode: Joi.boolean().required(),
  side: Joi.string().valid('buy', 'sell', 'swap').required(), from_asset: text(), to_asset: text(),
  from_amount: decimal.allow(null).required(), to_amount: decimal.allow(null).required(),
  payment_method: textOrNull(), country: textOrNull(), to_network: textOrNull(), from_network: textOrNull(),
  quote_status: Joi.string().valid('indicative', 'expired').required(), indicative_as_of: at(), expires_at: at(),
  offer_id: textOrNull(), rate: decimal.allow(null).required(), final_in: decimal.allow(null).required(), final_out: decimal.allow(null).required(),
  offers: Joi.array().items(offerResponse).required(),
  providers: Joi.array().items(Joi.object({
    provider: text(), name: text(), status: Joi.string().valid('quoted', 'no_offer', 'paused', 'failed', 'timed_out').required(),
    reason: textOrNull(), latency_ms: Joi.number().integer().min(0).required(), offer_id: textOrNull(),
  })).required(),
  route_facts: Joi.object({
    best_price: Joi.object({ offer_id: text(), provider: text(), compared_by: Joi.string().valid('final_in', 'final_out').required(), value: decimal.required() }).allow(null).required(),
    offers_compared: Joi.number().integer().min(0).required(),
    providers_asked: Joi.number().integer().min(0).required(),
  }).required(),
  created_at: at(),
});
