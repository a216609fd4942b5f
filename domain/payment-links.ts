/**
 * Payment link rules (spec 2.3, part 3 "Payment link", 4.1): the link's transition table and the
 * validation of create/update/activate requests beyond their shape. Flags are read by the caller
 * and passed in as booleans; the clock is passed in as `now` (epoch ms).
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { capabilityUnavailable, invalidRequest } from './errors';
import { linkNextReminderAt, type RemindableLink } from './reminders';
import { transitionTable } from './transitions';
import type { LinkStatus } from './verdicts';

export type { LinkStatus } from './verdicts';

/**
 * The payment link's transition table (spec 2.3 statuses, part 3). Writers: activate (draft ->
 * active), the payer's first view (active -> viewed), a payment's progress (domain
 * `linkStatusAfterPayment`: open -> processing/paid/settled, processing -> viewed on a no-funds
 * failure, paid -> settled), cancel (draft/active/viewed/processing -> cancelled), expiry
 * (active/viewed/processing -> expired), the merchant's refund (paid/settled -> refunded),
 * and a bank return that leaves a provider-settled payment short (paid/settled -> processing with
 * `partial_payment`: the later underpaid overrides paid/settled, spec part 3).
 * An illegal move is `409 conflict` code `payment_link_state_changed`. Open set (`open`): active,
 * viewed, processing, the statuses whose link workflow runs (its expiry and reminder timers).
 */
export const paymentLinkTransitions = transitionTable<LinkStatus>(
  'payment_link',
  {
    draft: ['active', 'cancelled'],
    active: ['viewed', 'processing', 'paid', 'settled', 'cancelled', 'expired'],
    viewed: ['processing', 'paid', 'settled', 'cancelled', 'expired'],
    processing: ['viewed', 'paid', 'settled', 'cancelled', 'expired'],
    paid: ['settled', 'refunded', 'processing'],
    settled: ['refunded', 'processing'],
    refunded: [],
    cancelled: [],
    expired: [],
  },
  'payment_link_state_changed',
  { open: ['active', 'viewed', 'processing'] },
);

/** Statuses a link can be cancelled from (spec 4.1 cancel): those the table lets reach `cancelled`. */
export const LINK_CANCELLABLE_STATUSES: readonly LinkStatus[] = Object.freeze(
  paymentLinkTransitions.statuses.filter((s) => paymentLinkTransitions.can(s, 'cancelled')),
);

/** Statuses a link can expire from (its expiry timer runs only there): those the table lets reach `expired`. */
export const LINK_EXPIRABLE_STATUSES: readonly LinkStatus[] = Object.freeze(
  paymentLinkTransitions.statuses.filter((s) => paymentLinkTransitions.can(s, 'expired')),
);

/** Statuses in which the reminder schedule may be changed (the link can still be paid). */
export const LINK_SCHEDULE_EDITABLE_STATUSES: readonly LinkStatus[] = Object.freeze(['draft', 'active', 'viewed', 'processing'] as const);

/** Link statuses the link workflow has nothing left to do in (spec 4.1: it ends there). */
export const LINK_WORKFLOW_END_STATUSES: readonly LinkStatus[] = Object.freeze([
  'paid',
  'settled',
  'cancelled',
  'expired',
  'refunded',
] as const);

/** Statuses whose link needs a running workflow (timers): the table's open set, active, viewed, processing (= LINK_EXPIRABLE_STATUSES). */
export const LINK_WORKFLOW_LIVE_STATUSES: readonly LinkStatus[] = paymentLinkTransitions.open;

/**
 * Whether `link` needs its workflow now (docs/decisions/0091): a status the workflow keeps
 * timers for (LINK_WORKFLOW_LIVE_STATUSES) and a timer to keep, its `expires_at` or a next reminder
 * (domain/reminders.ts linkNextReminderAt). A link with neither (e.g. a crypto-only link without an
 * expiry) has nothing to wait for: its row tells everything, so no run is started; a change that
 * gives it a timer starts one. A schedule that cannot be read counts as a timer, so the workflow
 * parks it for an operator as before.
 */
export function linkNeedsWorkflow(link: RemindableLink & { expires_at: Date | null }): boolean {
  if (!LINK_WORKFLOW_LIVE_STATUSES.includes(link.status as LinkStatus)) return false;
  if (link.expires_at) return true;
  try {
    return linkNextReminderAt(link) !== null;
  } catch {
    return true;
  }
}

/** Fields frozen once a link is activated (its payer may hold a total computed from them). */
export const LINK_LOCKED_AFTER_ACTIVATION = ['amount', 'accepted_rail_kinds', 'settlement_destination'] as const;

/** True when the link settles crypto-only to the service wallet (draft intent or activated kind). */
export function isCryptoOnlyLink(link: { crypto_only: boolean; settlement_kind: string | null }): boolean {
  return link.crypto_only || link.settlement_kind === 'crypto_only';
}

