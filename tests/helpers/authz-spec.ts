/**
 * Who may call what, written from the spec (../shared/spec/payments-api-v1.md parts 1, 4 and 5, and
 * ../shared/spec/operations.tsv), not from the operation registry: this file imports nothing from
 * api/ or domain/, so a wrong role, scope, caller class or test-mode reach on an operation
 * definition disagrees with it (tests/api/authz-matrix.test.ts compares both ways).
 *
 * One entry per operation of the spec (the 178 rows of operations.tsv, payer and public ones
 * included) plus the operations we serve beyond it, under our operation ids. Per entry:
 * - `callers`: who may present a credential (spec 4 "Callers default to: business key, dashboard
 *   session"; 4.5, 4.10 and 5 name the dashboard-session-only ones); `public_token` for a route
 *   addressed by a capability token in its path (spec 5 rule 5), `none` for a credential-free one.
 * - `roles`: membership roles a dashboard session needs. The spec names no roles beyond "owner" and
 *   "owner/admin" (spec 5 rule 4); the four roles and the default (reads: every role; writes:
 *   owner, admin, developer) are the decision "Member roles" of the record
 *   docs/decisions/0002-authentication-and-authorization.md. Entries that differ say why.
 * - `scope`: what a business key needs (`<resource>.<read|write>`, the section headings of spec 4
 *   and the list in spec 5); null on token and credential-free routes.
 * - `testMode`: a test-mode key's answer (spec 1 rule 5): `works` for the reach list ("API-key
 *   reads, request-log reads and account reads; webhook endpoints, webhook deliveries and
 *   per-object event lists"), `test_mode_not_supported` (503) for "every other operation",
 *   `livemode_boundary` (400) where spec 4.10 says so, `no_test_mode` on token and
 *   credential-free routes (a credential there is not looked at).
 * - `darkFlag`: the spec marks the operation `dark-flag` (documentation; the matrix runs with the
 *   test stack's switches and flags open).
 * - `decision`: where the spec is silent (or leaves a choice) and the product decided, the title
 *   of the record in docs/decisions/ that says what, then the entry in it (its bold lead or a quote):
 *   `'<record title>: <entry>'` (tests/api/authz-matrix.test.ts checks that both exist).
 */

export type SpecCaller = 'business_key' | 'dashboard_session' | 'public_token' | 'none';
export type SpecRole = 'viewer' | 'developer' | 'admin' | 'owner';
export type SpecTestMode = 'works' | 'test_mode_not_supported' | 'livemode_boundary' | 'no_test_mode';
export type SpecMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface SpecOperation {
  /** Our operation id (the registry's name for the spec row). */
  id: string;
  method: SpecMethod;
  /** The spec's path template, as operations.tsv writes it (`{id}`), relative to /v1. */
  path: string;
  callers: readonly SpecCaller[];
  /** Session roles admitted; empty when no dashboard session may call. */
  roles: readonly SpecRole[];
  scope: string | null;
  testMode: SpecTestMode;
  darkFlag?: boolean;
  /** The decision record (docs/decisions/, by title) and entry behind a choice the spec leaves open. */
  decision?: string;
  /** True for an operation we serve that is not a row of operations.tsv. */
  beyondSpec?: boolean;
}

const KEY_AND_SESSION: readonly SpecCaller[] = ['business_key', 'dashboard_session'];
const SESSION: readonly SpecCaller[] = ['dashboard_session'];
const EVERY_ROLE: readonly SpecRole[] = ['viewer', 'developer', 'admin', 'owner'];
const WRITERS: readonly SpecRole[] = ['developer', 'admin', 'owner'];
const OWNER_ADMIN: readonly SpecRole[] = ['admin', 'owner'];
const OWNER: readonly SpecRole[] = ['owner'];

