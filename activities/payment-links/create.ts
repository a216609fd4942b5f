/**
 * Creating a payment link (spec 2.3, 4.1 `POST /payment_links`): request checks, the new draft row
 * and the one statement that inserts it with its event and idempotency record. Also the flag-reading
 * wrappers of the domain's link rules shared with update.
 */
import type { EntityManager } from 'typeorm';
import { invalidRequest } from '../../domain/errors';
import { assertStorableMinor, currencyDecimals, toMinorPositive, type Money } from '../../domain/money';
import {
  assertCryptoOnlyEnabled,
  assertFuture,
  assertNativeCurrencyEnabled,
  assertPayerTypeFitsSettlement,
  assertSettlementNotConflicting,
  blankToNull,
  parseAcceptedRailKinds,
} from '../../domain/payment-links';
import { validateAllowedRails } from '../../domain/rails';
import { DEFAULT_REMINDER_OFFSETS_DAYS, type ReminderSchedule } from '../../domain/reminders';
import { deriveTitle } from '../../domain/titles';
import { PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import { IdempotencyKeyTaken, type InlineIdempotency } from '../../lib/idempotency';
import { newId, newShortCode } from '../../lib/ids';
import { announceEvents, checkEventSchema, EVENT_COLUMNS, eventRowHead, eventRowTail } from '../../lib/outbox';
import { linkViewContext } from '../../lib/rails-availability';
import { isFlagOpen } from '../../lib/switches';
import { paymentLinkView } from '../../views/payment-link';
import type { AccountScope, Scope } from '../scope';
import { assertClientUsable, assertDestinationOwned, resolveItems, type ItemInput } from './lookups';
import { nextReferenceId } from './references';

/**
 * `accepted_rail_kinds` parsed (domain `parseAcceptedRailKinds`: 409 capability_unavailable for
 * any value but ["crypto"]), then for crypto-only the `payment_links.crypto_only` flag of the
 * account (409 capability_unavailable while closed).
 */
export async function acceptedRailKinds(
  accountId: string,
  kinds: string[] | null | undefined,
): Promise<{ cryptoOnly: boolean; stored: string[] | null }> {
  const parsed = parseAcceptedRailKinds(kinds);
  if (parsed.cryptoOnly) assertCryptoOnlyEnabled(await isFlagOpen('payment_links.crypto_only', accountId));
  return parsed;
}

/** 422 `native_via_provider_not_enabled` for a non-USD crypto-only link while the account's flag is closed (reads the flag only for non-USD). */
export async function checkNativeCurrency(accountId: string, currency: string): Promise<void> {
  if (currency === 'USD') return;
  assertNativeCurrencyEnabled(currency, await isFlagOpen('payment_links.native_via_provider', accountId));
}

/** `POST /payment_links` body after joi (spec 4.1). */
export interface CreateLinkInput {
  amount: Money;
  title?: string | null;
  memo?: string | null;
  invoice_number?: string | null;
  client_id?: string | null;
  expected_payer_type?: 'crypto' | 'bank' | 'any' | null;
  allowed_rails?: string[] | null;
  accepted_rail_kinds?: string[] | null;
  expires_at?: Date | null;
  payer_email?: string | null;
  settlement_destination?: { address_book_id: string } | null;
  items?: ItemInput[] | null;
}

/**
 * Creates a draft link of the scope from the body in `input` (spec 2.3, 4.1; `input.claim`: the
 * operation's inline idempotency claim, not a body key). Checks, in order: amount (400 `amount_invalid` /
 * `currency_invalid`), `accepted_rail_kinds` (409 capability_unavailable), destination vs
 * crypto-only (400 `settlement_conflicts_with_destination`), non-USD crypto-only (422
 * `native_via_provider_not_enabled`), `allowed_rails` (400 `allowed_rails_invalid_for_currency`
 * with details / `allowed_rails_invalid_for_settlement`), `expires_at` in the future, owned
 * destination / client / products (404), title (derived; 400 param `title` when nothing supplies
 * one). Mints `reference_id` `CP-<n>` and a unique `short_code`; `url` waits for activation.
 * Default reminders: offsets [3,7,14], on when `payer_email` is set and the link is not crypto-only.
 * Emits `payment_link.created`.
 *
 * The idempotency record is written, completed, in the same statement (api/operation/idempotency.ts,
 * `inlineIdempotency`): one round trip inserts the link with a fresh short code, its event
 * (announced after the statement commits; its link insert takes the transaction id before the
 * event's `seq`, as lib/outbox.ts requires) and the record holding the response body (`CP-<n>` from `nextReferenceId`). Returns the link and its
 * wire form. Also throws `IdempotencyKeyTaken` (nothing written) when the key already has a
 * record. Without `input.claim` (internal callers) no record is written. A short-code collision aborts the whole statement and is retried (8 attempts).
 */
export async function createLink(
  scope: Scope,
  input: CreateLinkInput & { claim?: InlineIdempotency },
): Promise<{ link: PaymentLink; wire: Record<string, unknown> }> {
  const { claim } = input;
  const checks = await checkCreateLink(scope, input);
  const [link, vctx] = await Promise.all([buildLink(db().manager, scope, input, checks), linkViewContext(scope.accountId)]);
  link.reference_id = await nextReferenceId(scope.accountId);
  for (let attempt = 1; ; attempt++) {
    link.short_code = newShortCode();
    const wire = paymentLinkView(link, vctx);
    const event = {
      accountId: link.account_id,
      livemode: link.livemode,
      type: 'payment_link.created',
      objectType: 'payment_link',
      objectId: link.id,
      request: scope.request,
    };
    checkEventSchema({ ...event, object: wire }); // written by the statement below, not emitEvent: checked here (EVENT_SCHEMA_CHECK)
    try {
      const rows: unknown[] = await db().query(
        `WITH claim AS (
           INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, response_status, response_body, redactions, completed_at)
           SELECT $1, $2, $3, $4, $5, 'completed', $6, $8::json, '[]', now() WHERE $3::text IS NOT NULL
           ON CONFLICT DO NOTHING RETURNING key),
         go AS (SELECT 1 FROM claim UNION ALL SELECT 1 WHERE $3::text IS NULL),
         link AS (
           INSERT INTO payment_links
           SELECT r.* FROM jsonb_populate_record(NULL::payment_links, $7::jsonb) r WHERE EXISTS (SELECT 1 FROM go)
           RETURNING id),
         ev AS (
           INSERT INTO events(${EVENT_COLUMNS})
           SELECT $9, $10, $11, $12, $13, $14, $15, jsonb_build_object('object', $8::json), $16, $17, $18, $19 FROM link
           RETURNING id)
         SELECT id FROM ev`,
        // The wire form travels once: it is both the stored response and the event's `data.object`. It is cast to `json`
        // (kept verbatim; `jsonb` reorders keys), so a replay is byte-identical to this answer.
        [
          scope.accountId,
          claim?.route ?? null,
          claim?.key ?? null,
          scope.livemode,
          claim?.hash ?? null,
          claim?.status ?? null,
          JSON.stringify(link),
          JSON.stringify(wire),
          ...eventRowHead(event),
          ...eventRowTail(event),
        ],
      );
      if (!rows[0]) throw new IdempotencyKeyTaken();
      announceEvents();
      return { link, wire };
    } catch (e) {
      if (
        attempt < 8 &&
        (e as { code?: string; constraint?: string }).code === '23505' &&
        /short_code/.test((e as { constraint?: string }).constraint ?? '')
      )
        continue;
      throw e;
    }
  }
}

/** Request-level checks of a create that need no row of the new link (spec 4.1 create errors). */
async function checkCreateLink(scope: AccountScope, input: CreateLinkInput): Promise<CreateChecks> {
  const minor = assertStorableMinor(toMinorPositive(input.amount, 'amount'), 'amount');
  const { cryptoOnly, stored: acceptedKinds } = await acceptedRailKinds(scope.accountId, input.accepted_rail_kinds);
  assertSettlementNotConflicting(cryptoOnly, input.settlement_destination);
  if (cryptoOnly) await checkNativeCurrency(scope.accountId, input.amount.currency);
  const allowed = validateAllowedRails(input.amount.currency, input.allowed_rails ?? null, cryptoOnly);
  assertPayerTypeFitsSettlement(cryptoOnly, input.expected_payer_type);
  assertFuture(input.expires_at, 'expires_at', Date.now());
  return { minor, cryptoOnly, acceptedKinds, allowed };
}

/** What `checkCreateLink` derived: amount in minor units, crypto-only intent, stored rail kinds and rails. */
interface CreateChecks {
  minor: bigint;
  cryptoOnly: boolean;
  acceptedKinds: string[] | null;
  allowed: string[] | null;
}

/**
 * The new draft link of `input` (not inserted; `reference_id` and `short_code` unset): checks the
 * destination, client and items it refers to through `m` and derives the title. Timestamps are set
 * here so the row needs no reload.
 */
async function buildLink(m: EntityManager, scope: AccountScope, input: CreateLinkInput, checks: CreateChecks): Promise<PaymentLink> {
  const { minor, cryptoOnly, acceptedKinds, allowed } = checks;
  const currency = input.amount.currency;
  if (input.settlement_destination) await assertDestinationOwned(m, scope, input.settlement_destination.address_book_id);
  if (input.client_id) await assertClientUsable(m, scope, input.client_id);
  const items = await resolveItems(m, scope, input.items, currency);
  const title = deriveTitle({ title: input.title, invoiceNumber: input.invoice_number, items: items.forTitle });
  if (title === null) {
    throw invalidRequest('parameter_missing', 'A title is required: send `title`, an `invoice_number` or a named line item.', 'title');
  }
  const schedule: ReminderSchedule = {
    status: input.payer_email && !cryptoOnly ? 'on' : 'off',
    offsets_days: [...DEFAULT_REMINDER_OFFSETS_DAYS],
    sent: [],
  };
  const now = new Date();
  return m.create(PaymentLink, {
    id: newId('pl_'),
    account_id: scope.accountId,
    livemode: scope.livemode,
    status: 'draft',
    title,
    memo: blankToNull(input.memo),
    invoice_number: blankToNull(input.invoice_number),
    reference_id: '',
    amount_minor: minor.toString(),
    currency,
    decimals: currencyDecimals(currency),
    client_id: input.client_id ?? null,
    direction: null,
    expected_payer_type_input: input.expected_payer_type ?? null,
    allowed_rails: allowed,
    accepted_rail_kinds: acceptedKinds,
    crypto_only: cryptoOnly,
    expires_at: input.expires_at ?? null,
    payer_email: input.payer_email ?? null,
    reminder_schedule: schedule,
    settlement_kind: null,
    settlement_asset: null,
    settlement_destination_id: input.settlement_destination?.address_book_id ?? null,
    items: items.stored,
    payer_token: null,
    short_code: '',
    activated_at: null,
    viewed_at: null,
    paid_at: null,
    settled_at: null,
    cancelled_at: null,
    expired_at: null,
    latest_attempt_status: null,
    partial_payment: null,
    invoice_sent_at: null,
    refunded_at: null,
    settlement_destination_kind: null,
    created_at: now,
    updated_at: now,
  });
}
