/**
 * What the payer's page reads (issue 22 part 1), and nothing more: the payer session projection
 * (views/payer-session.ts, spec 2.4) and the payer-safe view of the current attempt
 * (views/payment.ts `payerPaymentView`), loaded by the same queries as `GET /payment_sessions/{token}`.
 * The page never sees a row: it renders these wire projections, typed here.
 */
import type { Money } from '../../../domain/money';
import { linkByPayerToken, payerSessionInputs } from '../../../activities/payment-links/queries';
import { paymentChain } from '../../../activities/payments/queries';
import type { PaymentLink } from '../../../entities';
import { payerPaymentView } from '../../../views/payment';
import { payerSessionView } from '../../../views/payer-session';

/** The payer session projection (spec 2.4), as views/payer-session.ts spells it. */
export interface PayerSession {
  status: string;
  title: string | null;
  memo: string | null;
  invoice_number: string | null;
  reference_id: string | null;
  amount: Money;
  items: Array<{ name: string | null; quantity: number; unit_amount: Money | null }>;
  merchant_name: string;
  merchant_contact: { email: string | null; phone?: string | null; url: string | null } | null;
  short_code: string;
  rails: string[];
  expires_at: string | null;
  amount_verdict: string | null;
  watcher_state: string | null;
  current_payment_id: string | null;
  paid_at: string | null;
  settled_at: string | null;
  total_due: Money | null;
  amount_received: Money | null;
}

/** DepositInstructions (spec 2.1) of a crypto attempt. */
export interface DepositInstructions {
  address: string;
  chain: string | null;
  chain_id: number | null;
  network: string;
  asset: string | null;
  token_address: string | null;
  amount: Money | null;
  amount_out?: Money | null;
  bridge_fee?: Money | null;
  amount_is_estimate: boolean;
  quote_expires_at?: string | null;
  expires_at: string;
}

/** The payer-safe payment (spec 2.4, `payerPaymentView`). */
export interface PayerPayment {
  id: string;
  status: string;
  payment_rail: string;
  network: string | null;
  stablecoin: string | null;
  deposit_instructions: DepositInstructions | null;
  bank_deposit_instructions: Record<string, string | null> | null;
  amount_expected: Money;
  amount_received: Money;
  amount_verdict: string | null;
  return_reason: string | null;
  fee: Money | null;
  onchain_tx_hash: string | null;
  marked_sent_at: string | null;
  expires_at: string;
  paid_at: string | null;
  watcher_state?: string | null;
  watcher_reason?: string | null;
  refund_address?: string | null;
}

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
  const session = payerSessionView(inputs) as unknown as PayerSession;
  const payment = inputs.current ? (payerPaymentView(inputs.current, paymentChain()) as unknown as PayerPayment) : null;
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
export function stateKey(d: PayerPageData): string {
  const p = d.payment;
  return [d.session.status, p?.id ?? '', p?.status ?? '', p?.amount_received.amount ?? '', p?.watcher_state ?? '', p?.marked_sent_at ? 'sent' : '', p?.deposit_instructions?.quote_expires_at ?? ''].join('|');
}

/** `a - b` of two amounts of one currency (Money strings of bigint minor units); never below zero. */
export function remaining(expected: Money, received: Money): Money {
  const left = BigInt(expected.amount) - BigInt(received.amount);
  return { amount: (left > 0n ? left : 0n).toString(), currency: expected.currency, decimals: expected.decimals };
}
