/** Wire projection of a product (`prd_`, spec 2.3 Product). */
import type { Product } from '../entities';
import { currencyDecimals } from '../domain/money';
import Joi from 'joi';
import { at, atOrNull, bool, kind, moneyOrNull, text, textOrNull } from './schema';
import type { ProductsCreate } from './wire';

/**
 * Product as returned by every `/products` operation. `unit_price` is Money in the product's
 * `currency` (minor units as a string) or null when the product has no fixed price.
 */
export function productView(p: Product): ProductsCreate {
  return {
    id: p.id,
    object: 'product',
    livemode: p.livemode,
    name: p.name,
    description: p.description,
    currency: p.currency,
    unit_price: p.unit_price_minor === null ? null : { amount: String(p.unit_price_minor), currency: p.currency, decimals: currencyDecimals(p.currency) },
    archived_at: p.archived_at?.toISOString() ?? null,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/** Response schema of `productView`. */
export const productResponse = Joi.object({
  id: text(),
  object: kind('product'),
  livemode: bool(),
  name: text(),
  description: textOrNull(),
  currency: text(),
  unit_price: moneyOrNull(),
  archived_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});
