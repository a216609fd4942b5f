/**
 * The data of a healthy chaos run, as bench/chaos/invariants.ts reads it after a fault: settled and
 * open objects with their workflows, money that balances, one provider transfer per intent, each
 * status event once, deliveries once (one redelivery after a failed attempt), every running
 * workflow with its row. Each call builds a fresh copy, so a test plants one violation in it.
 * Amounts are bigint minor units; times ms epoch around `NOW`.
 */
import type { MoneyData, OpenObject } from '../../bench/chaos/checks';
import type { DeliveryData, EventCount, ObjectStatus, ProviderTransfer } from '../../bench/chaos/checks-records';

/** The time the invariants are read at (ms epoch). */
export const NOW = Date.parse('2026-11-29T12:00:00Z');

/** Everything the checks read. */
export interface ChaosRun {
  open: Record<'payment' | 'payout', OpenObject[]>;
  money: MoneyData;
  transfers: ProviderTransfer[];
  events: EventCount[];
  statuses: Record<string, ObjectStatus[]>;
  deliveries: DeliveryData;
  running: string[];
  known: Set<string>;
}

/** A healthy run (module doc). */
export function healthyRun(): ChaosRun {
  return {
    open: {
      payment: [
        {
          id: 'pay_open',
          status: 'awaiting',
          workflow: 'running',
          waitingFor: 'a deposit until expires_at',
          deadline: { atMs: NOW + 86_400_000, what: 'payment TTL (expires_at)', slackMs: 120_000 },
        },
      ],
      payout: [
        {
          id: 'po_open',
          status: 'awaiting_funds',
          workflow: 'running',
          waitingFor: 'funds at the deposit address',
          deadline: { atMs: NOW + 86_400_000, what: 'funding window (expires_at)', slackMs: 120_000 },
        },
        { id: 'po_processing', status: 'processing', workflow: 'running', waitingFor: 'the rail to report paid', deadline: null },
      ],
    },
    money: {
      payments: [
        { id: 'pay_settled', status: 'settled', received: 101_000_000n, applied: 101_000_000n, out: 101_000_000n },
        { id: 'pay_bank', status: 'settled', received: 150_000n, applied: 150_000n, out: 150_000n },
        { id: 'pay_open', status: 'awaiting', received: 0n, applied: 0n, out: 0n },
      ],
      pending: [],
      arrivals: 2,
      payouts: [
        { id: 'po_settled', status: 'settled', deposited: 1_010_500_000n, gross: 1_010_500_000n, paidRailPayments: 1 },
        { id: 'po_open', status: 'awaiting_funds', deposited: 0n, gross: 1_010_500_000n, paidRailPayments: 0 },
      ],
      offramps: [
        {
          id: 'ofr_done',
          status: 'payment_processed',
          received: 20_000_000n,
          amount: 20_000_000n,
          railPaymentsOfQuote: 1,
          paidRailPayments: 1,
        },
        { id: 'ofr_back', status: 'refunded', received: 20_000_000n, amount: 20_000_000n, railPaymentsOfQuote: 0, paidRailPayments: 0 },
      ],
      sends: [{ id: 'si_done', status: 'settled', transfersOfAmount: 1 }],
    },
    transfers: [
      { provider: 'chain', ref: 'settle:pay_settled' },
      { provider: 'rail', ref: 'pay_bank' },
      { provider: 'bridge', ref: 'po_settled' },
      { provider: 'rail', ref: 'po_settled' },
      { provider: 'rail', ref: 'ofr_done' },
    ],
    events: [
      { objectId: 'pay_settled', type: 'payment.created', n: 1 },
      { objectId: 'pay_settled', type: 'payment.paid', n: 1 },
      { objectId: 'pay_settled', type: 'payment.settled', n: 1 },
      { objectId: 'pay_settled', type: 'payment.deposit_received', n: 2 },
      { objectId: 'pay_bank', type: 'payment.settled', n: 1 },
      { objectId: 'po_settled', type: 'payout.created', n: 1 },
      { objectId: 'po_open', type: 'payout.created', n: 1 },
      { objectId: 'pr_done', type: 'payroll_run.created', n: 1 },
      { objectId: 'pr_done', type: 'payroll_run.completed', n: 1 },
      { objectId: 'sub_gone', type: 'subscription.created', n: 1 },
      { objectId: 'sub_gone', type: 'subscription.cancelled', n: 1 },
    ],
    statuses: {
      payment: [
        { id: 'pay_settled', status: 'settled' },
        { id: 'pay_bank', status: 'settled' },
        { id: 'pay_open', status: 'awaiting' },
      ],
      payout: [
        { id: 'po_settled', status: 'settled' },
        { id: 'po_open', status: 'awaiting_funds' },
      ],
      payroll_run: [{ id: 'pr_done', status: 'completed' }],
      subscription: [{ id: 'sub_gone', status: 'cancelled' }],
    },
    deliveries: {
      rows: [{ endpointId: 'we_fast', eventId: 'evt_1', n: 1 }],
      okAttempts: [{ deliveryId: 'wd_1', n: 1 }],
      succeeded: 1,
      // Seen twice: the first attempt failed (recorded), the second succeeded: at least once, allowed.
      receipts: [{ endpoint: 'fast', eventId: 'evt_1', received: 2, attempts: 2, okAttempts: 1 }],
    },
    running: ['pay_open', 'po_open', 'po_processing'],
    known: new Set(['pay_settled', 'pay_bank', 'pay_open', 'po_settled', 'po_open', 'po_processing', 'pr_done', 'sub_gone']),
  };
}
