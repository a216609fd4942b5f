/**
 * Screening credits (spec 2.11 "Credits", 4.10 `/credits`, `/credit_events`, `/credit_checkouts`;
 * 8 "Credit packs"; 6 `credit.purchased`, `credit.consumed`).
 *
 * The balance is the account owner's personal one (one `credit_balances` row per person, created
 * with the free allowance on first use). Every change is one transaction that locks the balance
 * row, writes one ledger row (`credit_events`) carrying the balance after it and, for purchases
 * and consumption, an outbox event.
 *
 * Checkouts never grant credits themselves: `createCheckout` records the intent and opens a
 * hosted session at the checkout provider; credits are granted only by
 * `handleCheckoutNotification` when the provider reports the session paid. That grant is
 * idempotent (row lock on the checkout, at most one `purchase` row per checkout by a unique
 * index), so a repeated or concurrent confirmation grants once. A checkout's status moves through
 * its record's named transitions (activities/records/credit-checkouts.ts).
 *
 * Commands take `(scope, input)` (activities/scope.ts): the balance is the owner of the scope's
 * account. `handleCheckoutNotification` is the provider's callback (no scope: the notification
 * names the checkout).
 */
import type { EntityManager } from 'typeorm';
import { creditEventView } from '../../views/credits';
import {
  applyConsume,
  applyPurchase,
  applyRefund,
  FREE_CHECKS_ALLOWANCE,
  PACK_CURRENCY,
  PACK_PRICE_MINOR,
  type CreditBalance,
  type CreditPack,
  type LedgerStep,
} from '../../domain/credits';
import { conflict, DomainError, notFound } from '../../domain/errors';
import { CreditBalanceRow, CreditCheckout, CreditEventRow } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { checkoutProvider, type CheckoutNotification } from '../../providers/checkout';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import {
  closeCreditCheckout,
  completeCreditCheckout,
  failMismatchedCreditCheckout,
  failUnopenedCreditCheckout,
  lockCreditCheckout,
} from '../records/credit-checkouts';
import type { AccountScope, Scope } from '../scope';

/** Who holds the balance and where the action happens (the acting account carries outbox events). */
interface CreditContext {
  userId: string;
  accountId: string;
  livemode: boolean;
  request: RequestRef | null;
}

/** The balance context of `scope`: its account owner's balance, acted on from the scope's account. */
async function ownerContext(scope: Scope): Promise<CreditContext> {
  return { userId: await accountOwner(scope.accountId), accountId: scope.accountId, livemode: scope.livemode, request: scope.request };
}

/** The person who owns `accountId` (spec 4.10: credits are the owner's personal balance). */
export async function accountOwner(accountId: string): Promise<string> {
  const rows: Array<{ owner_user_id: string }> = await db().query('SELECT owner_user_id FROM accounts WHERE id = $1', [accountId]);
  if (!rows[0]) throw notFound('No such account.');
  return rows[0].owner_user_id;
}

/** Creates the balance row with the free allowance when missing, then returns it row-locked. */
async function lockBalance(m: EntityManager, userId: string): Promise<CreditBalanceRow> {
  await m.query(
    `INSERT INTO credit_balances(user_id, free_remaining, paid_balance, total_checks) VALUES ($1,$2,0,0) ON CONFLICT (user_id) DO NOTHING`,
    [userId, FREE_CHECKS_ALLOWANCE],
  );
  return m.findOneOrFail(CreditBalanceRow, { where: { user_id: userId }, lock: { mode: 'pessimistic_write' } });
}

/** The person's balance (created with the free allowance on first read). */
export async function getBalance(userId: string): Promise<CreditBalance> {
  return transaction(async (m) => {
    const b = await lockBalance(m, userId);
    return { free_remaining: b.free_remaining, paid_balance: b.paid_balance, total_checks: b.total_checks };
  });
}

