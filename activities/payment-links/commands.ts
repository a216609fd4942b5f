/**
 * Payment link commands the routes call (spec 2.3, 3 "Payment link", 4.1, 6): create (create.ts),
 * update, activate, cancel, send_invoice, reminder schedule update/disable, and the payer
 * session's view and receipt email. Each is one DB transaction that writes its outbox events
 * (`emitEvent`) in the same transaction; the link workflow's `linkChanged` (signalWithStart by link
 * id) is recorded in that transaction and follows the commit durably (temporal/intents.ts); the
 * signals to a cancelled link's payments go out after commit (best effort). Every status change is
 * written by activities/records/payment-links.ts; the specific refusals below (e.g.
 * `payment_link_not_cancellable`) come first.
 *
 * Errors are DomainErrors with the spec's type/code/param. Money is bigint minor units
 * internally and strings in rows and on the wire.
 */
import { IsNull } from 'typeorm';
import { conflict, DomainError, invalidRequest } from '../../domain/errors';
import { assertStorableMinor, currencyDecimals, toMinorPositive } from '../../domain/money';
import {
  assertActivationCurrencyAndExpiry,
  assertAttested,
  assertCryptoOnlyEnabled,
  assertFuture,
  assertHasSettlement,
  assertPayerTypeFitsSettlement,
  assertSettlementNotConflicting,
  blankToNull,
  isCryptoOnlyLink,
  LINK_CANCELLABLE_STATUSES,
  LINK_LOCKED_AFTER_ACTIVATION,
  LINK_SCHEDULE_EDITABLE_STATUSES,
} from '../../domain/payment-links';
import { PAID_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { isBankRail, validateAllowedRails } from '../../domain/rails';
import { validateOffsets } from '../../domain/reminders';
import { isLinkEditable } from '../../domain/verdicts';
import { Account, AddressBookEntry, Payment, PaymentLink } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { linkViewContext } from '../../lib/rails-availability';
import { scoped } from '../../lib/scoped';
import { isFlagOpen } from '../../lib/switches';
import { chainAdapter } from '../../providers/chain';
import { findActiveWallet } from '../records/wallets';
import { emailProvider } from '../../providers/email';
import { paymentLinkView } from '../../views/payment-link';
import { closeLivePaymentsForLink } from '../payments/links';
import type { Scope } from '../scope';
import { signalLinkEndedToPaymentsAfterCommit } from '../payments/signals';
import { acceptedRailKinds, checkNativeCurrency, type CreateLinkInput } from './create';
import { linkEmailBody } from './emails';
import { assertClientUsable, assertDestinationOwned, linkNotFound, lockLink, resolveItems } from './lookups';
import { activatePaymentLink, cancelPaymentLink, emitLinkEvent, markPaymentLinkViewed } from '../records/payment-links';
import { signalLinkChangedAfterCommit, signalLinkIfRunning } from './signals';

export { createLink, type CreateLinkInput } from './create';
export type { Scope } from '../scope';

// ---------------------------------------------------------------------------------------
// Update (spec 4.1)

/** `PATCH /payment_links/{id}` body after joi; a key absent from the object is left unchanged. */
export type UpdateLinkInput = Partial<CreateLinkInput>;

/**
 * Updates link `input.id` of the scope (404 param `id` otherwise; spec 4.1) with the other keys of `input`: only while `draft`, `active` or `viewed` (else 409 conflict
 * `payment_link_not_editable`); once activated, `amount`, `accepted_rail_kinds` and
 * `settlement_destination` are frozen (409 conflict `payment_link_field_locked`, param = field).
 * Setting a destination retires an earlier crypto-only intent; setting crypto-only while a
 * destination is stored (and not cleared in the same body) is 400
 * `settlement_conflicts_with_destination`. `allowed_rails` is validated against the resulting
 * currency and settlement when sent (null clears it); a stored restriction that no longer fits the
 * currency is reported at activation (409). The title is never re-derived. Signals the workflow of
 * an activated link after commit.
 */
export async function updateLink(scope: Scope, input: UpdateLinkInput & { id: string }): Promise<PaymentLink> {
  const has = (k: keyof UpdateLinkInput) => input[k] !== undefined;
  const link = await transaction(async (m) => {
    const link = await lockLink(m, scope, input.id);
    if (!isLinkEditable(link.status)) throw conflict('payment_link_not_editable', `A ${link.status} payment link cannot be changed.`);
    if (link.status !== 'draft') {
      for (const f of LINK_LOCKED_AFTER_ACTIVATION) {
        if (has(f))
          throw new DomainError('conflict', 'payment_link_field_locked', `${f} cannot be changed once the link is activated.`, {
            param: f,
          });
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
      const parsed = await acceptedRailKinds(scope.accountId, input.accepted_rail_kinds);
      cryptoOnly = parsed.cryptoOnly;
      link.accepted_rail_kinds = parsed.stored;
    }
    if (input.settlement_destination) {
      assertSettlementNotConflicting(has('accepted_rail_kinds') && cryptoOnly, input.settlement_destination);
      // Setting a destination retires an earlier crypto-only intent (spec 4.1).
      cryptoOnly = false;
      link.accepted_rail_kinds = null;
    }
    const destination =
      input.settlement_destination === undefined ? link.settlement_destination_id : (input.settlement_destination?.address_book_id ?? null);
    assertSettlementNotConflicting(cryptoOnly, destination);
    const becameCryptoOnly = cryptoOnly && !link.crypto_only;
    if (cryptoOnly && (becameCryptoOnly || has('amount'))) await checkNativeCurrency(scope.accountId, currency);
    if (has('allowed_rails')) {
      link.allowed_rails = validateAllowedRails(currency, input.allowed_rails ?? null, cryptoOnly);
    } else if (becameCryptoOnly && link.allowed_rails?.some(isBankRail)) {
      throw invalidRequest(
        'allowed_rails_invalid_for_settlement',
        'A crypto-only link cannot allow bank rails; send allowed_rails without them (or null).',
        'allowed_rails',
        { allowed_rails: link.allowed_rails, bank_rails: link.allowed_rails.filter(isBankRail) },
      );
    }
    const expected = input.expected_payer_type === undefined ? link.expected_payer_type_input : input.expected_payer_type;
    assertPayerTypeFitsSettlement(cryptoOnly, expected);
    link.expected_payer_type_input = expected ?? null;
    if (input.expires_at !== undefined) {
      assertFuture(input.expires_at, 'expires_at', Date.now());
      link.expires_at = input.expires_at;
    }
    if (input.settlement_destination !== undefined) {
      if (input.settlement_destination) await assertDestinationOwned(m, scope, input.settlement_destination.address_book_id);
      link.settlement_destination_id = destination;
    }
    link.crypto_only = cryptoOnly;
    if (becameCryptoOnly) link.reminder_schedule = { ...link.reminder_schedule, status: 'off' };
    if (input.client_id !== undefined) {
      if (input.client_id) await assertClientUsable(m, scope, input.client_id);
      link.client_id = input.client_id;
    }
    if (input.items !== undefined) link.items = (await resolveItems(m, scope, input.items, currency)).stored;
    else if (currency !== oldCurrency) link.items = link.items.map((it) => ({ ...it, unit_amount: null }));
    if (input.title !== undefined && input.title !== null) link.title = input.title.trim();
    if (input.memo !== undefined) link.memo = blankToNull(input.memo);
    if (input.invoice_number !== undefined) link.invoice_number = blankToNull(input.invoice_number);
    if (input.payer_email !== undefined) link.payer_email = input.payer_email;
    await m.save(link);
    if (link.status !== 'draft') await signalLinkChangedAfterCommit(m, link);
    return m.findOneByOrFail(PaymentLink, { id: link.id });
  });
  return link;
}

// ---------------------------------------------------------------------------------------
// Activation, cancellation, invoice

/**
 * Activates draft `input.id` (spec 3, 4.1): `attestation_accepted` must be true (400 param
 * `attestation_accepted`). Errors: 404; 409 conflict `payment_link_already_activated` (not a
 * draft); 403 permission_error `account_not_eligible` (account access restricted); 409
 * capability_unavailable (crypto-only flag closed now); 400 `settlement_destination_required`
 * (neither destination nor crypto-only); 409 conflict `allowed_rails_invalid_for_currency`; 422
 * `crypto_only_currency_not_usd`; 409 conflict `wallet_not_found` (crypto-only without an active
 * service wallet on the environment network); 409 conflict `settlement_destination_currency_mismatch`
 * param `settlement_destination` (a bank destination in another currency than the link); 400 param `expires_at` when it already passed.
 * Sets `active`, `payer_token` (`plk_`), `settlement_kind`, frozen `settlement_asset`
 * (crypto-only: the chain adapter's token), `settlement_destination_kind` (the address-book
 * entry's kind: a bank entry makes the link payable on bank rails only), `direction`
 * `inbound`, `activated_at`; emits
 * `payment_link.activated`; starts the link workflow after commit.
 */
export async function activateLink(scope: Scope, input: { id: string; attestation_accepted: unknown }): Promise<PaymentLink> {
  const link = await transaction(async (m) => {
    const link = await lockLink(m, scope, input.id);
    assertAttested(input.attestation_accepted);
    if (link.status !== 'draft')
      throw conflict('payment_link_already_activated', `This payment link is ${link.status}; only a draft can be activated.`);
    const account = await m.findOneByOrFail(Account, { id: scope.accountId });
    if (account.access_state !== 'active')
      throw new DomainError('permission_error', 'account_not_eligible', 'This account cannot activate payment links now.');
    const cryptoOnly = link.crypto_only;
    if (cryptoOnly) assertCryptoOnlyEnabled(await isFlagOpen('payment_links.crypto_only', scope.accountId));
    assertHasSettlement(cryptoOnly, link.settlement_destination_id);
    validateAllowedRails(link.currency, link.allowed_rails, cryptoOnly, { asConflict: true });
    assertActivationCurrencyAndExpiry(cryptoOnly, link.currency, link.expires_at, Date.now());
    const chain = chainAdapter();
    if (cryptoOnly) {
      if (!(await findActiveWallet(scope, m)))
        throw conflict('wallet_not_found', `Crypto-only links settle to the service wallet; this account has none on ${chain.network}.`);
    } else {
      const entry = await scoped(scope, m).findOne(AddressBookEntry, { id: link.settlement_destination_id!, deleted_at: IsNull() });
      if (!entry)
        throw invalidRequest(
          'settlement_destination_required',
          'The settlement destination no longer exists; choose another.',
          'settlement_destination',
        );
      if (entry.kind === 'bank' && entry.bank_currency && entry.bank_currency !== link.currency) {
        throw new DomainError(
          'conflict',
          'settlement_destination_currency_mismatch',
          `The settlement destination receives ${entry.bank_currency}; this link is in ${link.currency}. Choose a ${link.currency} bank account.`,
          { param: 'settlement_destination', details: { destination_currency: entry.bank_currency, currency: link.currency } },
        );
      }
      link.settlement_destination_kind = entry.kind;
    }
    const saved = await activatePaymentLink(
      m,
      link,
      {
        settlementKind: cryptoOnly ? 'crypto_only' : 'fiat_provider',
        settlementAsset: cryptoOnly
          ? { chain: chain.chain, asset: chain.stablecoin, token_address: chain.tokenAddress, decimals: currencyDecimals(chain.stablecoin) }
          : null,
      },
      scope.request,
    );
    await signalLinkChangedAfterCommit(m, saved);
    return saved;
  });
  return link;
}

/**
 * Cancels link `input.id` (spec 3, 4.1, 6) from draft/active/viewed/processing (else 409 conflict
 * `payment_link_not_cancellable`). Clears `partial_payment`, closes the link's live payments in
 * the same transaction (activities/payments/links.ts `closeLivePaymentsForLink`: an underpaid one becomes
 * unmatched `partial_before_cancel`), emits `payment_link.cancelled` without letting a failed emit
 * block the cancel; after commit signals the closed payments and the link workflow (which ends).
 */
export async function cancelLink(scope: Scope, input: { id: string }): Promise<PaymentLink> {
  const { link, paymentIds, wasDraft } = await transaction(async (m) => {
    const link = await lockLink(m, scope, input.id);
    if (!LINK_CANCELLABLE_STATUSES.includes(link.status))
      throw conflict('payment_link_not_cancellable', `A ${link.status} payment link cannot be cancelled.`);
    const wasDraft = link.status === 'draft';
    const { link: saved, paymentIds } = await cancelPaymentLink(
      m,
      link,
      {
        closePayments: (ended) => closeLivePaymentsForLink(m, ended, 'cancelled', scope.request),
      },
      scope.request,
    );
    return { link: saved, paymentIds, wasDraft };
  });
  await signalLinkEndedToPaymentsAfterCommit(paymentIds, link.account_id, 'cancelled');
  if (!wasDraft) await signalLinkIfRunning(link.id);
  return link;
}

/**
 * Sends the invoice email for active or viewed link `input.id` to its `payer_email` (spec 4.1
 * `send_invoice`) with the payer `url`, then sets `invoice_sent_at`. 409 conflict
 * `payment_link_not_open` for another status, 409 conflict `payer_email_required` without a
 * payer email. The email is idempotent by link and Idempotency-Key.
 */
export async function sendInvoice(scope: Scope, input: { id: string }): Promise<PaymentLink> {
  const { id } = input;
  const link = await scoped(scope).getOne(PaymentLink, { id }, () => linkNotFound(id));
  if (link.status !== 'active' && link.status !== 'viewed')
    throw conflict('payment_link_not_open', `An invoice can be sent only for an active or viewed link; this one is ${link.status}.`);
  if (!link.payer_email) throw conflict('payer_email_required', 'Set payer_email on the link before sending the invoice.');
  const [account, vctx] = await Promise.all([
    db().getRepository(Account).findOneByOrFail({ id: scope.accountId }),
    linkViewContext(scope.accountId),
  ]);
  const view = paymentLinkView(link, vctx);
  await emailProvider().send({
    to: link.payer_email,
    template: 'payment_link_invoice',
    accountId: scope.accountId,
    relatedObjectId: link.id,
    subject: `Invoice from ${account.display_name}: ${link.title} (${link.reference_id})`,
    body: linkEmailBody(link, String(view.url), account.display_name, 'invoice'),
    idempotencyKey: `invoice:${link.id}:${scope.request?.idempotency_key ?? scope.request?.id ?? newId('req_')}`,
  });
  return transaction(async (m) => {
    const locked = await lockLink(m, scope, id);
    locked.invoice_sent_at = new Date();
    await m.save(locked);
    return m.findOneByOrFail(PaymentLink, { id });
  });
}

// ---------------------------------------------------------------------------------------
// Reminder schedule (spec 2.3 ReminderSchedule, 4.1)

/**
 * Replaces `offsets_days` of link `input.id` (domain validateOffsets: 400 param `offsets_days`) and turns the
 * schedule on (or `status` when given); `sent` is kept. A crypto-only link answers `422
 * invalid_request` code `reminder_schedule_not_supported` param `reminder_schedule`; a link that
 * can no longer be paid answers 409 conflict `payment_link_not_editable`. Emits
 * `payment_link.reminder_schedule_updated`; signals the workflow of an activated link.
 */
export async function updateReminderSchedule(
  scope: Scope,
  input: { id: string; offsets_days: unknown; status?: 'on' | 'off' },
): Promise<PaymentLink> {
  const { id } = input;
  const link = await transaction(async (m) => {
    const link = await lockLink(m, scope, id);
    if (isCryptoOnlyLink(link)) {
      throw invalidRequest(
        'reminder_schedule_not_supported',
        'Crypto-only links have no reminder schedule.',
        'reminder_schedule',
        undefined,
        422,
      );
    }
    const offsets = validateOffsets(input.offsets_days);
    if (!LINK_SCHEDULE_EDITABLE_STATUSES.includes(link.status))
      throw conflict('payment_link_not_editable', `The reminders of a ${link.status} payment link cannot be changed.`);
    link.reminder_schedule = { status: input.status ?? 'on', offsets_days: offsets, sent: [...(link.reminder_schedule?.sent ?? [])] };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_schedule_updated', scope.request);
    if (saved.status !== 'draft') await signalLinkChangedAfterCommit(m, saved);
    return saved;
  });
  return link;
}

/**
 * Turns the reminders of link `input.id` off, keeping `offsets_days` and `sent` (spec 4.1); allowed on crypto-only
 * links and in any status; idempotent (emits `payment_link.reminder_schedule_updated` only when
 * the status changed). Signals the workflow of an activated link.
 */
export async function disableReminderSchedule(scope: Scope, input: { id: string }): Promise<PaymentLink> {
  const { id } = input;
  const { link, changed } = await transaction(async (m) => {
    const link = await lockLink(m, scope, id);
    if (link.reminder_schedule.status === 'off') return { link, changed: false };
    link.reminder_schedule = { ...link.reminder_schedule, status: 'off' };
    await m.save(link);
    const saved = await m.findOneByOrFail(PaymentLink, { id });
    await emitLinkEvent(m, saved, 'payment_link.reminder_schedule_updated', scope.request);
    return { link: saved, changed: true };
  });
  if (changed && link.status !== 'draft') await signalLinkIfRunning(link.id);
  return link;
}

// ---------------------------------------------------------------------------------------
// Payer session (spec 4.1 payer routes)

/**
 * The payer opened the session of link `input.id` (`scope`: the link's account and mode, the
 * payer's request): first view sets `viewed_at`, moves active -> viewed and emits
 * `payment_link.viewed` once. 404 `No such payment session.` for another link.
 */
export async function recordView(scope: Scope, input: { id: string }): Promise<PaymentLink> {
  return transaction(async (m) => {
    const link = await scoped(scope, m).lock(
      PaymentLink,
      { id: input.id },
      () => new DomainError('not_found', 'not_found', 'No such payment session.'),
    );
    await markPaymentLinkViewed(m, link, scope.request);
    return link;
  });
}

/**
 * Emails the receipt of paid or settled `input.link` (the payer session's link, of `scope`) to
 * `input.email` (spec 4.1 `receipt_email`; 409 conflict `payment_link_not_paid` otherwise), from
 * its latest paid payment. Idempotent by link and address. Returns the sandbox email id.
 */
export async function sendPayerReceipt(scope: Scope, input: { link: PaymentLink; email: string }): Promise<{ emailId: string }> {
  const { link, email } = input;
  if (link.status !== 'paid' && link.status !== 'settled') {
    throw new DomainError('conflict', 'payment_link_not_paid', 'A receipt exists only once the payment link is paid.');
  }
  const account = await db().getRepository(Account).findOneByOrFail({ id: link.account_id });
  const paid = await db()
    .getRepository(Payment)
    .createQueryBuilder('p')
    .where('p.payment_link_id = :id', { id: link.id })
    .andWhere(`p.status IN (${sqlStatusList(PAID_PAYMENT_STATUSES)})`)
    .orderBy('p.paid_at', 'DESC')
    .getOne();
  const sent = await emailProvider().send({
    to: email,
    template: 'payment_receipt',
    accountId: link.account_id,
    relatedObjectId: link.id,
    subject: `Receipt from ${account.display_name}: ${link.title}`,
    body: `Paid ${link.reference_id} (${link.title}). Amount received: ${paid?.amount_received_minor ?? '0'} minor units of ${paid?.currency ?? 'USDC'}. Transaction: ${paid?.onchain_tx_hash ?? (paid?.bank_reference ? `bank transfer, reference ${paid.bank_reference}` : 'n/a')}.`,
    idempotencyKey: `receipt:${link.id}:${email.toLowerCase()}`,
  });
  return { emailId: sent.id };
}
