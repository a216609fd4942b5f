/**
 * Subscriptions (spec 4.2; fields designed in docs/decisions/0050-subscriptions.md): create, pause,
 * resume, cancel. Each is one transaction with its `subscription.*` event; the subscription's
 * workflow is signalled after the commit (it issues the invoices).
 */
import type { EntityManager } from 'typeorm';
import { DomainError, invalidRequest } from '../../domain/errors';
import type { Money } from '../../domain/money';
import { toMinorPositive } from '../../domain/money';
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { invoiceTransitions, type SubscriptionInterval } from '../../domain/subscriptions';
import { AddressBookEntry, Payment, Subscription, SubscriptionInvoice } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { chainAdapter } from '../../providers/chain';
import { assertClientUsable } from '../payment-links/lookups';
import { closeLivePayment } from '../payments/links';
import { signalLinkEndedToPaymentsAfterCommit } from '../payments/signals';
import {
  emitSubscriptionEvent,
  lockedSubscription,
  markSubscriptionCancelled,
  markSubscriptionPaused,
  markSubscriptionResumed,
  voidInvoice,
} from '../records/subscriptions';
import type { Scope } from '../scope';
import { signalSubscription } from './signals';

/** The body of `POST /subscriptions` (shapes validated by api/schemas/subscriptions.ts). */
export interface CreateSubscriptionBody {
  client_id: string;
  amount: Money;
  interval: SubscriptionInterval;
  interval_count?: number;
  billing_cycle_anchor?: string;
  cycles?: number | null;
  grace_period_days?: number;
  settlement_destination_id: string;
  description?: string | null;
}

const DAY_MS = 86_400_000;

/**
 * `POST /subscriptions`: checks the client (404 / `client_archived`), the amount (the chain's
 * stablecoin, USDC; `400 currency_invalid` param `amount.currency` otherwise), the anchor (not more
 * than a day in the past nor a year ahead: `400 parameter_invalid` param `billing_cycle_anchor`) and
 * the settlement wallet (an address-book crypto entry on the service chain: 404, or `400
 * settlement_destination_invalid`); stores it `active` with `subscription.created`; starts its
 * workflow, which issues the first invoice at the anchor.
 */
