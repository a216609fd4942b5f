/**
 * Customers (spec 4.7, 2.8): the account owner's customer at the KYC provider. All
 * dark-flag: resource switch `api_v1.customers` (off: 503), flag `customers.enabled` (closed: 409
 * capability_unavailable; `sandbox: true`, open on dev and test stacks); test-mode keys 503. The
 * literal id `me` is a deprecated alias of the account's customer (Deprecation header) until the
 * next version date. Rules in activities/customers/*, wire names in views/customer.ts.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import Joi from '../schemas/joi';
import { createCustomer, createVerificationLink, updateComplianceProfile } from '../../activities/customers/commands';
import { associatedPersons, getCustomer, listCustomers } from '../../activities/customers/queries';
import { ALL_LINK_KINDS } from '../../domain/customers';
import { listEnvelope } from '../../views/schema';
import { eventResponse } from '../../views/event';
import {
  associatedPersonResponse,
  associatedPersonView,
  customerResponse,
  customerView,
  verificationLinkResponse,
  verificationLinkView,
} from '../../views/customer';
import type { AppState } from '../context';
import { objectEventsPage } from '../object-events';
import { mount, type OperationDef } from '../operation';
import { documentedAlso, listQuery, strictCountryCode, TRIM_WHITESPACE } from '../schemas/common';

const GATE: Pick<OperationDef, 'testMode' | 'switch' | 'flag'> = {
  testMode: 'unavailable',
  switch: 'api_v1.customers',
  flag: 'customers.enabled',
};
/** The version date after which `me` stops resolving (the next version date). */
const ME_SUNSET = '2027-03-01';

/** Marks a `me` request deprecated (RFC 9745 Deprecation, RFC 8594 Sunset). */
function deprecateMe(id: string, ctx: Koa.ParameterizedContext<AppState>): void {
  if (id !== 'me') return;
  ctx.set('Deprecation', '@1795478400');
  ctx.set('Sunset', new Date(`${ME_SUNSET}T00:00:00Z`).toUTCString());
  ctx.set('Link', '</v1/customers>; rel="alternate"');
}

/** Registers the customer operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    ...GATE,
    id: 'customers.list',
    method: 'get',
    path: '/customers',
    scope: 'customers.read',
    response: listEnvelope(customerResponse),
    summary:
      "The account owner's customer: zero or one row (has_more always false); 409 customer_mapping_stale while the provider mapping is stale.",
    handler: async ({ scope }) => ({
      object: 'list',
      data: (await listCustomers(scope)).map(customerView),
      has_more: false,
      next_cursor: null,
    }),
  });

  mount(router, {
    ...GATE,
    id: 'customers.create',
    method: 'post',
    path: '/customers',
    scope: 'customers.write',
    callers: ['dashboard_session'],
    roles: ['owner'],
    successStatus: 201,
    // `legal_name` is a business's, 1 to 200 characters once trimmed (domain/customers, 400
    // parameter_invalid param legal_name): stated over the two fields.
    body: documentedAlso(
      Joi.object({
        customer_type: Joi.string().valid('individual', 'business').required(),
        country: strictCountryCode,
        legal_name: Joi.string().max(400),
      }),
      {
        anyOf: [
          { not: { required: ['legal_name'], properties: { legal_name: {} } } },
          {
            properties: {
              customer_type: { const: 'business' },
              legal_name: {
                type: 'string',
                pattern: `^[${TRIM_WHITESPACE}]*(?:[^${TRIM_WHITESPACE}]|[^${TRIM_WHITESPACE}][\\s\\S]{0,198}[^${TRIM_WHITESPACE}])[${TRIM_WHITESPACE}]*$`,
              },
            },
          },
        ],
      },
    ),
    response: customerResponse,
    summary:
      "Create the owner's customer (no personal data; verification_state not_started). 409 customer_already_exists, customer_type_conflict.",
    handler: async ({ scope, body }) =>
      customerView(
        await createCustomer(scope, { customer_type: body.customer_type, country: body.country ?? null, legal_name: body.legal_name }),
      ),
  });

  mount(router, {
    ...GATE,
    id: 'customers.get',
    method: 'get',
    path: '/customers/:id',
    scope: 'customers.read',
    response: customerResponse,
    summary:
      "One customer; the literal `me` is a deprecated alias of the account's customer (Deprecation header) until the next version date.",
    handler: async ({ scope, params, ctx }) => {
      deprecateMe(params.id, ctx);
      return customerView(await getCustomer(scope, { id: params.id }));
    },
  });

  mount(router, {
    // Spec 5: `customers.write` reaches business keys through verification links; sessions need owner or admin.
    ...GATE,
    id: 'customers.verification_links.create',
    method: 'post',
    path: '/customers/:id/verification_links',
    scope: 'customers.write',
    callers: ['business_key', 'dashboard_session'],
    roles: ['owner', 'admin'],
    successStatus: 201,
    body: Joi.object({
      kind: Joi.string()
        .valid(...ALL_LINK_KINDS)
        .required(),
    }),
    response: verificationLinkResponse,
    summary:
      'A hosted verification link from the provider: `tos` first (409 tos_link_required), then the identity kinds of the customer type.',
    handler: async ({ scope, params, body, ctx }) => {
      deprecateMe(params.id, ctx);
      return verificationLinkView((await createVerificationLink(scope, { id: params.id, kind: body.kind })).link);
    },
  });

  mount(router, {
    ...GATE,
    id: 'customers.associated_persons.list',
    method: 'get',
    path: '/customers/:id/associated_persons',
    scope: 'customers.read',
    response: listEnvelope(associatedPersonResponse),
    handler: async ({ scope, params }) => ({
      object: 'list',
      data: (await associatedPersons(scope, { id: params.id })).map(associatedPersonView),
      has_more: false,
      next_cursor: null,
    }),
  });

  mount(router, {
    // A per-object event list: reachable by a test-mode key (spec 1 rule 5 reach list); a live customer's id is then 404.
    ...GATE,
    testMode: 'full',
    id: 'customers.events.list',
    method: 'get',
    path: '/customers/:id/events',
    scope: 'customers.read',
    query: Joi.object(listQuery),
    response: listEnvelope(eventResponse),
    handler: async ({ caller, scope, params, query }) => objectEventsPage(caller, (await getCustomer(scope, { id: params.id })).id, query),
  });

  mount(router, {
    ...GATE,
    id: 'customers.compliance_profile.update',
    method: 'patch',
    path: '/customers/:id/compliance_profile',
    scope: 'customers.write',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    body: Joi.object({
      business_activity: Joi.string().trim().min(1).max(200),
      expected_monthly_volume_usd: Joi.string().pattern(/^[0-9]{1,15}$/),
      account_purpose: Joi.string().valid('payments_acceptance', 'payouts', 'payroll', 'treasury', 'other'),
      source_of_funds: Joi.string().valid('business_revenue', 'investment', 'savings', 'salary', 'other'),
    }),
    response: customerResponse,
    summary: 'Update the compliance profile (owner/admin; no personal data); a `compliance_profile` requirement is then met.',
    handler: async ({ scope, params, body }) => customerView(await updateComplianceProfile(scope, { id: params.id, profile: body })),
  });
}
