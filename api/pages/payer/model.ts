/**
 * What the payer's page reads, and nothing more: the payer session projection
 * (views/payer-session.ts, spec 2.4) and the payer-safe view of the current attempt
 * (views/payment.ts `payerPaymentView`), loaded by the same queries as `GET /payment_sessions/{token}`.
 * The page never sees a row: it renders these wire projections, typed by the document (views/wire.ts).
 */
import type { Money } from '../../../domain/money';
import { linkByPayerToken, payerSessionInputs } from '../../../activities/payment-links/queries';
import { paymentChain } from '../../../activities/payments/queries';
import type { PaymentLink } from '../../../entities';
import { payerPaymentView, type PayerPayment } from '../../../views/payment';
import { payerSessionView, type PayerSession } from '../../../views/payer-session';

export type { DepositInstructions, PayerPayment } from '../../../views/payment';
export type { PayerSession } from '../../../views/payer-session';

/** Everything one render of the payer page needs. */
export interface PayerPageData {
  token: string;
  link: PaymentLink;
  session: PayerSession;
  payment: PayerPayment | null;
}

/** Loads the page of `token` (404 DomainError for an unknown, malformed or test-mode token, as the JSON route). */
export async function loadPayerPage(token: string): Promise<PayerPageData> {
  const link = await linkByPayerToken(token);
  return loadPayerPageOf(link, token);
}

/** Loads the page of an already resolved `link`. */
export async function loadPayerPageOf(link: PaymentLink, token: string): Promise<PayerPageData> {
  const inputs = await payerSessionInputs(link);
  const session = payerSessionView(inputs);
  const payment = inputs.current ? payerPaymentView(inputs.current, paymentChain()) : null;
  return { token, link: inputs.link, session, payment };
}

/** Payment statuses a payer can still pay into (send to the instructions shown). */
export const OPEN_PAYMENT_STATUSES: readonly string[] = ['awaiting', 'processing', 'funds_received', 'underpaid'];
/** Payment statuses that mean the money arrived in full. */
export const PAID_PAYMENT_STATUSES: readonly string[] = ['paid', 'settled', 'overpaid'];

/**
 * The state key of a render: the page refreshes its `<main>` when this changes (link status, the
 * attempt, its status, what was received, the watcher, the payer's claim).
 */
export function stateKey(payerPageData: PayerPageData): string {
  const p = payerPageData.payment;
  return [
    payerPageData.session.status,
    p?.id ?? '',
    p?.status ?? '',
    p?.amount_received.amount ?? '',
    p?.watcher_state ?? '',
    p?.marked_sent_at ? 'sent' : '',
    p?.deposit_instructions?.quote_expires_at ?? '',
  ].join('|');
}

/** `a - b` of two amounts of one currency (Money strings of bigint minor units); never below zero. */
export function remaining(expected: Money, received: Money): Money {
  const left = BigInt(expected.amount) - BigInt(received.amount);
  return { amount: (left > 0n ? left : 0n).toString(), currency: expected.currency, decimals: expected.decimals };
}
