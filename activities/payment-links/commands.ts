/**
 * Payment links, clients and products (spec 2.3, 3 "Payment link", 4.1, 6).
 *
 * - Transactional operations called by the API routes (create, update, archive, activate,
 *   cancel, send_invoice, reminder schedule update/disable). Each is one DB transaction that
 *   writes its outbox events with `emitEvent` in the same transaction; workflow signals go out
 *   after commit (best effort, retried; `signalWithStart` by link id also heals a lost start).
 * - The activities of the link workflow (workflows/payment-link.ts): `loadPaymentLinkState`,
 *   `expirePaymentLink`, `sendPaymentLinkReminder`, `signalPaymentsLinkEnded`. They take the
 *   workflow's clock (`at`, epoch ms) so that time-skipped tests and production agree.
 *
 * Errors are DomainErrors with the spec's type/code/param; activities use
 * `ApplicationFailure.nonRetryable` for permanent failures. Money is bigint minor units
 * internally and strings in rows and on the wire.
 */
import { ApplicationFailure } from '@temporalio/common';
import { IsNull, type EntityManager } from 'typeorm';
import { capabilityUnavailable, conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import { assertStorableMinor, formatMajor, toMinorNonNegative, toMinorPositive, type Money, isKnownCurrency, currencyDecimals } from '../../domain/money';
import { validateAllowedRails, isBankRail } from '../../domain/rails';
import { DEFAULT_REMINDER_OFFSETS_DAYS, validateOffsets, type ReminderSchedule } from '../../domain/reminders';
import { deriveTitle } from '../../domain/titles';
import { isLinkEditable } from '../../domain/verdicts';
import { isFlagOpen } from '../../lib/switches';
import { isCryptoOnlyLink, linkNextReminderAt, linkViewContext, paymentLinkView } from '../../views/payment-link';
import { Account, AddressBookEntry, Client, Product, type LinkItem, PaymentLink } from '../../entities';
import { auxDb, db, transaction } from '../../lib/db';
import { newId, newShortCode } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { randomToken } from '../../lib/secrets';
import { chainAdapter } from '../../providers/chain';
import { emailProvider } from '../../providers/email';
import { temporalClient, signalWithStart } from '../../temporal/client';
import { linkChangedSignal, paymentLinkWorkflow } from '../../workflows/payment-link';
import { EVENT_COLUMNS, emitEvent, emitEventNonBlocking, eventRowHead, eventRowTail, type RequestRef } from '../../lib/outbox';
import { IdempotencyKeyTaken, type InlineIdempotency } from '../../lib/idempotency';
import { closeLivePaymentsForLink, signalLinkEndedToPayments } from '../payments/activities';

/** Who acts and under which request: every operation is scoped to (account, livemode). */
export interface OpContext {
  accountId: string;
  livemode: boolean;
  /** Request id and Idempotency-Key, copied onto outbox events (spec 2.11 `request`). */
  request: RequestRef | null;
}

// ---------------------------------------------------------------------------------------
// Shared helpers

/** Link statuses the link workflow has nothing left to do in (spec 4.1 brief: it ends there). */
const LINK_WORKFLOW_END_STATUSES = ['paid', 'settled', 'cancelled', 'expired', 'refunded'];

/** Statuses a link can be cancelled from (spec 4.1 cancel). */
const CANCELLABLE = ['draft', 'active', 'viewed', 'processing'];

/** Statuses in which the reminder schedule may be changed (the link can still be paid). */
const SCHEDULE_EDITABLE = ['draft', 'active', 'viewed', 'processing'];

function linkNotFound(id: string): DomainError {
  return notFound(`No such payment link: ${id}.`, 'id');
}

/** Loads a link of (account, livemode) with a row lock; 404 for any other id (also cross-account). */
async function lockLink(m: EntityManager, c: OpContext, id: string): Promise<PaymentLink> {
  const link = await m.findOne(PaymentLink, { where: { id, account_id: c.accountId, livemode: c.livemode }, lock: { mode: 'pessimistic_write' } });
  if (!link) throw linkNotFound(id);
  return link;
}

/** Emits a `payment_link.*` event whose `data.object` is the link's wire view. */
async function emitLinkEvent(m: EntityManager, link: PaymentLink, type: string, request: RequestRef | null): Promise<void> {
  const vctx = await linkViewContext(link.account_id);
  await emitEvent(m, {
    accountId: link.account_id, livemode: link.livemode, type, objectType: 'payment_link', objectId: link.id,
    object: paymentLinkView(link, vctx), request,
  });
}

/** Emits a `payment_link.*` event without letting a failed insert block the state change (outbox.emitEventNonBlocking). */
async function emitLinkEventNonBlocking(m: EntityManager, link: PaymentLink, type: string, request: RequestRef | null): Promise<boolean> {
  const vctx = await linkViewContext(link.account_id);
  const id = await emitEventNonBlocking(m, {
    accountId: link.account_id, livemode: link.livemode, type, objectType: 'payment_link', objectId: link.id,
    object: paymentLinkView(link, vctx), request,
  });
  return id !== null;
}

/**
 * Signals the link workflow (`linkChangedSignal`), starting it when it is not running
 * (workflow id = link id). Called after commit; retried 3 times, then logged: the committed
 * state is never rolled back for a signalling failure.
 */
export async function signalLinkChanged(link: Pick<PaymentLink, 'id' | 'account_id'>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await signalWithStart(paymentLinkWorkflow, {
        workflowId: link.id, args: [{ linkId: link.id }],
        accountId: link.account_id, signal: linkChangedSignal, signalArgs: [],
      });
      return;
    } catch (e) {
      if (attempt >= 3) {
        logger.error({ err: e, payment_link_id: link.id }, 'could not signal the payment link workflow');
        return;
      }
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

/**
 * Recovery sweep: signalWithStart the workflow of every link that still needs timers (status
 * active, viewed or processing), `batch` rows at a time, oldest first. Heals a workflow start lost
 * between a commit and its signal (e.g. a crash or a Temporal outage at activation). Idempotent;
 * meant for worker start-up or an operator command; `accountId` narrows it to one account.
 * Returns how many links were signalled.
 */
export async function ensureLinkWorkflows(opts: { accountId?: string; batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 500;
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(
      `SELECT id, account_id FROM payment_links WHERE status IN ('active','viewed','processing') AND id > $1
         AND ($3::text IS NULL OR account_id = $3) ORDER BY id LIMIT $2`, [after, batch, opts.accountId ?? null]);
    for (const r of rows) await signalLinkChanged(r);
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}

/** Signals a running link workflow only (never starts one); a missing workflow is ignored. */
async function signalLinkIfRunning(linkId: string): Promise<void> {
  try {
    const c = await temporalClient();
    await c.workflow.getHandle(linkId).signal(linkChangedSignal);
  } catch (e) {
    const name = (e as { name?: string })?.name;
    if (name !== 'WorkflowNotFoundError') logger.warn({ err: e, payment_link_id: linkId }, 'could not signal the payment link workflow');
  }
}

/** Payment ids closed by a link end, signalled after commit (best effort, logged on failure). */
async function notifyPaymentsAfterCommit(paymentIds: string[], accountId: string, reason: 'cancelled' | 'expired'): Promise<void> {
  if (!paymentIds.length) return;
  try {
    await signalLinkEndedToPayments(paymentIds, accountId, reason);
  } catch (e) {
    logger.error({ err: e, payment_ids: paymentIds }, 'could not signal payment workflows after the link ended');
  }
}

/**
 * Parses `accepted_rail_kinds` (spec 2.3): null or [] -> not crypto-only; exactly {crypto} ->
 * crypto-only, refused `409 capability_unavailable` while the `payment_links.crypto_only` flag is
 * closed for the account; any other non-empty value -> `409 capability_unavailable` always.
 */
async function parseAcceptedRailKinds(accountId: string, kinds: string[] | null | undefined): Promise<{ cryptoOnly: boolean; stored: string[] | null }> {
  if (!kinds || kinds.length === 0) return { cryptoOnly: false, stored: null };
  const set = new Set(kinds);
  if (set.size !== 1 || !set.has('crypto')) {
    throw capabilityUnavailable('capability_unavailable', `accepted_rail_kinds ${JSON.stringify(kinds)} is not available; only ["crypto"] (crypto-only settlement to the service wallet) is supported.`);
  }
  if (!(await isFlagOpen('payment_links.crypto_only', accountId))) {
    throw capabilityUnavailable('capability_unavailable', 'Crypto-only payment links are not enabled for this account.');
  }
  return { cryptoOnly: true, stored: ['crypto'] };
}

/** `422 invalid_request native_via_provider_not_enabled` for a non-USD crypto-only link while the flag is closed (spec 4.1). */
async function assertNativeCurrency(accountId: string, currency: string): Promise<void> {
  if (currency === 'USD') return;
  if (await isFlagOpen('payment_links.native_via_provider', accountId)) return;
  throw invalidRequest('native_via_provider_not_enabled', `Crypto-only links in ${currency} are not enabled; use USD.`, 'amount', { currency }, 422);
}

function assertSettlementNotConflicting(cryptoOnly: boolean, destination: unknown): void {
  if (cryptoOnly && destination) {
    throw invalidRequest('settlement_conflicts_with_destination',
      'A link settles either crypto-only to the service wallet (accepted_rail_kinds ["crypto"]) or to a settlement_destination, not both.',
      'settlement_destination');
  }
}

function assertPayerTypeFitsSettlement(cryptoOnly: boolean, expected: string | null | undefined): void {
  if (cryptoOnly && expected === 'bank') {
    throw invalidRequest('allowed_rails_invalid_for_settlement', 'A crypto-only link cannot expect a bank payer.', 'expected_payer_type', { expected_payer_type: expected });
  }
}

function assertFuture(d: Date | null | undefined, param: string): void {
  if (d && d.getTime() <= Date.now()) throw invalidRequest('parameter_invalid', `${param} must be in the future.`, param);
}

/**
 * 404 unless `adr_` is a live address-book entry of (account, livemode) (spec 4.1 create). Inside
 * a transaction (link update) the entry is locked in share mode until commit, so a concurrent
 * address-book delete (which locks it for update and refuses entries used by open links) cannot
 * slip in between; create runs as one statement outside a transaction, and a draft that raced a
 * delete is caught at activation (the destination must still exist). A bank entry without its
 * bank details cannot receive money: 409 conflict `address_book_entry_incomplete`.
 */
async function assertDestinationOwned(m: EntityManager, c: OpContext, id: string): Promise<void> {
  const inTransaction = m.queryRunner?.isTransactionActive === true;
  const e = await m.findOne(AddressBookEntry, {
    where: { id, account_id: c.accountId, livemode: c.livemode, deleted_at: IsNull() },
    ...(inTransaction ? { lock: { mode: 'pessimistic_read' as const } } : {}),
  });
  if (!e) throw notFound(`No such address book entry: ${id}.`, 'settlement_destination.address_book_id');
  if (e.kind === 'bank' && !e.beneficiary_set_at) {
    throw conflict('address_book_entry_incomplete', 'This bank entry has no bank details yet; add them with POST /address_book/{id}/beneficiary first.', { address_book_id: id });
  }
}

/** 404 unless the client belongs to (account, livemode); 400 `client_archived` for an archived client. */
async function assertClientUsable(m: EntityManager, c: OpContext, id: string): Promise<void> {
  const cl = await m.findOne(Client, { where: { id, account_id: c.accountId, livemode: c.livemode } });
  if (!cl) throw notFound(`No such client: ${id}.`, 'client_id');
  if (cl.archived_at) throw invalidRequest('client_archived', `Client ${id} is archived.`, 'client_id');
}

/** Request line item (spec 2.3 `items`). */
export interface ItemInput { product_id?: string | null; name?: string | null; quantity?: number; unit_amount?: Money | null }

/**
 * Resolves request items into stored items (snapshot of the product name and price) plus the
 * title inputs. Each item needs a `name` or a `product_id`; a product must belong to the caller
 * (404) and not be archived (400 `product_archived`); `unit_amount` must be in the link currency
 * (400 `currency_mismatch`); a product's price is used when its currency is the link's.
 */
async function resolveItems(m: EntityManager, c: OpContext, items: ItemInput[] | null | undefined, currency: string): Promise<{ stored: LinkItem[]; forTitle: Array<{ name: string | null; productName: string | null }> }> {
  const stored: LinkItem[] = [];
  const forTitle: Array<{ name: string | null; productName: string | null }> = [];
  for (const [i, it] of (items ?? []).entries()) {
    let product: Product | null = null;
    if (it.product_id) {
      product = await m.findOne(Product, { where: { id: it.product_id, account_id: c.accountId, livemode: c.livemode } });
      if (!product) throw notFound(`No such product: ${it.product_id}.`, `items.${i}.product_id`);
      if (product.archived_at) throw invalidRequest('product_archived', `Product ${it.product_id} is archived.`, `items.${i}.product_id`);
    }
    const name = it.name && it.name.trim() ? it.name.trim() : null;
    if (!name && !product) throw invalidRequest('parameter_missing', 'Each item needs a `name` or a `product_id`.', `items.${i}.name`);
    let unit: string | null = null;
    if (it.unit_amount) {
      if (it.unit_amount.currency !== currency) {
        throw invalidRequest('currency_mismatch', `items[${i}].unit_amount must be in the link currency ${currency}.`, `items.${i}.unit_amount`);
      }
      unit = assertStorableMinor(toMinorNonNegative(it.unit_amount, `items.${i}.unit_amount`), `items.${i}.unit_amount`).toString();
    } else if (product && product.unit_price_minor !== null && product.currency === currency) {
      unit = String(product.unit_price_minor);
    }
    stored.push({ name: name ?? product?.name ?? null, product_id: product?.id ?? null, quantity: it.quantity ?? 1, unit_amount: unit });
    forTitle.push({ name, productName: product?.name ?? null });
  }
  return { stored, forTitle };
}

// ---------------------------------------------------------------------------------------
// Clients (spec 2.3 Client, 4.1)

/** Request fields of a client (create and update). */
export interface ClientInput { display_name?: string; email?: string | null; company?: string | null; country?: string | null; role?: string | null; notes?: string | null }

const blankToNull = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

/** Creates a client of (account, livemode). Returns the row. */
export async function createClient(c: OpContext, input: ClientInput): Promise<Client> {
  return transaction(async (m) => {
    const row = m.create(Client, {
      id: newId('cli_'), account_id: c.accountId, livemode: c.livemode, display_name: input.display_name!.trim(),
      email: blankToNull(input.email), company: blankToNull(input.company), country: blankToNull(input.country),
      role: blankToNull(input.role), notes: blankToNull(input.notes), archived_at: null,
    });
    await m.insert(Client, row);
    return m.findOneByOrFail(Client, { id: row.id });
  });
}

/**
 * Locks the caller's row of `entity` (same account and mode) for update; 404 `not_found` naming
 * `label` for an unknown or foreign id (cross-account ids are never 403).
 */
async function lockOwned<T extends Client | Product>(m: EntityManager, entity: new () => T, c: OpContext, id: string, label: string): Promise<T> {
  const row = await m.findOne(entity as unknown as typeof Client, { where: { id, account_id: c.accountId, livemode: c.livemode }, lock: { mode: 'pessimistic_write' } }) as T | null;
  if (!row) throw notFound(`No such ${label}: ${id}.`, 'id');
  return row;
}

/** Archives the caller's client or product (idempotent: the first `archived_at` is kept). 404 for foreign ids. */
async function archiveOwned<T extends Client | Product>(c: OpContext, entity: new () => T, id: string, label: string): Promise<T> {
  return transaction(async (m) => {
    const row = await lockOwned(m, entity, c, id, label);
    if (!row.archived_at) {
      row.archived_at = new Date();
      await m.save(row);
    }
    return m.findOneByOrFail(entity as unknown as typeof Client, { id }) as unknown as T;
  });
}

/**
 * Updates a client (spec 2.3): null (or a blank string) clears email/company/country/role/notes;
 * keys not sent are kept. 404 for an unknown or foreign id; 409 conflict `client_archived` once archived.
 */
export async function updateClient(c: OpContext, id: string, input: ClientInput): Promise<Client> {
  return transaction(async (m) => {
    const row = await lockOwned(m, Client, c, id, 'client');
    if (row.archived_at) throw conflict('client_archived', 'An archived client cannot be changed.');
    if (input.display_name !== undefined) row.display_name = input.display_name.trim();
    for (const k of ['email', 'company', 'country', 'role', 'notes'] as const) {
      if (input[k] !== undefined) row[k] = blankToNull(input[k]);
    }
    await m.save(row);
    return m.findOneByOrFail(Client, { id });
  });
}

/** Archives a client (idempotent). 404 for foreign ids. */
export function archiveClient(c: OpContext, id: string): Promise<Client> {
  return archiveOwned(c, Client, id, 'client');
}

// ---------------------------------------------------------------------------------------
// Products (spec 2.3 Product, 4.1)

/** Request fields of a product (create and update). `unit_price` is wire Money (minor units string). */
export interface ProductInput { name?: string; description?: string | null; currency?: string; unit_price?: Money | null }

function checkCurrency(cur: string, param: string): void {
  if (!isKnownCurrency(cur)) throw invalidRequest('currency_invalid', `Unknown currency: ${cur}.`, param);
}

/**
 * Creates a product. `currency` defaults to `unit_price.currency`; one of the two is required
 * (400 `parameter_missing` param `currency`); when both are sent they must agree (400
 * `currency_mismatch` param `unit_price`). `unit_price` may be zero; null = no fixed price.
 */
export async function createProduct(c: OpContext, input: ProductInput): Promise<Product> {
  const currency = input.currency ?? input.unit_price?.currency;
  if (!currency) throw invalidRequest('parameter_missing', 'A product needs a `currency` (or a `unit_price`).', 'currency');
  checkCurrency(currency, 'currency');
  let price: string | null = null;
  if (input.unit_price) {
    if (input.unit_price.currency !== currency) throw invalidRequest('currency_mismatch', `unit_price must be in ${currency}.`, 'unit_price');
    price = assertStorableMinor(toMinorNonNegative(input.unit_price, 'unit_price'), 'unit_price').toString();
  }
  return transaction(async (m) => {
    const row = m.create(Product, {
      id: newId('prd_'), account_id: c.accountId, livemode: c.livemode, name: input.name!.trim(),
      description: blankToNull(input.description), currency, unit_price_minor: price, archived_at: null,
    });
    await m.insert(Product, row);
    return m.findOneByOrFail(Product, { id: row.id });
  });
}

/**
 * Updates a product (spec 2.3): null or an empty (trimmed) string clears `description`;
 * `unit_price` Money or null; a new `currency` must agree with the resulting price. 404 for
 * foreign ids; 409 conflict `product_archived` once archived.
 */
export async function updateProduct(c: OpContext, id: string, input: ProductInput): Promise<Product> {
  return transaction(async (m) => {
    const row = await lockOwned(m, Product, c, id, 'product');
    if (row.archived_at) throw conflict('product_archived', 'An archived product cannot be changed.');
    if (input.name !== undefined) row.name = input.name.trim();
    if (input.description !== undefined) row.description = blankToNull(input.description);
    if (input.currency !== undefined) {
      checkCurrency(input.currency, 'currency');
      if (input.unit_price === undefined && row.unit_price_minor !== null && input.currency !== row.currency) {
        throw invalidRequest('currency_mismatch', 'Changing the currency of a priced product needs a new unit_price (or unit_price: null).', 'currency');
      }
      row.currency = input.currency;
    }
    if (input.unit_price !== undefined) {
      if (input.unit_price === null) row.unit_price_minor = null;
      else {
        if (input.currency === undefined) {
          checkCurrency(input.unit_price.currency, 'unit_price');
          row.currency = input.unit_price.currency;
        } else if (input.unit_price.currency !== row.currency) {
          throw invalidRequest('currency_mismatch', `unit_price must be in ${row.currency}.`, 'unit_price');
        }
        row.unit_price_minor = assertStorableMinor(toMinorNonNegative(input.unit_price, 'unit_price'), 'unit_price').toString();
      }
    }
    await m.save(row);
    return m.findOneByOrFail(Product, { id });
  });
}

/** Archives a product (idempotent). 404 for foreign ids. */
export function archiveProduct(c: OpContext, id: string): Promise<Product> {
  return archiveOwned(c, Product, id, 'product');
}

// ---------------------------------------------------------------------------------------
// Payment links: create and update (spec 2.3, 4.1)

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
 * Creates a draft link (spec 2.3, 4.1). Checks, in order: amount (400 `amount_invalid` /
 * `currency_invalid`), `accepted_rail_kinds` (409 capability_unavailable), destination vs
 * crypto-only (400 `settlement_conflicts_with_destination`), non-USD crypto-only (422
 * `native_via_provider_not_enabled`), `allowed_rails` (400 `allowed_rails_invalid_for_currency`
 * with details / `allowed_rails_invalid_for_settlement`), `expires_at` in the future, owned
 * destination / client / products (404), title (derived; 400 param `title` when nothing supplies
 * one). Mints `reference_id` `CP-<n>` and a unique `short_code`; `url` waits for activation.
 * Default reminders: offsets [3,7,14], on when `payer_email` is set and the link is not crypto-only.
 * Emits `payment_link.created`.
 *
 * The idempotency record is written, completed, in the same statement (api/operation.ts
 * `inlineIdempotency`): one round trip inserts the link with a fresh short code, its event
 * (+ NOTIFY) and the record holding the response body (`CP-<n>` from `nextReferenceId`). Returns the link and its
 * wire form. Also throws `IdempotencyKeyTaken` (nothing written) when the key already has a
 * record. Without `claim` (internal callers) no record is written. A short-code collision aborts the whole statement and is retried (8 attempts).
 */
export async function createLink(c: OpContext, input: CreateLinkInput, claim?: InlineIdempotency): Promise<{ link: PaymentLink; wire: Record<string, unknown> }> {
  const checks = await checkCreateLink(c, input);
  const [link, vctx] = await Promise.all([buildLink(db().manager, c, input, checks), linkViewContext(c.accountId)]);
  link.reference_id = await nextReferenceId(c.accountId);
  for (let attempt = 1; ; attempt++) {
    link.short_code = newShortCode();
    const wire = paymentLinkView(link, vctx);
    const event = { accountId: link.account_id, livemode: link.livemode, type: 'payment_link.created', objectType: 'payment_link', objectId: link.id, request: c.request };
    try {
      const rows: unknown[] = await db().query(
        `WITH claim AS (
           INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, response_status, response_body, redactions, completed_at)
           SELECT $1, $2, $3, $4, $5, 'completed', $6, $8::jsonb, '[]', now() WHERE $3::text IS NOT NULL
           ON CONFLICT DO NOTHING RETURNING key),
         go AS (SELECT 1 FROM claim UNION ALL SELECT 1 WHERE $3::text IS NULL),
         link AS (
           INSERT INTO payment_links
           SELECT r.* FROM jsonb_populate_record(NULL::payment_links, $7::jsonb) r WHERE EXISTS (SELECT 1 FROM go)
           RETURNING id),
         ev AS (
           INSERT INTO events(${EVENT_COLUMNS})
           SELECT $9, $10, $11, $12, $13, $14, $15, jsonb_build_object('object', $8::jsonb), $16, $17, $18 FROM link
           RETURNING id)
         SELECT pg_notify('events', ev.id) FROM ev`,
        // The wire form travels once: it is both the stored response and the event's `data.object`.
        [c.accountId, claim?.route ?? null, claim?.key ?? null, c.livemode, claim?.hash ?? null, claim?.status ?? null, JSON.stringify(link), JSON.stringify(wire),
          ...eventRowHead(event), ...eventRowTail(event)]);
      if (!rows[0]) throw new IdempotencyKeyTaken();
      return { link, wire };
    } catch (e) {
      if (attempt < 8 && (e as { code?: string; constraint?: string }).code === '23505' && /short_code/.test((e as { constraint?: string }).constraint ?? '')) continue;
      throw e;
    }
  }
}

/** Reference-number blocks reserved by this process, per account: next number to hand out and the block's last. */
const referenceBlocks = new Map<string, { next: bigint; last: bigint; size: number; fetchedAt: number; pending?: Promise<void> }>();

/**
 * Next `CP-<n>` of the account (spec 2.3 `reference_id`: server-minted, unique per merchant).
 * Numbers come from the account's counter (`accounts.link_reference_seq`) in blocks reserved by
 * this process with one short autocommit UPDATE: a block of 1 while the account creates slowly
 * (consecutive numbers), doubling up to 64 while it creates many per second, so concurrent creates
 * never queue on the account row. Numbers are unique and increase per process; a process that
 * stops leaves the rest of its block unused (a gap). Throws 404 for an unknown account.
 */
export async function nextReferenceId(accountId: string): Promise<string> {
  for (;;) {
    const b = referenceBlocks.get(accountId);
    if (b && b.next <= b.last) return `CP-${(b.next++).toString()}`;
    if (b?.pending) {
      await b.pending;
      continue;
    }
    const now = Date.now();
    const size = b && now - b.fetchedAt < 1000 ? Math.min(b.size * 2, 64) : 1;
    const entry = { next: 1n, last: 0n, size, fetchedAt: now, pending: undefined as Promise<void> | undefined };
    entry.pending = (async () => {
      try {
        const { rows } = await auxDb().query<{ last: string }>(
          'UPDATE accounts SET link_reference_seq = link_reference_seq + $2 WHERE id = $1 RETURNING link_reference_seq::text AS last', [accountId, size]);
        if (!rows[0]) throw notFound('No such account.');
        entry.last = BigInt(rows[0].last);
        entry.next = entry.last - BigInt(size) + 1n;
      } finally {
        entry.pending = undefined;
      }
    })();
    referenceBlocks.set(accountId, entry);
    if (referenceBlocks.size > 10000) referenceBlocks.clear();
    await entry.pending;
  }
}

/** Request-level checks of a create that need no row of the new link (spec 4.1 create errors). */
async function checkCreateLink(c: OpContext, input: CreateLinkInput): Promise<CreateChecks> {
  const minor = assertStorableMinor(toMinorPositive(input.amount, 'amount'), 'amount');
  const { cryptoOnly, stored: acceptedKinds } = await parseAcceptedRailKinds(c.accountId, input.accepted_rail_kinds);
  assertSettlementNotConflicting(cryptoOnly, input.settlement_destination);
  if (cryptoOnly) await assertNativeCurrency(c.accountId, input.amount.currency);
  const allowed = validateAllowedRails(input.amount.currency, input.allowed_rails ?? null, cryptoOnly);
  assertPayerTypeFitsSettlement(cryptoOnly, input.expected_payer_type);
  assertFuture(input.expires_at, 'expires_at');
  return { minor, cryptoOnly, acceptedKinds, allowed };
}

/** What `checkCreateLink` derived: amount in minor units, crypto-only intent, stored rail kinds and rails. */
interface CreateChecks { minor: bigint; cryptoOnly: boolean; acceptedKinds: string[] | null; allowed: string[] | null }

/**
 * The new draft link of `input` (not inserted; `reference_id` and `short_code` unset): checks the
 * destination, client and items it refers to through `m` and derives the title. Timestamps are set
 * here so the row needs no reload.
 */
async function buildLink(m: EntityManager, c: OpContext, input: CreateLinkInput, checks: CreateChecks): Promise<PaymentLink> {
  const { minor, cryptoOnly, acceptedKinds, allowed } = checks;
  const currency = input.amount.currency;
  if (input.settlement_destination) await assertDestinationOwned(m, c, input.settlement_destination.address_book_id);
  if (input.client_id) await assertClientUsable(m, c, input.client_id);
  const items = await resolveItems(m, c, input.items, currency);
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
    id: newId('pl_'), account_id: c.accountId, livemode: c.livemode, status: 'draft', title,
    memo: blankToNull(input.memo), invoice_number: blankToNull(input.invoice_number),
    reference_id: '',
    amount_minor: minor.toString(), currency, decimals: currencyDecimals(currency),
    client_id: input.client_id ?? null, direction: null,
    expected_payer_type_input: input.expected_payer_type ?? null,
    allowed_rails: allowed, accepted_rail_kinds: acceptedKinds, crypto_only: cryptoOnly,
    expires_at: input.expires_at ?? null, payer_email: input.payer_email ?? null, reminder_schedule: schedule,
    settlement_kind: null, settlement_asset: null,
    settlement_destination_id: input.settlement_destination?.address_book_id ?? null,
    items: items.stored, payer_token: null, short_code: '',
    activated_at: null, viewed_at: null, paid_at: null, settled_at: null, cancelled_at: null, expired_at: null,
    latest_attempt_status: null, partial_payment: null, invoice_sent_at: null,
    created_at: now, updated_at: now,
  });
}

/** `PATCH /payment_links/{id}` body after joi; a key absent from the object is left unchanged. */
export type UpdateLinkInput = Partial<CreateLinkInput>;

/** Fields frozen once a link is activated (its payer may hold a total computed from them). */
const LOCKED_AFTER_ACTIVATION = ['amount', 'accepted_rail_kinds', 'settlement_destination'] as const;

/**
 * Updates a link (spec 4.1): only while `draft`, `active` or `viewed` (else 409 conflict
 * `payment_link_not_editable`); once activated, `amount`, `accepted_rail_kinds` and
 * `settlement_destination` are frozen (409 conflict `payment_link_field_locked`, param = field).
 * Setting a destination retires an earlier crypto-only intent; setting crypto-only while a
 * destination is stored (and not cleared in the same body) is 400
 * `settlement_conflicts_with_destination`. `allowed_rails` is validated against the resulting
 * currency and settlement when sent (null clears it); a stored restriction that no longer fits the
 * currency is reported at activation (409). The title is never re-derived. Signals the workflow of
 * an activated link after commit.
 */
export async function updateLink(c: OpContext, id: string, input: UpdateLinkInput): Promise<PaymentLink> {
  const has = (k: keyof UpdateLinkInput) => input[k] !== undefined;
  const link = await transaction(async (m) => {
    const link = await lockLink(m, c, id);
    if (!isLinkEditable(link.status)) throw conflict('payment_link_not_editable', `A ${link.status} payment link cannot be changed.`);
    if (link.status !== 'draft') {
      for (const f of LOCKED_AFTER_ACTIVATION) {
        if (has(f)) throw new DomainError('conflict', 'payment_link_field_locked', `${f} cannot be changed once the link is activated.`, { param: f });
      }
    }
    const oldCurrency = link.currency;
    let currency = link.currency;
    if (has('amount')) {
      const minor = assertStorableMinor(toMinorPositive(input.amount!, 'amount'), 'amount');
      currency = input.amount!.currency;
      link.amount_minor = minor.toString();
      link.currency = currency;
      link.decimals = currencyDecimals(currency);
    }
    let cryptoOnly = link.crypto_only;
    if (has('accepted_rail_kinds')) {
      const parsed = await parseAcceptedRailKinds(c.accountId, input.accepted_rail_kinds);
      cryptoOnly = parsed.cryptoOnly;
      link.accepted_rail_kinds = parsed.stored;
    }
    if (input.settlement_destination) {
      assertSettlementNotConflicting(has('accepted_rail_kinds') && cryptoOnly, input.settlement_destination);
      // Setting a destination retires an earlier crypto-only intent (spec 4.1).
      cryptoOnly = false;
      link.accepted_rail_kinds = null;
    }
    const destination = input.settlement_destination === undefined ? link.settlement_destination_id : input.settlement_destination?.address_book_id ?? null;
    assertSettlementNotConflicting(cryptoOnly, destination);
    const becameCryptoOnly = cryptoOnly && !link.crypto_only;
    if (cryptoOnly && (becameCryptoOnly || has('amount'))) await assertNativeCurrency(c.accountId, currency);
    if (has('allowed_rails')) {
      link.allowed_rails = validateAllowedRails(currency, input.allowed_rails ?? null, cryptoOnly);
    } else if (becameCryptoOnly && link.allowed_rails?.some(isBankRail)) {
      throw invalidRequest('allowed_rails_invalid_for_settlement', 'A crypto-only link cannot allow bank rails; send allowed_rails without them (or null).',
        'allowed_rails', { allowed_rails: link.allowed_rails, bank_rails: link.allowed_rails.filter(isBankRail) });
    }
    const expected = input.expected_payer_type === undefined ? link.expected_payer_type_input : input.expected_payer_type;
    assertPayerTypeFitsSettlement(cryptoOnly, expected);
    link.expected_payer_type_input = expected ?? null;
    if (input.expires_at !== undefined) {
      assertFuture(input.expires_at, 'expires_at');
      link.expires_at = input.expires_at;
    }
    if (input.settlement_destination !== undefined) {
      if (input.settlement_destination) await assertDestinationOwned(m, c, input.settlement_destination.address_book_id);
      link.settlement_destination_id = destination;
    }
    link.crypto_only = cryptoOnly;
    if (becameCryptoOnly) link.reminder_schedule = { ...link.reminder_schedule, status: 'off' };
    if (input.client_id !== undefined) {
      if (input.client_id) await assertClientUsable(m, c, input.client_id);
      link.client_id = input.client_id;
    }
    if (input.items !== undefined) link.items = (await resolveItems(m, c, input.items, currency)).stored;
    else if (currency !== oldCurrency) link.items = link.items.map((it) => ({ ...it, unit_amount: null }));
    if (input.title !== undefined && input.title !== null) link.title = input.title.trim();
    if (input.memo !== undefined) link.memo = blankToNull(input.memo);
    if (input.invoice_number !== undefined) link.invoice_number = blankToNull(input.invoice_number);
    if (input.payer_email !== undefined) link.payer_email = input.payer_email;
    await m.save(link);
    return m.findOneByOrFail(PaymentLink, { id: link.id });
  });
  if (link.status !== 'draft') await signalLinkChanged(link);
  return link;
}

// ---------------------------------------------------------------------------------------
// Activation, cancellation, invoice

/**
 * Activates a draft (spec 3, 4.1): `attestation_accepted` must be true (400 param
 * `attestation_accepted`). Errors: 404; 409 conflict `payment_link_already_activated` (not a
 * draft); 403 permission_error `account_not_eligible` (account access restricted); 409
 * capability_unavailable (crypto-only flag closed now); 400 `settlement_destination_required`
 * (neither destination nor crypto-only); 409 conflict `allowed_rails_invalid_for_currency`; 422
 * `crypto_only_currency_not_usd`; 409 conflict `wallet_not_found` (crypto-only without an active
 * service wallet on the environment network); 400 param `expires_at` when it already passed.
 * Sets `active`, `payer_token` (`plk_`), `settlement_kind`, frozen `settlement_asset`
 * (crypto-only: the chain adapter's token), `direction` `inbound`, `activated_at`; emits
 * `payment_link.activated`; starts the link workflow after commit.
 */
export async function activateLink(c: OpContext, id: string, attestationAccepted: unknown): Promise<PaymentLink> {
  const link = await transaction(async (m) => {
    const link = await lockLink(m, c, id);
    if (attestationAccepted !== true) {
      throw invalidRequest('attestation_required', 'Activation needs `attestation_accepted: true` (a human attestation).', 'attestation_accepted');
    }
    if (link.status !== 'draft') throw conflict('payment_link_already_activated', `This payment link is ${link.status}; only a draft can be activated.`);
    const account = await m.findOneByOrFail(Account, { id: c.accountId });
    if (account.access_state !== 'active') throw new DomainError('permission_error', 'account_not_eligible', 'This account cannot activate payment links now.');
    const cryptoOnly = link.crypto_only;
    if (cryptoOnly && !(await isFlagOpen('payment_links.crypto_only', c.accountId))) {
      throw capabilityUnavailable('capability_unavailable', 'Crypto-only payment links are not enabled for this account.');
    }
    if (!cryptoOnly && !link.settlement_destination_id) {
      throw invalidRequest('settlement_destination_required', 'Choose a settlement_destination (or accepted_rail_kinds ["crypto"]) before activating.', 'settlement_destination');
    }
    validateAllowedRails(link.currency, link.allowed_rails, cryptoOnly, { asConflict: true });
    if (cryptoOnly && link.currency !== 'USD') {
      throw invalidRequest('crypto_only_currency_not_usd', `Crypto-only links settle in USD stablecoins; this link is in ${link.currency}.`, 'amount', { currency: link.currency }, 422);
    }
    if (link.expires_at && link.expires_at.getTime() <= Date.now()) {
      throw invalidRequest('parameter_invalid', 'expires_at has passed; set a later expires_at (or null) before activating.', 'expires_at');
    }
    const chain = chainAdapter();
    if (cryptoOnly) {
      const wallets: unknown[] = await m.query(
        `SELECT 1 FROM wallets WHERE account_id = $1 AND livemode = $2 AND network = $3 AND status = 'active' LIMIT 1`, [c.accountId, c.livemode, chain.network]);
      if (!wallets.length) throw conflict('wallet_not_found', `Crypto-only links settle to the service wallet; this account has none on ${chain.network}.`);
    } else {
      const n = await m.count(AddressBookEntry, { where: { id: link.settlement_destination_id!, account_id: c.accountId, livemode: c.livemode, deleted_at: IsNull() } });
      if (!n) throw invalidRequest('settlement_destination_required', 'The settlement destination no longer exists; choose another.', 'settlement_destination');
    }
    link.status = 'active';
    link.payer_token = randomToken('plk_', 32);
    link.settlement_kind = cryptoOnly ? 'crypto_only' : 'fiat_provider';
    link.settlement_asset = cryptoOnly ? { chain: chain.chain, asset: chain.stablecoin, token_address: chain.tokenAddress, decimals: currencyDecimals(chain.stablecoin) } : null;
    link.direction = 'inbound';
    link.activated_at = new Date();
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
    await emitLinkEvent(m, saved, 'payment_link.activated', c.request);
    return saved;
  });
  await signalLinkChanged(link);
  return link;
}

/**
 * Cancels a link (spec 3, 4.1, 6) from draft/active/viewed/processing (else 409 conflict
 * `payment_link_not_cancellable`). Clears `partial_payment`, closes the link's live payments in
 * the same transaction (activities/payins.ts `closeLivePaymentsForLink`: an underpaid one becomes
 * unmatched `partial_before_cancel`), emits `payment_link.cancelled` without letting a failed emit
 * block the cancel; after commit signals the closed payments and the link workflow (which ends).
 */
export async function cancelLink(c: OpContext, id: string): Promise<PaymentLink> {
  const { link, paymentIds, wasDraft } = await transaction(async (m) => {
    const link = await lockLink(m, c, id);
    if (!CANCELLABLE.includes(link.status)) throw conflict('payment_link_not_cancellable', `A ${link.status} payment link cannot be cancelled.`);
    const wasDraft = link.status === 'draft';
    link.status = 'cancelled';
    link.cancelled_at = new Date();
    link.partial_payment = null;
    await m.save(link);
    const { paymentIds } = await closeLivePaymentsForLink(m, link, 'cancelled', c.request);
    const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
    await emitLinkEventNonBlocking(m, saved, 'payment_link.cancelled', c.request);
    return { link: saved, paymentIds, wasDraft };
  });
  await notifyPaymentsAfterCommit(paymentIds, link.account_id, 'cancelled');
  if (!wasDraft) await signalLinkIfRunning(link.id);
  return link;
}

/**
 * Sends the invoice email for an active or viewed link to its `payer_email` (spec 4.1
 * `send_invoice`) with the payer `url`, then sets `invoice_sent_at`. 409 conflict
 * `payment_link_not_open` for another status, 409 conflict `payer_email_required` without a
 * payer email. The email is idempotent by link and Idempotency-Key.
 */
export async function sendInvoice(c: OpContext, id: string): Promise<PaymentLink> {
  const link = await db().getRepository(PaymentLink).findOneBy({ id, account_id: c.accountId, livemode: c.livemode });
  if (!link) throw linkNotFound(id);
  if (link.status !== 'active' && link.status !== 'viewed') throw conflict('payment_link_not_open', `An invoice can be sent only for an active or viewed link; this one is ${link.status}.`);
  if (!link.payer_email) throw conflict('payer_email_required', 'Set payer_email on the link before sending the invoice.');
  const [account, vctx] = await Promise.all([db().getRepository(Account).findOneByOrFail({ id: c.accountId }), linkViewContext(c.accountId)]);
  const view = paymentLinkView(link, vctx);
  await emailProvider().send({
    to: link.payer_email, template: 'payment_link_invoice', accountId: c.accountId, relatedObjectId: link.id,
    subject: `Invoice from ${account.display_name}: ${link.title} (${link.reference_id})`,
    body: linkEmailBody(link, String(view.url), account.display_name, 'invoice'),
    idempotencyKey: `invoice:${link.id}:${c.request?.idempotency_key ?? c.request?.id ?? newId('req_')}`,
  });
  return transaction(async (m) => {
    const locked = await lockLink(m, c, id);
    locked.invoice_sent_at = new Date();
    await m.save(locked);
    return m.findOneByOrFail(PaymentLink, { id });
  });
}

function linkEmailBody(link: PaymentLink, url: string, merchant: string, kind: 'invoice' | 'reminder'): string {
  const amount = `${formatMajor({ amount: String(link.amount_minor), currency: link.currency, decimals: link.decimals })} ${link.currency}`;
  const lead = kind === 'invoice' ? `${merchant} sent you an invoice.` : `A friendly reminder: ${merchant} is waiting for your payment.`;
  return [
    lead, '',
    `${link.title} (${link.reference_id}${link.invoice_number ? `, invoice ${link.invoice_number}` : ''})`,
    `Amount: ${amount}`,
    link.memo ? `Note: ${link.memo}` : null,
    link.expires_at ? `Pay before ${link.expires_at.toISOString()}` : null, '',
    `Pay here: ${url}`,
  ].filter((l) => l !== null).join('\n');
}

// ---------------------------------------------------------------------------------------
// Reminder schedule (spec 2.3 ReminderSchedule, 4.1)

/**
 * Replaces `offsets_days` (domain validateOffsets: 400 param `offsets_days`) and turns the
 * schedule on (or `status` when given); `sent` is kept. A crypto-only link answers `422
 * invalid_request` code `reminder_schedule_not_supported` param `reminder_schedule`; a link that
 * can no longer be paid answers 409 conflict `payment_link_not_editable`. Emits
 * `payment_link.reminder_schedule_updated`; signals the workflow of an activated link.
 */
export async function updateReminderSchedule(c: OpContext, id: string, input: { offsets_days: unknown; status?: 'on' | 'off' }): Promise<PaymentLink> {
  const link = await transaction(async (m) => {
    const link = await lockLink(m, c, id);
    if (isCryptoOnlyLink(link)) {
      throw invalidRequest('reminder_schedule_not_supported', 'Crypto-only links have no reminder schedule.', 'reminder_schedule', undefined, 422);
    }
    const offsets = validateOffsets(input.offsets_days);
    if (!SCHEDULE_EDITABLE.includes(link.status)) throw conflict('payment_link_not_editable', `The reminders of a ${link.status} payment link cannot be changed.`);
    link.reminder_schedule = { status: input.status ?? 'on', offsets_days: offsets, sent: [...(link.reminder_schedule?.sent ?? [])] };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_schedule_updated', c.request);
    return saved;
  });
  if (link.status !== 'draft') await signalLinkChanged(link);
  return link;
}

/**
 * Turns reminders off, keeping `offsets_days` and `sent` (spec 4.1); allowed on crypto-only
 * links and in any status; idempotent (emits `payment_link.reminder_schedule_updated` only when
 * the status changed). Signals the workflow of an activated link.
 */
export async function disableReminderSchedule(c: OpContext, id: string): Promise<PaymentLink> {
  const { link, changed } = await transaction(async (m) => {
    const link = await lockLink(m, c, id);
    if (link.reminder_schedule.status === 'off') return { link, changed: false };
    link.reminder_schedule = { ...link.reminder_schedule, status: 'off' };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_schedule_updated', c.request);
    return { link: saved, changed: true };
  });
  if (changed && link.status !== 'draft') await signalLinkIfRunning(link.id);
  return link;
}

// ---------------------------------------------------------------------------------------
// Link workflow activities (workflows/payment-link.ts)

/** What the link workflow needs to plan its next wake-up. Times are epoch milliseconds. */
export interface LinkWorkflowState {
  /** False when the row is gone. */
  exists: boolean;
  status: string | null;
  /** True when the workflow has nothing left to do (not activated, or paid/settled/cancelled/expired/refunded). */
  ended: boolean;
  /** Expiry time for a link that can still expire (active, viewed, processing); else null. */
  expiresAt: number | null;
  /** Due time of the next reminder (view's `next_reminder_at`), or null. */
  nextReminderAt: number | null;
  /** Index of the next reminder (= reminders already sent). */
  reminderIndex: number;
}

/** Activity: the link's current timers (see LinkWorkflowState). Corrupt stored data fails non-retryably. */
export async function loadPaymentLinkState(args: { linkId: string }): Promise<LinkWorkflowState> {
  const link = await db().getRepository(PaymentLink).findOneBy({ id: args.linkId });
  if (!link) return { exists: false, status: null, ended: true, expiresAt: null, nextReminderAt: null, reminderIndex: 0 };
  const ended = link.status === 'draft' || LINK_WORKFLOW_END_STATUSES.includes(link.status);
  let next: Date | null;
  try {
    next = ended ? null : linkNextReminderAt(link);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(`payment link ${link.id} has an unusable reminder schedule: ${String(e)}`, 'LinkStateCorrupt');
  }
  return {
    exists: true,
    status: link.status,
    ended,
    expiresAt: !ended && link.expires_at ? link.expires_at.getTime() : null,
    nextReminderAt: next ? next.getTime() : null,
    reminderIndex: link.reminder_schedule?.sent?.length ?? 0,
  };
}

/**
 * Activity: expires the link at the workflow's time `at` when it is still active, viewed or
 * processing and `expires_at <= at`: status `expired`, `partial_payment` cleared, live payments
 * closed in the same transaction (`closeLivePaymentsForLink(m, link, 'expired', null)`), event
 * `payment_link.expired`. Idempotent (a second call changes nothing). Returns the closed payment
 * ids for `signalPaymentsLinkEnded`.
 */
export async function expirePaymentLink(args: { linkId: string; at: number }): Promise<{ expired: boolean; accountId: string | null; paymentIds: string[] }> {
  return transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: args.linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) return { expired: false, accountId: null, paymentIds: [] };
    if (!['active', 'viewed', 'processing'].includes(link.status) || !link.expires_at || link.expires_at.getTime() > args.at) {
      return { expired: false, accountId: link.account_id, paymentIds: [] };
    }
    link.status = 'expired';
    link.expired_at = new Date(args.at);
    link.partial_payment = null;
    await m.save(link);
    const { paymentIds } = await closeLivePaymentsForLink(m, link, 'expired', null);
    const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
    await emitLinkEventNonBlocking(m, saved, 'payment_link.expired', null);
    return { expired: true, accountId: link.account_id, paymentIds };
  });
}