export async function createSubscription(scope: Scope, createSubscriptionBody: CreateSubscriptionBody): Promise<Subscription> {
  const chain = chainAdapter();
  if (createSubscriptionBody.amount.currency !== 'USDC' && createSubscriptionBody.amount.currency !== chain.stablecoin) {
    throw invalidRequest(
      'currency_invalid',
      `Subscriptions are billed in USDC; got ${createSubscriptionBody.amount.currency}.`,
      'amount.currency',
    );
  }
  const amount = toMinorPositive(createSubscriptionBody.amount, 'amount');
  const now = Date.now();
  const anchor = createSubscriptionBody.billing_cycle_anchor ? Date.parse(createSubscriptionBody.billing_cycle_anchor) : now;
  if (anchor < now - DAY_MS || anchor > now + 366 * DAY_MS) {
    throw invalidRequest(
      'parameter_invalid',
      'billing_cycle_anchor must be between a day ago and a year from now.',
      'billing_cycle_anchor',
    );
  }
  const s = await transaction(async (m) => {
    await assertClientUsable(m, scope, createSubscriptionBody.client_id);
    const entry = await scoped(scope, m).findOne(AddressBookEntry, { id: createSubscriptionBody.settlement_destination_id });
    if (!entry || entry.deleted_at)
      throw new DomainError('not_found', 'not_found', `No such address-book entry: ${createSubscriptionBody.settlement_destination_id}.`, {
        param: 'settlement_destination_id',
      });
    if (entry.kind !== 'crypto' || entry.chain !== chain.chain || !entry.address) {
      throw invalidRequest(
        'settlement_destination_invalid',
        `A subscription settles USDC on ${chain.chain}: the destination must be a crypto entry on ${chain.chain}.`,
        'settlement_destination_id',
      );
    }
    const sub = m.create(Subscription, {
      id: newId('sub_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      client_id: createSubscriptionBody.client_id,
      description: createSubscriptionBody.description ?? null,
      amount_minor: amount.toString(),
      currency: createSubscriptionBody.amount.currency,
      decimals: createSubscriptionBody.amount.decimals,
      interval: createSubscriptionBody.interval,
      interval_count: createSubscriptionBody.interval_count ?? 1,
      billing_cycle_anchor: new Date(anchor),
      cycles: createSubscriptionBody.cycles ?? null,
      grace_period_days: createSubscriptionBody.grace_period_days ?? 7,
      settlement_destination_id: entry.id,
      settlement_chain: chain.chain,
      settlement_address: entry.address,
      status: 'active',
      next_period: 0,
      skipped_periods: 0,
      paused_at: null,
      cancelled_at: null,
      ended_at: null,
    });
    await m.save(sub);
    await emitSubscriptionEvent(m, sub, 'subscription.created', scope.request);
    return sub;
  });
  await signalSubscription(s.id, s.account_id);
  return db().getRepository(Subscription).findOneByOrFail({ id: s.id });
}

/** `POST /subscriptions/{id}/pause` of subscription `input.id` (404 param `id`): active or past_due -> paused (`subscription.paused`); `409 subscription_not_pausable` otherwise. */
export async function pauseSubscription(scope: Scope, input: { id: string }): Promise<Subscription> {
  const s = await transaction(async (m) => {
    const sub = await lockedSubscription(m, input.id, scope);
    if (sub.status !== 'active' && sub.status !== 'past_due') {
      throw new DomainError(
        'conflict',
        'subscription_not_pausable',
        `This subscription is ${sub.status}; only an active or past-due subscription can be paused.`,
        { details: { status: sub.status } },
      );
    }
    return markSubscriptionPaused(m, sub, scope.request);
  });
  await signalSubscription(s.id, s.account_id);
  return s;
}

/**
 * `POST /subscriptions/{id}/resume` of subscription `input.id` (404 param `id`): paused -> active (`subscription.resumed`; past_due when an
 * invoice is still overdue, re-derived by the workflow); billing continues at the next period
 * boundary. `409 subscription_not_paused` otherwise.
 */
export async function resumeSubscription(scope: Scope, input: { id: string }): Promise<Subscription> {
  const s = await transaction(async (m) => {
    const sub = await lockedSubscription(m, input.id, scope);
    if (sub.status !== 'paused')
      throw new DomainError('conflict', 'subscription_not_paused', `This subscription is ${sub.status}, not paused.`, {
        details: { status: sub.status },
      });
    return markSubscriptionResumed(m, sub, scope.request);
  });
  await signalSubscription(s.id, s.account_id);
  return s;
}

/**
 * Voids the open and overdue invoices of `s` and closes their live pay-ins as a link end does
 * (domain closeOnLinkEnd `cancel`: awaiting -> abandoned, underpaid -> unmatched
 * `partial_before_cancel` with its money held). Returns the payment ids whose workflows the caller
 * signals after commit.
 */
async function voidOpenInvoices(m: EntityManager, s: Subscription, request: RequestRef | null): Promise<string[]> {
  const open = await m
    .createQueryBuilder(SubscriptionInvoice, 'i')
    .setLock('pessimistic_write')
    .where('i.subscription_id = :id', { id: s.id })
    .andWhere(`i.status IN (${sqlStatusList(invoiceTransitions.sources('void'))})`)
    .getMany();
  const closed: string[] = [];
  for (const inv of open) {
    await voidInvoice(m, inv);
    const pay = await m
      .createQueryBuilder(Payment, 'p')
      .setLock('pessimistic_write')
      .where('p.id = :id', { id: inv.payment_id })
      .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
      .getOne();
    if (!pay) continue;
    if (!(await closeLivePayment(m, pay, 'cancel', request))) continue;
    closed.push(pay.id);
  }
  return closed;
}

/**
 * `POST /subscriptions/{id}/cancel` of subscription `input.id` (404 param `id`): -> cancelled (`subscription.cancelled`); its open and overdue
 * invoices are void and their live pay-ins closed (money already received on an underpaid one is
 * held as unmatched `partial_before_cancel`). `409 subscription_not_cancellable` when it already
 * ended (a cancelled one answers as it is).
 */
export async function cancelSubscription(scope: Scope, input: { id: string }): Promise<Subscription> {
  let closed: string[] = [];
  const s = await transaction(async (m) => {
    const sub = await lockedSubscription(m, input.id, scope);
    if (sub.status === 'cancelled') return sub;
    if (sub.status === 'completed')
      throw new DomainError('conflict', 'subscription_not_cancellable', 'This subscription is completed.', {
        details: { status: sub.status },
      });
    closed = await voidOpenInvoices(m, sub, scope.request);
    return markSubscriptionCancelled(m, sub, scope.request);
  });
  await signalLinkEndedToPaymentsAfterCommit(closed, s.account_id, 'cancelled');
  await signalSubscription(s.id, s.account_id);
  return s;
}