/** Writes the ledger row of `step`, moves the balance row to `step.next`; returns the row. */
async function record(
  m: EntityManager,
  bal: CreditBalanceRow,
  step: LedgerStep,
  c: { accountId: string | null; livemode: boolean },
  refs: { checkoutId?: string | null; relatedObjectId?: string | null; refundOf?: string | null } = {},
): Promise<CreditEventRow> {
  const row = m.create(CreditEventRow, {
    id: newId('cev_'),
    user_id: bal.user_id,
    account_id: c.accountId,
    livemode: c.livemode,
    type: step.type,
    credits: step.credits,
    free_remaining: step.next.free_remaining,
    paid_balance: step.next.paid_balance,
    total_checks: step.next.total_checks,
    checkout_id: refs.checkoutId ?? null,
    related_object_id: refs.relatedObjectId ?? null,
    refund_of: refs.refundOf ?? null,
  });
  await m.save(row);
  if (
    bal.free_remaining !== step.next.free_remaining ||
    bal.paid_balance !== step.next.paid_balance ||
    bal.total_checks !== step.next.total_checks
  ) {
    await m.query(
      'UPDATE credit_balances SET free_remaining = $2, paid_balance = $3, total_checks = $4, updated_at = now() WHERE user_id = $1',
      [bal.user_id, step.next.free_remaining, step.next.paid_balance, step.next.total_checks],
    );
  }
  return m.findOneByOrFail(CreditEventRow, { id: row.id });
}

/**
 * `POST /credit_checkouts` (spec 4.10): opens a checkout of `pack` (5, 10 or 20; spec 8) for the
 * owner of the scope's account: records the intent (`open`), opens the provider's hosted session
 * (idempotent by the `cco_` id) and stores its `url`. Grants nothing until the provider confirms
 * payment (`handleCheckoutNotification`). 404 when the account is gone. A provider failure marks
 * the checkout `failed` and answers `502 provider_error` `checkout_provider_error` (retry with a
 * new Idempotency-Key).
 */
export async function createCheckout(scope: Scope, input: { pack: CreditPack }): Promise<CreditCheckout> {
  const c = await ownerContext(scope);
  const pack = input.pack;
  const provider = checkoutProvider();
  const id = newId('cco_');
  const price = PACK_PRICE_MINOR[pack];
  await transaction(async (m) => {
    await lockBalance(m, c.userId);
    await m.save(
      m.create(CreditCheckout, {
        id,
        user_id: c.userId,
        account_id: c.accountId,
        livemode: c.livemode,
        pack,
        amount_minor: price.toString(),
        currency: PACK_CURRENCY,
        status: 'open',
        provider: provider.name,
        provider_session_id: null,
        url: null,
        expires_at: null,
        completed_at: null,
        failure_reason: null,
      }),
    );
  });
  try {
    const s = await provider.createSession({
      clientReference: id,
      amountMinor: price,
      currency: PACK_CURRENCY,
      description: `${pack} screening credits`,
    });
    await db().query('UPDATE credit_checkouts SET provider_session_id = $2, url = $3, expires_at = $4, updated_at = now() WHERE id = $1', [
      id,
      s.sessionId,
      s.url,
      s.expiresAt,
    ]);
  } catch (err) {
    logger.error({ err, checkout_id: id }, 'checkout provider could not open a session');
    await failUnopenedCreditCheckout(db(), id);
    throw new DomainError(
      'provider_error',
      'checkout_provider_error',
      'The checkout provider could not open a checkout. Retry with a new Idempotency-Key.',
    );
  }
  return db().getRepository(CreditCheckout).findOneByOrFail({ id });
}

export interface NotificationResult {
  checkout: CreditCheckout;
  granted: boolean;
  event: CreditEventRow | null;
}

/**
 * Applies a provider notification (spec 4.10: credits are granted only when the provider
 * confirms). `paid`: when the checkout is not yet completed and the captured amount and currency
 * equal the price, grants `pack` paid credits: a `purchase` ledger row, the balance, the checkout
 * `completed` and the outbox event `credit.purchased`, in one transaction. Money the provider
 * captured is honoured even after we saw the session fail or expire. A wrong amount grants
 * nothing and marks the checkout `failed` (`amount_mismatch`, for review). `failed` / `expired`
 * close an open checkout. Repeats change nothing (`granted: false`). Unknown reference or a
 * session id that is not the checkout's: null (logged, ignored).
 */
