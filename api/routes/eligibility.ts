/**
 * `GET /v1/eligibility` (spec 4.6): public (no credential), by `country` and
 * `customer_type`, the state of each product. Dark-flag: switch `api_v1.eligibility` (`sandbox:
 * true`: open on the dev and test stacks, closed in production: `503 temporarily_unavailable`).
 * Rules in domain/eligibility.ts; rate limited per source address like the other public routes.
 */
import Router from '@koa/router';
import Joi from '../schemas/joi';
import { eligibility, type CustomerType } from '../../domain/eligibility';
import { COUNTRIES } from '../../domain/countries';
import { invalidRequest, temporarilyUnavailable } from '../../domain/errors';
import { isSwitchOn } from '../../lib/switches';
import { eligibilityResponse, eligibilityView } from '../../views/eligibility';
import type { AppState } from '../context';
import { mountPublic } from '../operation';
import { countryCode } from '../schemas/common';

/** Router for the public, credential-free `/v1/eligibility`. */
export function eligibilityRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/v1' });
  mountPublic(r, {
    id: 'eligibility.get',
    method: 'get',
    path: '/eligibility',
    summary:
      'Public: what an account in `country` of `customer_type` can likely use, per product (likely_available, conditional with its requirements, unavailable with a reason, unknown). Never an authorization.',
    query: Joi.object({ country: countryCode.required(), customer_type: Joi.string().valid('individual', 'business').required() }),
    response: eligibilityResponse,
    handler: async ({ query, ctx }) => {
      if (!(await isSwitchOn('api_v1.eligibility'))) {
        ctx.set('Retry-After', '3600');
        throw temporarilyUnavailable('eligibility_unavailable', 'Eligibility is not offered by this deployment yet.');
      }
      if (!COUNTRIES.has(query.country))
        throw invalidRequest('country_invalid', '`country` must be an ISO 3166-1 alpha-2 country code.', 'country');
      return eligibilityView(query.country, query.customer_type, eligibility(query.country, query.customer_type as CustomerType));
    },
  });
  return r;
}