const ROLES_DECISION = 'Authentication and authorization (spec 5): Member roles';
const WALLET_WRITES = 'Wallet (issue 14): deposits: "writes owner/admin, like POST /wallet/wallets"';
const SEND_INTENTS =
  'Wallet (issue 14): sends, the holder\'s signature, pay with wallet: "Send intent (wsi_, dashboard session; writes owner/admin)"';
const ADDRESS_BOOK_WHO = 'Address book (spec 2.11, 4.10): Who';
const CREDITS_WHOSE = 'Credits (spec 2.11, 4.10, 8): Whose';
const API_KEYS_WHO = `${ROLES_DECISION} ("API keys and account changes: owner/admin")`;

type Options = Partial<Omit<SpecOperation, 'id' | 'method' | 'path' | 'scope'>>;

/**
 * An authenticated operation: `route` is `'<METHOD> <path>'` as operations.tsv writes it. Defaults:
 * business key and dashboard session (spec 4), the default roles of the method (decision), 503 in
 * test mode (spec 1 rule 5: every operation outside the reach list).
 */
function op(id: string, route: string, scope: string, o: Options = {}): SpecOperation {
  const [method, path] = route.split(' ') as [SpecMethod, string];
  return {
    id,
    method,
    path,
    scope,
    callers: o.callers ?? KEY_AND_SESSION,
    roles: o.roles ?? (method === 'GET' ? EVERY_ROLE : WRITERS),
    testMode: o.testMode ?? 'test_mode_not_supported',
    ...(o.darkFlag ? { darkFlag: true } : {}),
    ...(o.decision ? { decision: o.decision } : {}),
    ...(o.beyondSpec ? { beyondSpec: true } : {}),
  };
}

/** A route addressed by a public token in its path (spec 4.1 payer sessions, 4.4 recipient sessions; spec 5 rule 5). */
function tokenRoute(id: string, route: string): SpecOperation {
  const [method, path] = route.split(' ') as [SpecMethod, string];
  return { id, method, path, scope: null, callers: ['public_token'], roles: [], testMode: 'no_test_mode' };
}

/** Spec 1 rule 5 reach list, the "per-object event lists" part. */
const PER_OBJECT_EVENTS: Options = { testMode: 'works' };

