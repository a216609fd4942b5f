/** Wire projections of the account, its caller and API keys (spec 2.2, 2.11, 4.10). */
import type { Account, ApiKey } from '../entities';
import type { Caller } from '../domain/caller';
import Joi from 'joi';
import { at, atOrNull, bool, freeObject, kind, strings, text, textOrNull } from './schema';
import { readinessResponse, setupGuideResponse } from './account-setup';
import type { AccountGet, ApiKeysGet } from './wire';

/** Account as seen by `caller`; a test key sees the test twin (spec 2.2: language/support null, fixed preferences). */
export function accountView(account: Account, caller: Caller): AccountGet {
  const test = !caller.livemode;
  return {
    id: account.id,
    object: 'account',
    livemode: caller.livemode,
    display_name: account.display_name,
    email: account.email,
    member_since: account.created_at.toISOString(),
    customer_type: account.customer_type,
    country: account.country,
    language: test ? null : account.language,
    access_state: account.access_state,
    support_contact: test ? null : account.support_contact,
    market: { country: account.market_country, default_currency: account.market_currency, source: account.market_source },
    notification_preferences: test ? { marketing: false, product_tips: true } : account.notification_preferences,
    dashboard_preferences: test ? {} : account.dashboard_preferences,
    caller: { type: caller.kind, role: caller.kind === 'dashboard_session' ? caller.role : null },
    created_at: account.created_at.toISOString(),
    updated_at: account.updated_at.toISOString(),
  };
}

/** API key projection; `secret` only on create and roll (spec 5 rule 7). */
export function apiKeyView(apiKey: ApiKey, secret?: string): ApiKeysGet {
  const prefix = apiKey.livemode ? 'sk_live_' : 'sk_test_';
  return {
    id: apiKey.id,
    object: 'api_key',
    livemode: apiKey.livemode,
    name: apiKey.name,
    prefix,
    redacted_secret: `${prefix}...${apiKey.secret_last4}`,
    scopes: apiKey.scopes,
    ip_allowlist: apiKey.ip_allowlist,
    status: apiKey.status,
    expires_at: apiKey.expires_at?.toISOString() ?? null,
    default_version: apiKey.default_version,
    last_used_at: apiKey.last_used_at?.toISOString() ?? null,
    rolled_from: apiKey.rolled_from_key_id,
    revoked_at: apiKey.revoked_at?.toISOString() ?? null,
    created_at: apiKey.created_at.toISOString(),
    updated_at: apiKey.updated_at.toISOString(),
    ...(secret ? { secret } : {}),
  };
}

/** `support_contact` of an account (opt-in, spec 2.2), also the payer session's `merchant_contact`: each field set or null. */
export const supportContactResponse = Joi.object({
  email: Joi.string().allow(null),
  phone: Joi.string().allow('', null),
  url: Joi.string().allow(null),
});

/** Response schema of `accountView` (spec 2.2): the exact wire shape, for the OpenAPI document. */
export const accountResponse = Joi.object({
  id: text(),
  object: kind('account'),
  livemode: bool(),
  display_name: text(),
  email: text(),
  member_since: at(),
  customer_type: text(),
  country: textOrNull(),
  language: textOrNull(),
  access_state: text(),
  support_contact: supportContactResponse.allow(null).required(),
  market: Joi.object({ country: textOrNull(), default_currency: text(), source: text() }).required(),
  notification_preferences: Joi.object({ marketing: bool(), product_tips: bool() }).required(),
  dashboard_preferences: freeObject(),
  caller: Joi.object({ type: text(), role: textOrNull() }).required(),
  created_at: at(),
  updated_at: at(),
});

/** One failed expansion of `GET /account?expand=` (spec 2.2): the error it would have answered on its own route. */
const expandErrorResponse = Joi.object({ type: Joi.string().required(), code: Joi.string().required(), message: Joi.string().required() });

/**
 * Response schema of `GET /account`: `accountResponse` plus, when `expand` names them, `readiness`
 * and `setup_guide` (each present only when computed) and `expand_errors` (present only when one
 * requested expansion failed, keyed by its name).
 */
export const accountExpandedResponse = accountResponse.keys({
  readiness: readinessResponse,
  setup_guide: setupGuideResponse,
  expand_errors: Joi.object({ readiness: expandErrorResponse, setup_guide: expandErrorResponse }),
});

/** Response schema of `apiKeyView`; `secret` only on create and roll. */
export const apiKeyResponse = Joi.object({
  id: text(),
  object: kind('api_key'),
  livemode: bool(),
  name: textOrNull(),
  prefix: text(),
  redacted_secret: text(),
  scopes: strings(),
  ip_allowlist: strings(),
  status: text(),
  expires_at: atOrNull(),
  default_version: textOrNull(),
  last_used_at: atOrNull(),
  rolled_from: textOrNull(),
  revoked_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
  secret: Joi.string(),
});

/** `apiKeyResponse` with the one-time `secret` (create, roll; null in an idempotent replay, spec 5 rule 7). */
export const apiKeyWithSecretResponse = apiKeyResponse.keys({ secret: Joi.string().allow(null).required() });