/** Activity: tells the payment workflows closed by a link end (activities/payins.ts `signalLinkEndedToPayments`). */
export async function signalPaymentsLinkEnded(args: { paymentIds: string[]; accountId: string; reason: 'cancelled' | 'expired' }): Promise<void> {
  if (args.paymentIds.length) await signalLinkEndedToPayments(args.paymentIds, args.accountId, args.reason);
}

/**
 * Activity: sends reminder number `index` when it is still due at the workflow's time `at`
 * (schedule on, link remindable, exactly `index` reminders sent, due time <= `at`): emails the
 * payer through the email provider (idempotent by link, index and due time), appends `at` to
 * `reminder_schedule.sent` and emits `payment_link.reminder_sent`, in one transaction holding the
 * link's row lock. Returns `{ sent: false }` when the reminder is no longer due.
 */
export async function sendPaymentLinkReminder(args: { linkId: string; index: number; at: number }): Promise<{ sent: boolean; emailId: string | null }> {
  return transaction(async (m) => {
    const link = await m.findOne(PaymentLink, { where: { id: args.linkId }, lock: { mode: 'pessimistic_write' } });
    if (!link) return { sent: false, emailId: null };
    const due = linkNextReminderAt(link);
    if (!due || (link.reminder_schedule.sent?.length ?? 0) !== args.index || due.getTime() > args.at) return { sent: false, emailId: null };
    const [account, vctx] = await Promise.all([m.findOneByOrFail(Account, { id: link.account_id }), linkViewContext(link.account_id)]);
    const view = paymentLinkView(link, vctx);
    const email = await emailProvider().send({
      to: link.payer_email!, template: 'payment_link_reminder', accountId: link.account_id, relatedObjectId: link.id,
      subject: `Reminder from ${account.display_name}: ${link.title} (${link.reference_id})`,
      body: linkEmailBody(link, String(view.url), account.display_name, 'reminder'),
      idempotencyKey: `reminder:${link.id}:${args.index}:${due.toISOString()}`,
    });
    link.reminder_schedule = { ...link.reminder_schedule, sent: [...link.reminder_schedule.sent, new Date(args.at).toISOString()] };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id: link.id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_sent', null);
    return { sent: true, emailId: email.id };
  });
}