/**
 * Parses `accepted_rail_kinds` (spec 2.3): null or [] -> not crypto-only; exactly {crypto} ->
 * crypto-only (the caller then checks the flag with `assertCryptoOnlyEnabled`); any other
 * non-empty value -> `409 capability_unavailable` always.
 */
export function parseAcceptedRailKinds(kinds: string[] | null | undefined): { cryptoOnly: boolean; stored: string[] | null } {
  if (!kinds || kinds.length === 0) return { cryptoOnly: false, stored: null };
  const set = new Set(kinds);
  if (set.size !== 1 || !set.has('crypto')) {
    throw capabilityUnavailable(
      'capability_unavailable',
      `accepted_rail_kinds ${JSON.stringify(kinds)} is not available; only ["crypto"] (crypto-only settlement to the service wallet) is supported.`,
    );
  }
  return { cryptoOnly: true, stored: ['crypto'] };
}

/** `409 capability_unavailable` unless the `payment_links.crypto_only` flag is open (`flagOpen`). */
export function assertCryptoOnlyEnabled(flagOpen: boolean): void {
  if (!flagOpen) throw capabilityUnavailable('capability_unavailable', 'Crypto-only payment links are not enabled for this account.');
}

/**
 * `422 invalid_request native_via_provider_not_enabled` for a non-USD crypto-only link while the
 * `payment_links.native_via_provider` flag is closed (spec 4.1). Callers read the flag only for non-USD.
 */
export function assertNativeCurrencyEnabled(currency: string, flagOpen: boolean): void {
  if (currency === 'USD' || flagOpen) return;
  throw invalidRequest(
    'native_via_provider_not_enabled',
    `Crypto-only links in ${currency} are not enabled; use USD.`,
    'amount',
    { currency },
    422,
  );
}

/** 400 `settlement_conflicts_with_destination` when a link is both crypto-only and given a destination. */
export function assertSettlementNotConflicting(cryptoOnly: boolean, destination: unknown): void {
  if (cryptoOnly && destination) {
    throw invalidRequest(
      'settlement_conflicts_with_destination',
      'A link settles either crypto-only to the service wallet (accepted_rail_kinds ["crypto"]) or to a settlement_destination, not both.',
      'settlement_destination',
    );
  }
}

/** 400 `allowed_rails_invalid_for_settlement` param `expected_payer_type` for a crypto-only link expecting a bank payer. */
export function assertPayerTypeFitsSettlement(cryptoOnly: boolean, expected: string | null | undefined): void {
  if (cryptoOnly && expected === 'bank') {
    throw invalidRequest('allowed_rails_invalid_for_settlement', 'A crypto-only link cannot expect a bank payer.', 'expected_payer_type', {
      expected_payer_type: expected,
    });
  }
}

/** 400 `parameter_invalid` naming `param` when `d` is not after `now` (epoch ms). */
export function assertFuture(date: Date | null | undefined, param: string, now: number): void {
  if (date && date.getTime() <= now) throw invalidRequest('parameter_invalid', `${param} must be in the future.`, param);
}

/** 400 `attestation_required` param `attestation_accepted` unless it is exactly `true` (spec 4.1 activate). */
export function assertAttested(attestationAccepted: unknown): void {
  if (attestationAccepted !== true) {
    throw invalidRequest(
      'attestation_required',
      'Activation needs `attestation_accepted: true` (a human attestation).',
      'attestation_accepted',
    );
  }
}

/**
 * Activation checks on the stored draft that need no I/O (spec 4.1 activate), in order: 400
 * `settlement_destination_required` (neither destination nor crypto-only); then, after the
 * caller's rails check, see `assertActivationCurrencyAndExpiry`.
 */
export function assertHasSettlement(cryptoOnly: boolean, destinationId: string | null): void {
  if (!cryptoOnly && !destinationId) {
    throw invalidRequest(
      'settlement_destination_required',
      'Choose a settlement_destination (or accepted_rail_kinds ["crypto"]) before activating.',
      'settlement_destination',
    );
  }
}

/**
 * 422 `crypto_only_currency_not_usd` for a crypto-only link not in USD; 400 `parameter_invalid`
 * param `expires_at` when the stored expiry is not after `now` (epoch ms). Spec 4.1 activate.
 */
export function assertActivationCurrencyAndExpiry(cryptoOnly: boolean, currency: string, expiresAt: Date | null, now: number): void {
  if (cryptoOnly && currency !== 'USD') {
    throw invalidRequest(
      'crypto_only_currency_not_usd',
      `Crypto-only links settle in USD stablecoins; this link is in ${currency}.`,
      'amount',
      { currency },
      422,
    );
  }
  if (expiresAt && expiresAt.getTime() <= now) {
    throw invalidRequest('parameter_invalid', 'expires_at has passed; set a later expires_at (or null) before activating.', 'expires_at');
  }
}

/** An optional text field as stored: undefined, null or blank -> null; else trimmed. */
export function blankToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === '' ? null : value.trim();
}
