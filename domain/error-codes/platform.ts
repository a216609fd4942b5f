/**
 * Error registry (domain/error-codes.ts), the platform's codes: request shape and validation,
 * authentication, permissions, idempotency (spec 8), rate limits, switches and test mode, terms,
 * and internal failures. Answered by every operation, not by one area. Pure data.
 */
import type { ErrorCodeSpec } from './entry';


export const PLATFORM_CODES: readonly ErrorCodeSpec[] = [
  // Request shape and validation.
  {
    code: 'parameter_invalid', type: 'invalid_request',
    when: 'A query, body or header value has the wrong type, format or range, a body value has the wrong JSON type (bodies are never converted), or a value does not fit the other fields (e.g. a field that does not apply to the chosen rail).',
    param: 'The offending field (dotted path for nested fields, e.g. `amount.currency`).',
    details: { rail: 'Some checks: the rail the field was checked against.', allowed_rails: 'Some checks: the values that would be accepted.' },
    recovery: 'Fix the named field as the message says and retry.',
  },
  {
    code: 'parameter_missing', type: 'invalid_request',
    when: 'A required field is absent, including fields required only together with another one (e.g. `refund_address` for `crypto_xchain`).',
    param: 'The missing field.',
    recovery: 'Send the named field and retry.',
  },
  {
    code: 'parameter_unknown', type: 'invalid_request',
    when: 'The body names a field the operation does not take (bodies are strict; unknown query parameters are ignored).',
    param: 'The unknown field.',
    details: { did_you_mean: 'The closest known field at the same level, when one is close enough to be a likely typo.' },
    recovery: 'Remove the field, or correct its name (see `details.did_you_mean`).',
  },
  {
    code: 'invalid_request', type: 'invalid_request',
    when: 'A value is refused by a rule with no more specific code: an `allowed_rails` list that is not a list of known rails or is empty, a reminder `offsets_days` out of range, a cross-network refund address that is malformed, zero or one of the platform\'s own addresses, a stablecoin other than USDC.',
    param: 'The offending field.',
    recovery: 'Fix the named field and retry.',
  },
  {
    code: 'body_invalid', type: 'invalid_request',
    when: 'The request body is not JSON, not a JSON object, or could not be read to its end.',
    recovery: 'Send one JSON object as the body.',
  },
  {
    code: 'body_encoding_invalid', type: 'invalid_request',
    when: 'The request body is not valid UTF-8.',
    recovery: 'Encode the body as UTF-8.',
  },
  {
    code: 'body_too_deep', type: 'invalid_request',
    when: 'The JSON body nests deeper than the limit.',
    param: 'Where the limit was crossed, when known.',
    recovery: 'Flatten the body; no operation takes deeply nested input.',
  },
  {
    code: 'content_type_invalid', type: 'invalid_request',
    when: 'A body is sent with a media type other than JSON, or compressed.',
    recovery: 'Send uncompressed UTF-8 JSON with `Content-Type: application/json`.',
  },
  {
    code: 'request_too_large', type: 'invalid_request', status: 413,
    when: 'The request body is larger than the limit.',
    recovery: 'Send a smaller body (split the work into several requests).',
  },
  {
    code: 'method_not_allowed', type: 'invalid_request', status: 405,
    when: 'The path exists but does not serve this HTTP method. The `Allow` header lists the methods it serves.',
    recovery: 'Use one of the methods in `Allow`.',
  },
  {
    code: 'not_found', type: 'not_found',
    when: 'No route matches the path, or the id is unknown or belongs to another account (the answer is the same, so ids of other accounts cannot be probed). For a dashboard session, also a `Service-Account` that is not one of the login\'s accounts.',
    param: 'The path or body field holding the id, when the id came from one (e.g. `id`, `payment_link_id`, `Service-Account`).',
    recovery: 'Check the id and the mode (live or test) of the credential; list the resource to find valid ids.',
  },
  {
    code: 'version_invalid', type: 'invalid_request',
    when: 'The `Service-Version` header is empty or not a calendar date `YYYY-MM-DD`.',
    param: '`Service-Version`.',
    recovery: 'Send a date such as the latest version, or omit the header to use the pinned one.',
  },
  {
    code: 'cursor_invalid', type: 'invalid_request',
    when: 'A list `cursor` was not issued by this list (or was altered).',
    param: '`cursor`.',
    recovery: 'Use the `next_cursor` of the previous page unchanged, or start again without `cursor`.',
  },
  {
    code: 'livemode_boundary', type: 'invalid_request',
    when: 'A test-mode key calls an operation that exists only in live mode (e.g. `PATCH /account`), or asks for live-mode data (request logs).',
    param: '`livemode` when the request asked for the other mode.',
    recovery: 'Use a live-mode credential, or stay within test-mode data.',
  },
  // Authentication (spec 5).
  {
    code: 'missing_credentials', type: 'authentication_error',
    when: 'The request carries no credential.',
    recovery: 'Authenticate with `x-api-key: sk_...` or `Authorization: Bearer <key or session token>`.',
  },
  {
    code: 'ambiguous_credentials', type: 'invalid_request',
    when: 'Both `x-api-key` and `Authorization` carry a value; a request authenticates as exactly one credential.',
    param: '`x-api-key`.',
    recovery: 'Send exactly one of the two headers.',
  },
  {
    code: 'invalid_api_key', type: 'authentication_error',
    when: 'The key is malformed, unknown, presented with the prefix of the other mode, not a key at all, or a session token sent in `x-api-key`.',
    recovery: 'Check the key (copy it again from the dashboard); send session tokens as `Authorization: Bearer`.',
  },
  {
    code: 'invalid_authorization_header', type: 'authentication_error',
    when: 'The `Authorization` header is not `Bearer <token>`.',
    recovery: 'Send `Authorization: Bearer <token>`.',
  },
  {
    code: 'api_key_expired', type: 'authentication_error',
    when: 'The key passed its expiry.',
    recovery: 'Create or roll a key and use the new secret.',
  },
  {
    code: 'api_key_revoked', type: ['authentication_error', 'conflict'],
    when: '401: the key was revoked. 409: rolling a key that is already revoked.',
    recovery: 'Use another active key; a revoked key cannot come back or be rolled.',
  },
  {
    code: 'invalid_session', type: 'authentication_error',
    when: 'The dashboard session token is unknown.',
    recovery: 'Sign in again.',
  },
  {
    code: 'session_expired', type: 'authentication_error',
    when: 'The dashboard session expired.',
    recovery: 'Sign in again.',
  },
  {
    code: 'session_revoked', type: 'authentication_error',
    when: 'The dashboard session was revoked (signed out, or revoked from another session).',
    recovery: 'Sign in again.',
  },
  // Permissions (spec 5 rules 3 and 4).
  {
    code: 'role_denied', type: 'permission_error',
    when: 'The caller class cannot call the operation: a dashboard-only operation called with an API key, or a key-only operation called with a session.',
    recovery: 'Call it with the other kind of credential.',
  },
  {
    code: 'scope_denied', type: 'permission_error',
    when: 'The dashboard member\'s role does not allow the operation (e.g. a viewer writing).',
    recovery: 'Ask an owner or admin to do it, or to change your role.',
  },
  {
    code: 'missing_scope', type: 'permission_error',
    when: 'The API key lacks the scope the operation needs (a write scope does not imply read).',
    details: { required_scope: 'The scope the operation needs, e.g. `payment_links.write`.' },
    recovery: 'Use a key with `details.required_scope`, or add the scope to the key.',
  },
  {
    code: 'ip_not_allowed', type: 'permission_error',
    when: 'The key has an IP allowlist and the request comes from another address.',
    recovery: 'Call from an allowed address, or update the key\'s allowlist.',
  },
  // Idempotency (spec 8).
  {
    code: 'idempotency_key_invalid', type: 'invalid_request',
    when: 'A mutation has no `Idempotency-Key`, or the key is not 16 to 128 characters of `[A-Za-z0-9_-]`.',
    param: '`Idempotency-Key`.',
    recovery: 'Send a fresh, valid key (a UUID without braces works) with every mutation.',
  },
  {
    code: 'idempotency_key_reused', type: 'idempotency_error',
    when: 'The key was used within 24 hours on the same route with a different body.',
    param: '`Idempotency-Key`.',
    recovery: 'Use a new key for a different request; resend the original body to get the stored answer.',
  },
  {
    code: 'idempotency_failed', type: 'idempotency_error',
    when: 'An earlier request with this key failed after it may have taken effect.',
    param: '`Idempotency-Key`.',
    recovery: 'Reconcile (read the resource to see whether the effect happened), then retry under a new key.',
  },
  {
    code: 'idempotency_key_in_use', type: 'conflict',
    when: 'A request with this key is still being processed.',
    param: '`Idempotency-Key`.',
    recovery: 'Retry the same request with the same key shortly; it answers the first request\'s result.',
  },
  // Rate limits (spec 8).
  {
    code: 'rate_limited', type: 'rate_limit_error',
    when: 'The credential class went over its request rate, or the source address presented too many refused credentials.',
    retryAfter: true,
    recovery: 'Wait `Retry-After` seconds, then retry; spread requests out.',
  },
  // Availability and modes.
  {
    code: 'switch_off', type: 'temporarily_unavailable',
    when: 'The operation\'s resource switch is off (an operator paused it).',
    retryAfter: true,
    recovery: 'Retry after `Retry-After`.',
  },
  {
    code: 'test_mode_unavailable', type: 'temporarily_unavailable',
    when: 'Test mode is switched off for the platform; every test-mode request is refused.',
    retryAfter: true,
    recovery: 'Retry after `Retry-After`, or use live mode.',
  },
  {
    code: 'test_mode_not_supported', type: 'temporarily_unavailable',
    when: 'The operation does not exist in test mode (e.g. creating an account).',
    recovery: 'Call it in live mode.',
  },
  {
    code: 'capability_unavailable', type: 'capability_unavailable',
    when: 'The account cannot use this capability: a product flag is closed for it, a corridor or rail combination is not offered, or a quote has no provider that can execute it.',
    param: 'The field that selected the capability, when one did (e.g. `source_chain`, `country`).',
    details: {
      reason_code: 'Quotes: why no provider can execute it.', alternative_methods: 'Quotes: methods that would work instead.',
      corridor_id: 'Payouts: the corridor.', source_chains: 'Payouts: the chains the corridor takes.', blocked_reason: 'Payouts: why the corridor is closed.',
    },
    recovery: 'Do not retry: change the request (another corridor, rail, method), or ask support to enable the capability.',
  },
  {
    code: 'temporarily_unavailable', type: 'temporarily_unavailable',
    when: 'A provider cannot take the request right now (order placement or cancel), the buy/sell coverage snapshot is cold or stale, or a service the request needs (the database, the workflow engine) is briefly out.',
    details: { order_id: 'The order concerned, when one is.', snapshot: 'Coverage: `cold` or `stale`.' },
    recovery: 'Retry after `Retry-After` seconds, with the same Idempotency-Key (orders: the offer is released; retry or re-quote).',
  },
  {
    code: 'eligibility_unavailable', type: 'temporarily_unavailable',
    when: 'This deployment does not offer eligibility checks yet.',
    recovery: 'Retry later.',
  },
  {
    code: 'readiness_unavailable', type: 'temporarily_unavailable',
    when: 'The account\'s readiness could not be computed in time. Also inside `expand_errors` of `GET /account?expand=readiness`.',
    retryAfter: true,
    recovery: 'Retry shortly.',
  },
  {
    code: 'setup_guide_unavailable', type: 'temporarily_unavailable',
    when: 'The setup guide could not be computed in time. Also inside `expand_errors` of `GET /account?expand=setup_guide`.',
    retryAfter: true,
    recovery: 'Retry shortly.',
  },
  {
    code: 'expansion_failed', type: 'api_error',
    when: 'An `expand` member of `GET /account` failed unexpectedly; it appears inside `expand_errors`, the rest of the account is answered.',
    recovery: 'Retry; if it persists, contact support with the request id.',
  },
  // Terms (spec 1 rule 6).
  {
    code: 'terms_acceptance_required', type: 'capability_unavailable',
    when: 'The operation is gated on the current terms and they are not accepted: by the account owner (account gate) or by you (personal wallet gate).',
    details: {
      revision: 'The terms revision to accept (a date).', action: '`owner_accepts_terms` or `user_accepts_terms`.',
      accepted_by: '`account_owner` or `acting_user`.',
    },
    recovery: 'Have `details.accepted_by` accept revision `details.revision`, then retry with the same Idempotency-Key.',
  },
  {
    code: 'terms_acceptance_owner_only', type: 'conflict',
    when: 'Someone other than the account owner tried to accept the account\'s terms.',
    recovery: 'Ask the account owner to accept them.',
  },
  {
    code: 'legal_acceptance_unavailable', type: 'temporarily_unavailable',
    when: 'The terms acceptance record cannot be read right now, so a gated operation cannot be checked.',
    retryAfter: true,
    recovery: 'Retry after `Retry-After`.',
  },
  // Internal.
  {
    code: 'internal_error', type: 'api_error',
    when: 'An unexpected failure inside the service; no stack trace is shown.',
    recovery: 'Retry mutations with the same Idempotency-Key; if it persists, contact support with the request id.',
  },
];
