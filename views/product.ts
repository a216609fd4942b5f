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
export function productView(product: Product): ProductsCreate {
  return {
    id: product.id,
    object: 'product',
    livemode: product.livemode,
    name: product.name,
    description: product.description,
    currency: product.currency,
    unit_price:
      product.unit_price_minor === null
        ? null
        : { amount: String(product.unit_price_minor), currency: product.currency, decimals: currencyDecimals(product.currency) },
    archived_at: product.archived_at?.toISOString() ?? null,
    created_at: product.created_at.toISOString(),
    updated_at: product.updated_at.toISOString(),
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