export const AUTHZ_SPEC: readonly SpecOperation[] = [
  // 4.1 Payment links (`payment_links.read` / `.write`); spec 5: business keys reach all.
  op('payment_links.list', 'GET /payment_links', 'payment_links.read'),
  op('payment_links.create', 'POST /payment_links', 'payment_links.write'),
  op('payment_links.get', 'GET /payment_links/{id}', 'payment_links.read'),
  op('payment_links.update', 'PATCH /payment_links/{id}', 'payment_links.write'),
  // "Human attestation, REST only": a request body, not a caller class; spec 5 gives keys all of payment_links.write.
  op('payment_links.activate', 'POST /payment_links/{id}/activate', 'payment_links.write'),
  op('payment_links.cancel', 'POST /payment_links/{id}/cancel', 'payment_links.write'),
  op('payment_links.send_invoice', 'POST /payment_links/{id}/send_invoice', 'payment_links.write'),
  op('payment_links.reminder_schedule.get', 'GET /payment_links/{id}/reminder_schedule', 'payment_links.read'),
  op('payment_links.reminder_schedule.update', 'PATCH /payment_links/{id}/reminder_schedule', 'payment_links.write'),
  op('payment_links.reminder_schedule.disable', 'POST /payment_links/{id}/reminder_schedule/disable', 'payment_links.write'),
  op('payment_links.events.list', 'GET /payment_links/{id}/events', 'payment_links.read', PER_OBJECT_EVENTS),
  op('payment_links.get_receipt', 'GET /payment_links/{id}/receipt', 'payment_links.read'),
  op('clients.list', 'GET /clients', 'payment_links.read'),
  op('clients.create', 'POST /clients', 'payment_links.write'),
  op('clients.get', 'GET /clients/{id}', 'payment_links.read'),
  op('clients.update', 'PATCH /clients/{id}', 'payment_links.write'),
  op('clients.archive', 'POST /clients/{id}/archive', 'payment_links.write'),
  op('products.list', 'GET /products', 'payment_links.read'),
  op('products.create', 'POST /products', 'payment_links.write'),
  op('products.get', 'GET /products/{id}', 'payment_links.read'),
  op('products.update', 'PATCH /products/{id}', 'payment_links.write'),
  op('products.archive', 'POST /products/{id}/archive', 'payment_links.write'),
  // The spec names the `refunded` status and `payment_link.refunded` but no endpoint.
  op('payment_links.refund', 'POST /payment_links/{id}/refund', 'payment_links.write', {
    beyondSpec: true,
    decision: 'Bank rails (issue 12): Refund',
  }),

  // 4.1 Payer session routes: public token `plk_...`, dispatched before authentication (spec 5 rule 5).
  tokenRoute('payment_sessions.get', 'GET /payment_sessions/{token}'),
  tokenRoute('payment_sessions.get_by_code', 'GET /payment_sessions/by_code/{short_code}'),
  tokenRoute('payment_sessions.view', 'POST /payment_sessions/{token}/view'),
  tokenRoute('payment_sessions.payments.create', 'POST /payment_sessions/{token}/payments'),
  tokenRoute('payment_sessions.payments.get', 'GET /payment_sessions/{token}/payments/{payment_id}'),
  tokenRoute('payment_sessions.receipt_email', 'POST /payment_sessions/{token}/receipt_email'),
  tokenRoute('payment_sessions.mark_sent', 'POST /payment_sessions/{token}/mark_sent'),
  tokenRoute('payment_sessions.pay_with_wallet', 'POST /payment_sessions/{token}/pay_with_wallet'),

  // 4.2 Crypto processing (`payment_links.read` / `.write`; the scope also covers subscriptions and payments).
  // "Agent owner only": the agent (a business key, spec 4) and, of the dashboard sessions, the owner.
  op('payment_links.payments', 'GET /payment_links/{id}/payments', 'payment_links.read', {
    roles: OWNER,
    decision: 'Authorization matrix from the spec (issue 25): "Agent owner only"',
  }),
  op('payments.list', 'GET /payments', 'payment_links.read'),
  op('payments.get', 'GET /payments/{id}', 'payment_links.read'),
  op('payments.events', 'GET /payments/{id}/events', 'payment_links.read', PER_OBJECT_EVENTS),
  op('subscriptions.list', 'GET /subscriptions', 'payment_links.read'),
  op('subscriptions.create', 'POST /subscriptions', 'payment_links.write'),
  op('subscriptions.get', 'GET /subscriptions/{id}', 'payment_links.read'),
  op('subscriptions.pause', 'POST /subscriptions/{id}/pause', 'payment_links.write'),
  op('subscriptions.resume', 'POST /subscriptions/{id}/resume', 'payment_links.write'),
  op('subscriptions.cancel', 'POST /subscriptions/{id}/cancel', 'payment_links.write'),
  op('subscriptions.invoices.list', 'GET /subscriptions/{id}/invoices', 'payment_links.read'),
  op('subscriptions.invoices.get', 'GET /subscriptions/{id}/invoices/{invoice_id}', 'payment_links.read'),

  // 4.3 Payouts (`payouts.read` / `.write`); spec 5: business keys reach all.
  op('payouts.list', 'GET /payouts', 'payouts.read'),
  op('payouts.create', 'POST /payouts', 'payouts.write'),
  op('payouts.get_eligibility', 'GET /payouts/eligibility', 'payouts.read'),
  op('payouts.get', 'GET /payouts/{id}', 'payouts.read'),
  op('payouts.beneficiary.set', 'POST /payouts/{id}/beneficiary', 'payouts.write'),
  op('payouts.funding_instructions.get', 'GET /payouts/{id}/funding_instructions', 'payouts.read'),
  // "POST is the money boundary (human confirmation ...)" against spec 5 "payouts.write: all": we read
  // the human confirmation as a dashboard session of the owner or an admin.
  op('payouts.funding_instructions.create', 'POST /payouts/{id}/funding_instructions', 'payouts.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: 'Payouts (spec 2.6, 3, 4.3, 4.6, 8; issue 4): Money boundary',
  }),
  op('payouts.get_wallet_funding_quote', 'GET /payouts/{id}/wallet_funding_quote', 'payouts.read'),
  op('payouts.get_receipt', 'GET /payouts/{id}/receipt', 'payouts.read'),
  op('payouts.attempts.list', 'GET /payouts/{id}/attempts', 'payouts.read'),
  op('payouts.events.list', 'GET /payouts/{id}/events', 'payouts.read', PER_OBJECT_EVENTS),
  op('payouts.cancel', 'POST /payouts/{id}/cancel', 'payouts.write'),
  op('payouts.mark_sent', 'POST /payouts/{id}/mark_sent', 'payouts.write'),
  op('payouts.replace', 'POST /payouts/{id}/replace', 'payouts.write'),

  // 4.4 Payroll (`payroll.read` / `.write`); spec 5: business keys reach all.
  op('payroll_runs.list', 'GET /payroll_runs', 'payroll.read'),
  op('payroll_runs.create', 'POST /payroll_runs', 'payroll.write'),
  op('payroll_runs.get', 'GET /payroll_runs/{id}', 'payroll.read'),
  op('payroll_runs.get_readiness', 'GET /payroll_runs/{id}/readiness', 'payroll.read'),
  op('payroll_runs.items.list', 'GET /payroll_runs/{id}/items', 'payroll.read'),
  op('payroll_runs.items.get', 'GET /payroll_runs/{id}/items/{item_id}', 'payroll.read'),
  op('payroll_runs.attempts.list', 'GET /payroll_runs/{id}/attempts', 'payroll.read'),
  op('payroll_runs.events.list', 'GET /payroll_runs/{id}/events', 'payroll.read', PER_OBJECT_EVENTS),
  op('payroll_runs.get_export', 'GET /payroll_runs/{id}/export', 'payroll.read'),
  op('payroll_runs.approve', 'POST /payroll_runs/{id}/approve', 'payroll.write'),
  op('payroll_runs.cancel', 'POST /payroll_runs/{id}/cancel', 'payroll.write'),
  op('payroll_runs.execute', 'POST /payroll_runs/{id}/execute', 'payroll.write'),
  op('payroll_runs.funding_instructions.get', 'GET /payroll_runs/{id}/funding_instructions', 'payroll.read'),
  op('payroll_runs.funding_instructions.create', 'POST /payroll_runs/{id}/funding_instructions', 'payroll.write'),
  op('payroll_runs.items.reissue_link', 'POST /payroll_runs/{id}/items/{item_id}/reissue_link', 'payroll.write'),
  op('payroll_recipients.list', 'GET /payroll_recipients', 'payroll.read'),
  op('payroll_recipients.get', 'GET /payroll_recipients/{id}', 'payroll.read'),
  op('payroll_recipients.adopt_pending_destination', 'POST /payroll_recipients/{id}/adopt_pending_destination', 'payroll.write'),
  op('payroll_templates.list', 'GET /payroll_templates', 'payroll.read'),
  op('payroll_templates.create', 'POST /payroll_templates', 'payroll.write'),
  op('payroll_templates.get', 'GET /payroll_templates/{id}', 'payroll.read'),
  tokenRoute('payroll_recipient_sessions.get', 'GET /payroll_recipient_sessions/{token}'),
  tokenRoute('payroll_recipient_sessions.destination', 'POST /payroll_recipient_sessions/{token}/destination'),

  // 4.5 Wallet (`wallet.read` / `.write`): "Business keys reach only reads of wallets, balances,
  // transactions, deposit_routes, send_routes, conversion_pairs. Everything else is dashboard
  // session"; spec 5 "wallet.write: none (dashboard session only)". Wallet writes: owner or admin
  // (decision "Wallet (issue 14): deposits": "writes owner/admin, like POST /wallet/wallets").
  op('wallet.wallets.list', 'GET /wallet/wallets', 'wallet.read'),
  op('wallet.wallets.create', 'POST /wallet/wallets', 'wallet.write', { callers: SESSION, roles: OWNER_ADMIN, decision: WALLET_WRITES }),
  op('wallet.wallets.get', 'GET /wallet/wallets/{id}', 'wallet.read'),
  op('wallet.balances.get', 'GET /wallet/balances', 'wallet.read'),
  op('wallet.transactions.list', 'GET /wallet/transactions', 'wallet.read'),
  op('wallet.transactions.get', 'GET /wallet/transactions/{hash}', 'wallet.read'),
  op('wallet.deposit_routes.list', 'GET /wallet/deposit_routes', 'wallet.read'),
  op('wallet.send_routes.list', 'GET /wallet/send_routes', 'wallet.read'),
  op('wallet.conversion_pairs.list', 'GET /wallet/conversion_pairs', 'wallet.read'),
  op('wallet.deposit_quotes.create', 'POST /wallet/deposit_quotes', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),
  op('wallet.deposit_intents.list', 'GET /wallet/deposit_intents', 'wallet.read', { callers: SESSION }),
  op('wallet.deposit_intents.create', 'POST /wallet/deposit_intents', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),
  op('wallet.deposit_intents.get', 'GET /wallet/deposit_intents/{id}', 'wallet.read', { callers: SESSION }),
  op('wallet.send_intents.list', 'GET /wallet/send_intents', 'wallet.read', { callers: SESSION }),
  op('wallet.send_intents.create', 'POST /wallet/send_intents', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: SEND_INTENTS,
  }),
  op('wallet.send_intents.get', 'GET /wallet/send_intents/{id}', 'wallet.read', { callers: SESSION }),
  op('wallet.send_intents.source_tx', 'POST /wallet/send_intents/{id}/source_tx', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: SEND_INTENTS,
  }),
  op('wallet.offramp_quotes.create', 'POST /wallet/offramp_quotes', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),
  op('wallet.external_accounts.list', 'GET /wallet/external_accounts', 'wallet.read', { callers: SESSION }),
  op('wallet.external_accounts.create', 'POST /wallet/external_accounts', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),
  op('wallet.offramp_intents.list', 'GET /wallet/offramp_intents', 'wallet.read', { callers: SESSION, darkFlag: true }),
  op('wallet.offramp_intents.create', 'POST /wallet/offramp_intents', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: WALLET_WRITES,
  }),
  op('wallet.offramp_intents.get', 'GET /wallet/offramp_intents/{id}', 'wallet.read', { callers: SESSION, darkFlag: true }),
  op('wallet.offramp_intents.cancel', 'POST /wallet/offramp_intents/{id}/cancel', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: WALLET_WRITES,
  }),
  op('wallet.virtual_accounts.list', 'GET /wallet/virtual_accounts', 'wallet.read', { callers: SESSION, darkFlag: true }),
  op('wallet.virtual_accounts.create', 'POST /wallet/virtual_accounts', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: WALLET_WRITES,
  }),
  op('wallet.virtual_accounts.get', 'GET /wallet/virtual_accounts/{id}', 'wallet.read', { callers: SESSION, darkFlag: true }),
  op('wallet.virtual_accounts.deactivate', 'POST /wallet/virtual_accounts/{id}/deactivate', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: WALLET_WRITES,
  }),
  op('wallet.virtual_accounts.reactivate', 'POST /wallet/virtual_accounts/{id}/reactivate', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: WALLET_WRITES,
  }),
  op('wallet.virtual_accounts.history', 'GET /wallet/virtual_accounts/{id}/history', 'wallet.read', { callers: SESSION, darkFlag: true }),
  op('wallet.conversions.create', 'POST /wallet/conversions', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),
  op('wallet.conversions.get', 'GET /wallet/conversions/{id}', 'wallet.read', { callers: SESSION }),
  op('wallet.conversions.source_tx', 'POST /wallet/conversions/{id}/source_tx', 'wallet.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: WALLET_WRITES,
  }),

  // 4.6 Capabilities ("scope capabilities.read; not available in test mode") and eligibility
  // ("public: country and customer type; dark-flag, closed in production").
  op('capabilities.get', 'GET /capabilities', 'capabilities.read'),
  {
    id: 'eligibility.get',
    method: 'GET',
    path: '/eligibility',
    scope: null,
    callers: ['none'],
    roles: [],
    testMode: 'no_test_mode',
    darkFlag: true,
  },

  // 4.9 Quotes and orders (`orders.read` / `.write`, shared by quotes); spec 5: business keys reach
  // all. "GET /quotes/{id}. Test-mode callers are refused."; "POST /orders (test mode refused ...)".
  op('quotes.create', 'POST /quotes', 'orders.write'),
  op('quotes.get', 'GET /quotes/{id}', 'orders.read'),
  op('orders.list', 'GET /orders', 'orders.read'),
  op('orders.create', 'POST /orders', 'orders.write'),
  op('orders.get', 'GET /orders/{id}', 'orders.read'),
  op('orders.events.list', 'GET /orders/{id}/events', 'orders.read', PER_OBJECT_EVENTS),
  op('orders.cancel', 'POST /orders/{id}/cancel', 'orders.write'),

  // 4.7 Customers (`customers.read` / `.write`; all `dark-flag`). Spec 5: "customers.read all;
  // customers.write all (business key via verification links)": the other writes are dashboard session only.
  op('customers.list', 'GET /customers', 'customers.read', { darkFlag: true }),
  // "Owner only." "Test-mode key: 503 temporarily_unavailable."
  op('customers.create', 'POST /customers', 'customers.write', { callers: SESSION, roles: OWNER, darkFlag: true }),
  op('customers.get', 'GET /customers/{id}', 'customers.read', { darkFlag: true }),
  op('customers.verification_links.create', 'POST /customers/{id}/verification_links', 'customers.write', {
    roles: OWNER_ADMIN,
    darkFlag: true,
    decision: 'Rules as the spec writes them (issue 24, first part): "sessions need owner or admin"',
  }),
  op('customers.associated_persons.list', 'GET /customers/{id}/associated_persons', 'customers.read', { darkFlag: true }),
  // Spec 1 rule 5 lists "per-object event lists" in the test-mode reach; the product keeps every
  // customers operation at 503 for a test key (reported in issue 25 as a disagreement to rule on).
  op('customers.events.list', 'GET /customers/{id}/events', 'customers.read', { ...PER_OBJECT_EVENTS, darkFlag: true }),
  // "Owner/admin."
  op('customers.compliance_profile.update', 'PATCH /customers/{id}/compliance_profile', 'customers.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    darkFlag: true,
  }),

  // 4.8 Screening (`screenings.read` / `.write`: screenings, reports, traces, transaction lookups); spec 5: all.
  op('screenings.list', 'GET /screenings', 'screenings.read'),
  op('screenings.create', 'POST /screenings', 'screenings.write'),
  op('screenings.get', 'GET /screenings/{id}', 'screenings.read'),
  op('screenings.reports.list', 'GET /screenings/{id}/reports', 'screenings.read'),
  op('screenings.reports.get', 'GET /screenings/{id}/reports/{report_id}', 'screenings.read'),
  op('screenings.reports.evidence_pdf', 'GET /screenings/{id}/reports/{report_id}/evidence_pdf', 'screenings.read'),
  op('screenings.reports.create', 'POST /screenings/{id}/reports', 'screenings.write'),
  op('traces.create', 'POST /traces', 'screenings.write'),
  op('transactions.get', 'GET /transactions/{chain}/{hash}', 'screenings.read'),

  // 4.10 Developers (`developers.*`, `account.*`, `events.read`, `activity.read`).
  // Account reads are in the test-mode reach ("account reads (production data, the caller's test twin)").
  op('account.get', 'GET /account', 'account.read', { testMode: 'works' }),
  // "Dashboard session only." "A test-mode caller is refused (400 invalid_request code livemode_boundary)."
  op('account.update', 'PATCH /account', 'account.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    testMode: 'livemode_boundary',
    decision: `${ROLES_DECISION} ("account changes: owner/admin")`,
  }),
  op('accounts.list', 'GET /accounts', 'account.read', { testMode: 'works' }),
  // "403 business key or member": a dashboard session of the owner only. Not an account read, so 503 for a test key.
  op('accounts.create', 'POST /accounts', 'account.write', { callers: SESSION, roles: OWNER }),
  op('account.get_readiness', 'GET /account/readiness', 'account.read', { testMode: 'works' }),
  op('account.get_setup_guide', 'GET /account/setup_guide', 'account.read', { testMode: 'works' }),
  // It revokes the sessions of the caller's login: a key has none.
  op('account_sessions.revoke_all', 'POST /account/sessions/revoke_all', 'account.write', {
    callers: SESSION,
    roles: EVERY_ROLE,
    decision: 'Developers: stream, activity, request logs, account setup (spec 4.10, 6): Revoke all sessions',
  }),
  op('activity.list', 'GET /activity', 'activity.read'),
  op('activity.get_summary', 'GET /activity/summary', 'activity.read'),
  op('events.list', 'GET /events', 'events.read'),
  op('events.get', 'GET /events/{id}', 'events.read'),
  op('events.stream', 'GET /events/stream', 'events.read'),
  // Webhook endpoints: in the test-mode reach; spec 5 "developers.write: business key reaches webhook
  // endpoints and deliveries"; "Bearer session must be account owner for create/update/delete/rotate/test, else 403 scope_denied".
  op('webhook_endpoints.list', 'GET /webhook_endpoints', 'developers.read', { testMode: 'works' }),
  op('webhook_endpoints.create', 'POST /webhook_endpoints', 'developers.write', { roles: OWNER, testMode: 'works' }),
  op('webhook_endpoints.get', 'GET /webhook_endpoints/{id}', 'developers.read', { testMode: 'works' }),
  op('webhook_endpoints.update', 'PATCH /webhook_endpoints/{id}', 'developers.write', { roles: OWNER, testMode: 'works' }),
  op('webhook_endpoints.delete', 'DELETE /webhook_endpoints/{id}', 'developers.write', { roles: OWNER, testMode: 'works' }),
  op('webhook_endpoints.rotate_secret', 'POST /webhook_endpoints/{id}/rotate_secret', 'developers.write', {
    roles: OWNER,
    testMode: 'works',
  }),
  op('webhook_endpoints.send_test_event', 'POST /webhook_endpoints/{id}/send_test_event', 'developers.write', {
    roles: OWNER,
    testMode: 'works',
  }),
  op('webhook_deliveries.list', 'GET /webhook_deliveries', 'developers.read', { testMode: 'works' }),
  op('webhook_deliveries.get', 'GET /webhook_deliveries/{id}', 'developers.read', { testMode: 'works' }),
  op('webhook_deliveries.replay', 'POST /webhook_deliveries/{id}/replay', 'developers.write', { testMode: 'works' }),
  // "account.write; reachable by business key."
  op('webhook_waitlist.join', 'POST /webhook_waitlist', 'account.write'),
  op('card_waitlist.join', 'POST /card_waitlist', 'account.write'),
  // Address book: "Dashboard session only." Roles: decision "Address book (spec 2.11, 4.10): Who".
  op('address_book.list', 'GET /address_book', 'address_book.read', { callers: SESSION }),
  op('address_book.create', 'POST /address_book', 'address_book.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: ADDRESS_BOOK_WHO,
  }),
  op('address_book.get', 'GET /address_book/{id}', 'address_book.read', { callers: SESSION }),
  op('address_book.update', 'PATCH /address_book/{id}', 'address_book.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: ADDRESS_BOOK_WHO,
  }),
  op('address_book.delete', 'DELETE /address_book/{id}', 'address_book.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: ADDRESS_BOOK_WHO,
  }),
  op('address_book.recheck', 'POST /address_book/{id}/recheck', 'address_book.write', { callers: SESSION, decision: ADDRESS_BOOK_WHO }),
  op('address_book.set_beneficiary', 'POST /address_book/{id}/beneficiary', 'address_book.write', {
    callers: SESSION,
    roles: OWNER_ADMIN,
    decision: ADDRESS_BOOK_WHO,
  }),
  // Credits: "Dashboard session (owner's personal balance); never a business key."
  op('credits.get', 'GET /credits', 'credits.read', { callers: SESSION, roles: OWNER, decision: CREDITS_WHOSE }),
  op('credit_events.list', 'GET /credit_events', 'credits.read', { callers: SESSION, roles: OWNER, decision: CREDITS_WHOSE }),
  op('credit_checkouts.create', 'POST /credit_checkouts', 'credits.write', { callers: SESSION, roles: OWNER, decision: CREDITS_WHOSE }),
  // API keys: "create/roll/revoke are dashboard session only; reads also by business key"; API-key
  // and request-log reads are in the test-mode reach.
  op('api_keys.list', 'GET /api_keys', 'developers.read', { testMode: 'works' }),
  op('api_keys.create', 'POST /api_keys', 'developers.write', { callers: SESSION, roles: OWNER_ADMIN, decision: API_KEYS_WHO }),
  op('api_keys.get', 'GET /api_keys/{id}', 'developers.read', { testMode: 'works' }),
  op('api_keys.roll', 'POST /api_keys/{id}/roll', 'developers.write', { callers: SESSION, roles: OWNER_ADMIN, decision: API_KEYS_WHO }),
  op('api_keys.revoke', 'POST /api_keys/{id}/revoke', 'developers.write', { callers: SESSION, roles: OWNER_ADMIN, decision: API_KEYS_WHO }),
  op('api_keys.get_usage', 'GET /api_keys/{id}/usage', 'developers.read', { testMode: 'works' }),
  op('request_logs.list', 'GET /request_logs', 'developers.read', { testMode: 'works' }),
];