export async function handleCheckoutNotification(checkoutNotification: CheckoutNotification): Promise<NotificationResult | null> {
  return transaction(async (m) => {
    const co = await lockCreditCheckout(m, checkoutNotification.clientReference);
    if (
      !co ||
      co.provider !== checkoutNotification.provider ||
      (co.provider_session_id && co.provider_session_id !== checkoutNotification.sessionId)
    ) {
      logger.warn(
        { checkout_id: checkoutNotification.clientReference, session_id: checkoutNotification.sessionId },
        'checkout notification for an unknown checkout ignored',
      );
      return null;
    }
    if (co.status === 'completed') return { checkout: co, granted: false, event: null };
    if (checkoutNotification.outcome !== 'paid') {
      if (co.status === 'open') await closeCreditCheckout(m, co, { outcome: checkoutNotification.outcome });
      return { checkout: await m.findOneByOrFail(CreditCheckout, { id: co.id }), granted: false, event: null };
    }
    if (
      checkoutNotification.paidAmountMinor === null ||
      checkoutNotification.paidAmountMinor !== BigInt(co.amount_minor) ||
      checkoutNotification.currency !== co.currency
    ) {
      logger.error(
        { checkout_id: co.id, paid: checkoutNotification.paidAmountMinor?.toString(), currency: checkoutNotification.currency },
        'checkout paid a different amount; no credits granted',
      );
      await failMismatchedCreditCheckout(m, co);
      return { checkout: await m.findOneByOrFail(CreditCheckout, { id: co.id }), granted: false, event: null };
    }
    const bal = await lockBalance(m, co.user_id);
    const event = await record(
      m,
      bal,
      applyPurchase(bal, co.pack),
      { accountId: co.account_id, livemode: co.livemode },
      { checkoutId: co.id },
    );
    await completeCreditCheckout(m, co, { event });
    return { checkout: await m.findOneByOrFail(CreditCheckout, { id: co.id }), granted: true, event };
  });
}

/**
 * Spends one check of the balance of the scope's account owner for `relatedObjectId` (e.g. a
 * screening report; spec 4.8: `cached` results are free). Writes `cache_hit`, `consume_free`,
 * `consume_paid` or `insufficient`; a consumption also emits `credit.consumed` (the scope's
 * account and request). With nothing left it records `insufficient` and returns it: the caller
 * then answers `402 quota_exhausted` (the row is kept). 404 when the account is gone.
 */
export async function consumeCheck(scope: Scope, input: { relatedObjectId: string; cached: boolean }): Promise<CreditEventRow> {
  const c = await ownerContext(scope);
  const relatedObjectId = input.relatedObjectId;
  return transaction(async (m) => {
    const bal = await lockBalance(m, c.userId);
    const step = applyConsume(bal, { cached: input.cached });
    const event = await record(m, bal, step, c, { relatedObjectId });
    if (step.type === 'consume_free' || step.type === 'consume_paid') {
      await emitEvent(m, {
        accountId: c.accountId,
        livemode: c.livemode,
        type: 'credit.consumed',
        objectType: 'credit_event',
        objectId: event.id,
        object: creditEventView(event),
        relatedIds: [relatedObjectId],
        request: c.request,
      });
    }
    return event;
  });
}

/**
 * Gives back the check spent by ledger row `id` of the scope's account owner (a failed report):
 * `refund` row, the pool it came from regains one, `total_checks` decrements. Once per
 * consumption: a second refund is `409 conflict` `credit_already_refunded`; a row that consumed
 * nothing is `409` `credit_not_refundable`; unknown: 404.
 */
export async function refundCheck(scope: Scope, input: { id: string }): Promise<CreditEventRow> {
  const c = await ownerContext(scope);
  const consumeEventId = input.id;
  return transaction(async (m) => {
    const bal = await lockBalance(m, c.userId);
    const consumed = await m.findOne(CreditEventRow, { where: { id: consumeEventId, user_id: c.userId } });
    if (!consumed) throw notFound(`No such credit event: ${consumeEventId}.`);
    if (consumed.type !== 'consume_free' && consumed.type !== 'consume_paid')
      throw conflict('credit_not_refundable', 'Only a consumed check can be refunded.');
    const prior = await m.count(CreditEventRow, { where: { refund_of: consumed.id } });
    if (prior) throw conflict('credit_already_refunded', 'This check was already refunded.');
    return record(m, bal, applyRefund(bal, consumed.type), c, { relatedObjectId: consumed.related_object_id, refundOf: consumed.id });
  });
}

/** `GET /credits` (spec 4.10): the balance of the owner of the scope's account (created with the free allowance on first read). 404 when the account is gone. */
export async function accountCreditBalance(scope: AccountScope): Promise<CreditBalance> {
  return getBalance(await accountOwner(scope.accountId));
}
