/**
 * Request schemas of quotes and orders (spec 4.9). Shapes only: the rules over two fields, the
 * side and the providers are in activities/orders (domain/quotes.ts, domain/orders.ts).
 */
import Joi from './joi';
import { ORDER_STATUSES } from '../../domain/orders';
import { FIAT_DECIMALS } from '../../domain/money';
import { isCryptoAsset, PAYMENT_METHODS, QUOTE_AMOUNT_PATTERN, QUOTE_ASSETS, QUOTE_NETWORKS, QUOTE_SIDES } from '../../domain/quotes';
import { documentedAlso, exactlyOneOf, idOf, listQuery } from './common';

/** A quote amount: a bare decimal string in major units (a Money object is `400`), strictly positive, 15 integer and 18 fractional digits at most. */
const quoteAmount = Joi.string()
  .pattern(QUOTE_AMOUNT_PATTERN)
  .max(34)
  .messages({ 'string.pattern.base': 'must be a positive decimal in major units with at most 15 integer and 18 fractional digits' });

const FIAT_ASSETS = QUOTE_ASSETS.filter((a) => !isCryptoAsset(a));
const CRYPTO_ASSETS = QUOTE_ASSETS.filter(isCryptoAsset);

/**
 * What `quoteTerms` (activities/orders/quotes.ts) checks over several fields, stated in the
 * document: exactly one of `from_amount` and `to_amount`; the side decides the asset
 * classes (a buy is fiat to crypto, a sell crypto to fiat, a swap crypto to another crypto) and
 * which network a quote names (a buy no `from_network`, a sell no `to_network`); a buy's
 * `from_amount` carries at most the fiat's scale in significant fractional digits (spec 4.9 rule 1).
 */
function quoteRules(): Record<string, unknown> {
  const byScale = new Map<number, string[]>();
  for (const a of FIAT_ASSETS) byScale.set(FIAT_DECIMALS[a], [...(byScale.get(FIAT_DECIMALS[a]) ?? []), a]);
  const buys = [...byScale.entries()]
    .sort(([a], [b]) => a - b)
    .map(([scale, codes]) => ({
      properties: {
        side: { const: 'buy' },
        from_asset: { enum: codes },
        to_asset: { enum: CRYPTO_ASSETS },
        from_amount: { pattern: `^[0-9]*(?:\\.[0-9]{0,${scale}}0*)?$` },
        from_network: false, // a buy names no `from_network` (a `false` property schema: absent)
      },
    }));
  const sell = {
    properties: { side: { const: 'sell' }, from_asset: { enum: CRYPTO_ASSETS }, to_asset: { enum: FIAT_ASSETS }, to_network: false },
  };
  const swaps = CRYPTO_ASSETS.map((c) => ({
    properties: { side: { const: 'swap' }, from_asset: { const: c }, to_asset: { enum: CRYPTO_ASSETS.filter((o) => o !== c) } },
  }));
  return { allOf: [exactlyOneOf('from_amount', 'to_amount'), { anyOf: [...buys, sell, ...swaps] }] };
}

/** `POST /quotes`: exactly one of `from_amount` / `to_amount`, assets and network by side (checked with their own codes, stated in the document). */
export const createQuoteBody = documentedAlso(
  Joi.object({
    side: Joi.string()
      .valid(...QUOTE_SIDES)
      .required(),
    from_asset: Joi.string()
      .valid(...QUOTE_ASSETS)
      .required(),
    to_asset: Joi.string()
      .valid(...QUOTE_ASSETS)
      .required(),
    from_amount: quoteAmount,
    to_amount: quoteAmount,
    payment_method: Joi.string().valid(...PAYMENT_METHODS),
    country: Joi.string()
      .pattern(/^[A-Z]{2}$/)
      .messages({ 'string.pattern.base': 'must be an ISO 3166-1 alpha-2 code in capitals' }),
    to_network: Joi.string().valid(...QUOTE_NETWORKS),
    from_network: Joi.string().valid(...QUOTE_NETWORKS),
  }).example({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '100.00', to_network: 'base', country: 'US' }),
  quoteRules(),
);

/** `POST /orders`: the offer and exactly one destination (checked with its own code `destination_invalid`, stated as `oneOf`). */
export const createOrderBody = documentedAlso(
  Joi.object({
    offer_id: idOf('qof_').required(),
    destination_id: idOf('adr_'),
    wallet_address: Joi.string().min(1).max(200),
    payment_link_id: idOf('pl_'),
    refund_address: Joi.string().min(1).max(200),
  }),
  exactlyOneOf('destination_id', 'wallet_address', 'payment_link_id'),
);

/** `GET /orders`. */
export const listOrdersQuery = Joi.object({
  ...listQuery,
  status: Joi.string().valid(...ORDER_STATUSES),
  quote_id: idOf('quo_'),
});