/** True when no business key may call `e` (spec: "dashboard session only"). */
export function isSessionOnly(specOperation: SpecOperation): boolean {
  return specOperation.callers.length === 1 && specOperation.callers[0] === 'dashboard_session';
}

/** True when of the dashboard sessions only the owner's may call `e`. */
export function isOwnerOnly(specOperation: SpecOperation): boolean {
  return specOperation.roles.length === 1 && specOperation.roles[0] === 'owner';
}

/** True for a route dispatched before authentication (a token in the path, or no credential at all). */
export function isPublicRoute(specOperation: SpecOperation): boolean {
  return specOperation.callers.includes('public_token') || specOperation.callers.includes('none');
}

/** The scopes spec 5 names (`<resource>.<read|write>`), and the old names it keeps working (spec 5, 9). */
export const SPEC_SCOPES: readonly string[] = [
  'account.read',
  'account.write',
  'capabilities.read',
  'customers.read',
  'customers.write',
  'orders.read',
  'orders.write',
  'payment_links.read',
  'payment_links.write',
  'payouts.read',
  'payouts.write',
  'payroll.read',
  'payroll.write',
  'wallet.read',
  'wallet.write',
  'events.read',
  'activity.read',
  'developers.read',
  'developers.write',
  'screenings.read',
  'screenings.write',
  'address_book.read',
  'address_book.write',
  'credits.read',
  'credits.write',
];
export const SPEC_SCOPE_ALIASES: Readonly<Record<string, string>> = {
  'screenings.read': 'screening.read',
  'screenings.write': 'screening.write',
};
