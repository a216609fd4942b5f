/** Wire projection of `GET /eligibility` (spec 4.6; shape ours where the spec is silent). */
import Joi from 'joi';
import { ELIGIBILITY_PRODUCTS, type ProductEligibility } from '../domain/eligibility';
import { kind, text } from './schema';
import type { EligibilityGet } from './wire';

/** The eligibility of each product for a country and customer type. */
export function eligibilityView(country: string, customerType: string, products: ProductEligibility[]): EligibilityGet {
  return {
    object: 'eligibility',
    country,
    customer_type: customerType,
    products: products.map((p) => ({ product: p.product, state: p.state, reason: p.reason, requirements: [...p.requirements] })),
  };
}

/** Response schema of `eligibilityView`. */
export const eligibilityResponse = Joi.object({
  object: kind('eligibility'),
  country: text(),
  customer_type: text(),
  products: Joi.array()
    .items(
      Joi.object({
        product: Joi.string()
          .valid(...ELIGIBILITY_PRODUCTS)
          .required(),
        state: Joi.string().valid('likely_available', 'conditional', 'unavailable', 'unknown').required(),
        reason: Joi.string().allow(null).required(),
        requirements: Joi.array().items(Joi.string()).required(),
      }),
    )
    .required(),
});
