/**
 * Order execution at the quote providers (ARCHITECTURE.md "providers/"; spec 2.10, 4.9): place an
 * order for an offer (idempotent by our `ord_` id), read its state, cancel it. The sandbox keeps
 * each provider's orders in `sandbox_provider_orders`; the outside world plays the provider
 * through `POST /sim/providers/orders/{ord_id}` `{ action }` (`authorize`, `capture`, `fail`,
 * `refund`, `complete`), which moves the row as the provider would and returns its report.
 *
 * How each order is paid: a buy by `card` or `apple_pay` opens a hosted checkout (30 minutes; in
 * the sandbox a product-served page on the payer host, `<PAYER_HOST>/sandbox/orders/<prv_ id>`,
 * api/pages/sandbox/, whose buttons play the provider like the simulator); a
 * buy by `bank_transfer`, `pix` or `spei` gets the provider's receiving details (full, with a
 * reference); a sell or a swap gets a deposit address on its network. Sandbox rules: with fault
 * `orders.<provider>.unavailable` = `true` the provider's order API is out (placing or cancelling
 * throws `ProviderUnavailable`); the native fiat provider refuses to cancel an order on a rail
 * with no recall (`wire`, `pix`, `spei`: money may already be in flight).
 */
import crypto from 'node:crypto';
import { base58 } from '@scure/base';
import type { OrderFailureKind, ProviderOrderReport } from '../domain/orders';
import { loadConfig } from '../lib/config';
import { db } from '../lib/db';
import { instructionsFor, type BankInstructions } from './bank-collection';
import { deriveAddress } from './chain';
import { faultValue, type FaultName } from './sandbox-faults';
import { quoteProvider } from './quote-providers';
import { NO_RECALL_RAILS } from './sandbox-values';
import { instrumentProvider } from '../lib/metrics';

/** The provider's order API is out: retry later (`503 temporarily_unavailable` on the wire). */
export class ProviderUnavailable extends Error {
  constructor(provider: string) {
    super(`${provider}: order API unavailable`);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider refused to cancel (`409 cancel_unavailable` on the wire). */
export class CancelRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CancelRefused';
  }
}

export interface PlaceOrderInput {
  /** Our order id: the idempotency key (the same id never places two orders). */
  orderId: string;
  accountId: string;
  provider: string;
  side: 'buy' | 'sell' | 'swap';
  paymentMethod: string;
  fromAsset: string;
  toAsset: string;
  network: string | null;
  /** What the payer pays, minor units of fromAsset. */
  finalInMinor: bigint;
  fromDecimals: number;
}

export interface PlacedOrder {
  providerOrderId: string;
  /** The rail the payment is observed on (bank methods). */
  paymentRail: string | null;
  checkout: { url: string; expiresAt: Date } | null;
  bankInstructions: BankInstructions | null;
  deposit: { address: string; chain: string; asset: string; amountMinor: bigint; decimals: number; expiresAt: Date } | null;
}

const CHECKOUT_TTL_MS = 30 * 60_000;
const DEPOSIT_TTL_MS = 60 * 60_000;
const RAIL_OF_CURRENCY: Record<string, string> = { USD: 'ach', EUR: 'sepa', GBP: 'faster_payments', BRL: 'pix', MXN: 'spei' };
const NO_RECALL = new Set<string>(NO_RECALL_RAILS);

interface Row {
  id: string;
  provider: string;
  order_id: string;
  state: ProviderOrderReport['state'];
  captured: boolean;
  payment_rail: string | null;
  failure_kind: OrderFailureKind | null;
  provider_reason: string | null;
  delivery_tx_hash: string | null;
  placement: PlacedOrder;
}

async function assertUp(accountId: string, provider: string): Promise<void> {
  if ((await faultValue(accountId, `orders.${provider}.unavailable` as FaultName)) === 'true') throw new ProviderUnavailable(provider);
}

function depositAddress(network: string, seed: string): string {
  if (network === 'solana') return base58.encode(crypto.createHash('sha256').update(`sol:${seed}`).digest());
  return deriveAddress(`order-deposit:${seed}`);
}

/** What the provider answers when the order is placed (deterministic from the order id). */
function placementOf(i: PlaceOrderInput, providerOrderId: string, now: number): PlacedOrder {
  const native = quoteProvider(i.provider)?.native === true;
  if (i.side === 'buy' && (i.paymentMethod === 'card' || i.paymentMethod === 'apple_pay')) {
    return {
      providerOrderId,
      paymentRail: null,
      bankInstructions: null,
      deposit: null,
      checkout: { url: `${loadConfig().payerHost}/sandbox/orders/${providerOrderId}`, expiresAt: new Date(now + CHECKOUT_TTL_MS) },
    };
  }
  if (i.side === 'buy') {
    const rail = i.paymentMethod === 'pix' ? 'pix' : i.paymentMethod === 'spei' ? 'spei' : (RAIL_OF_CURRENCY[i.fromAsset] ?? 'wire');
    const holder = native ? 'Payments Platform Collections' : `${quoteProvider(i.provider)?.name ?? i.provider} Payments`;
    const { i: instructions } = instructionsFor(rail, i.fromAsset, `order:${i.orderId}`, holder);
    return {
      providerOrderId,
      paymentRail: native ? rail : null,
      checkout: null,
      deposit: null,
      bankInstructions: { ...instructions, amount: i.finalInMinor.toString(), decimals: String(i.fromDecimals) },
    };
  }
  const network = i.network ?? 'ethereum';
  return {
    providerOrderId,
    paymentRail: null,
    checkout: null,
    bankInstructions: null,
    deposit: {
      address: depositAddress(network, `${i.provider}:${i.orderId}`),
      chain: network,
      asset: i.fromAsset,
      amountMinor: i.finalInMinor,
      decimals: i.fromDecimals,
      expiresAt: new Date(now + DEPOSIT_TTL_MS),
    },
  };
}

const reviveDates = (p: PlacedOrder): PlacedOrder => ({
  ...p,
  checkout: p.checkout ? { ...p.checkout, expiresAt: new Date(p.checkout.expiresAt) } : null,
  deposit: p.deposit ? { ...p.deposit, amountMinor: BigInt(p.deposit.amountMinor), expiresAt: new Date(p.deposit.expiresAt) } : null,
});

/** Sandbox order execution, backed by PostgreSQL. */
export class SandboxOrderProviders {
  /** Places the order (idempotent by `orderId`). Throws ProviderUnavailable under the outage fault. */
  async place(placeOrderInput: PlaceOrderInput): Promise<PlacedOrder> {
    await assertUp(placeOrderInput.accountId, placeOrderInput.provider);
    const id = `prv_${crypto.createHash('sha256').update(`${placeOrderInput.provider}:${placeOrderInput.orderId}`).digest('hex').slice(0, 24)}`;
    const placement = placementOf(placeOrderInput, id, Date.now());
    const serialised = JSON.parse(JSON.stringify(placement, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    await db().query(
      `INSERT INTO sandbox_provider_orders (id, provider, order_id, account_id, state, payment_rail, placement)
      VALUES ($1, $2, $3, $4, 'awaiting_payment', $5, $6) ON CONFLICT (order_id) DO NOTHING`,
      [id, placeOrderInput.provider, placeOrderInput.orderId, placeOrderInput.accountId, placement.paymentRail, serialised],
    );
    const rows: Row[] = await db().query('SELECT * FROM sandbox_provider_orders WHERE order_id = $1', [placeOrderInput.orderId]);
    return reviveDates(rows[0].placement);
  }

  /** The hosted checkout page's read of provider order `providerOrderId` (`prv_...`): our order id, the provider, its report and placement; null when unknown. */
  async byProviderOrderId(
    providerOrderId: string,
  ): Promise<{ orderId: string; provider: string; report: ProviderOrderReport; placement: PlacedOrder } | null> {
    const rows: Row[] = await db().query('SELECT * FROM sandbox_provider_orders WHERE id = $1', [providerOrderId]);
    const r = rows[0];
    if (!r) return null;
    return {
      orderId: r.order_id,
      provider: r.provider,
      placement: reviveDates(r.placement),
      report: {
        state: r.state,
        failureKind: r.failure_kind,
        providerReason: r.provider_reason,
        captured: r.captured,
        deliveryTxHash: r.delivery_tx_hash,
      },
    };
  }

  /** The provider's report of the order placed for `orderId`, or null when it placed none. */
  async report(orderId: string): Promise<ProviderOrderReport | null> {
    const rows: Row[] = await db().query('SELECT * FROM sandbox_provider_orders WHERE order_id = $1', [orderId]);
    const r = rows[0];
    if (!r) return null;
    return {
      state: r.state,
      failureKind: r.failure_kind,
      providerReason: r.provider_reason,
      captured: r.captured,
      deliveryTxHash: r.delivery_tx_hash,
    };
  }

  /**
   * Cancels the order placed for `orderId` (idempotent: a cancelled order stays cancelled).
   * Throws ProviderUnavailable (outage fault), CancelRefused (the native provider on a rail with
   * no recall, or money already moved at the provider).
   */
  async cancel(orderId: string, accountId: string): Promise<ProviderOrderReport> {
    const rows: Row[] = await db().query('SELECT * FROM sandbox_provider_orders WHERE order_id = $1', [orderId]);
    const r = rows[0];
    if (!r) throw new CancelRefused('The provider has no such order.');
    await assertUp(accountId, r.provider);
    if (quoteProvider(r.provider)?.native && r.payment_rail && NO_RECALL.has(r.payment_rail)) {
      throw new CancelRefused(`The native fiat provider cannot cancel an order on ${r.payment_rail}: a payment may already be in flight.`);
    }
    if (r.state !== 'awaiting_payment' && r.state !== 'cancelled') throw new CancelRefused(`The provider's order is ${r.state}.`);
    await db().query(
      `UPDATE sandbox_provider_orders SET state = 'cancelled', updated_at = now() WHERE order_id = $1 AND state = 'awaiting_payment'`,
      [orderId],
    );
    return (await this.report(orderId))!;
  }

  /** The checkout or deposit window closed unpaid: the provider expires the order (no-op once money moved). */
  async expire(orderId: string): Promise<ProviderOrderReport | null> {
    await db().query(
      `UPDATE sandbox_provider_orders SET state = 'expired', updated_at = now() WHERE order_id = $1 AND state IN ('awaiting_payment', 'authorized')`,
      [orderId],
    );
    return this.report(orderId);
  }

  /**
   * Plays the provider (simulator): `authorize` (a card hold), `capture` (money taken or received),
   * `complete` (delivered; a crypto delivery gets a tx hash), `fail` (with a normalized kind and
   * the provider's text), `refund` (money given back, with the provider's text). Returns the report,
   * or a refusal text when the action does not apply to the order's state.
   */
  async act(
    orderId: string,
    action: 'authorize' | 'capture' | 'fail' | 'refund' | 'complete',
    opts: { failureKind?: OrderFailureKind; reason?: string },
  ): Promise<ProviderOrderReport | string | null> {
    const allowed: Record<typeof action, string[]> = {
      authorize: ['awaiting_payment'],
      capture: ['awaiting_payment', 'authorized'],
      complete: ['captured'],
      fail: ['awaiting_payment', 'authorized', 'captured'],
      refund: ['captured', 'completed', 'failed'],
    };
    const rows: Row[] = await db().query('SELECT * FROM sandbox_provider_orders WHERE order_id = $1', [orderId]);
    const r = rows[0];
    if (!r) return null;
    if (!allowed[action].includes(r.state) || (action === 'refund' && !r.captured))
      return `Cannot ${action} a provider order that is ${r.state}${action === 'refund' ? (r.captured ? '' : ' without captured money') : ''}.`;
    const next = { authorize: 'authorized', capture: 'captured', complete: 'completed', fail: 'failed', refund: 'refunded' }[action];
    const tx = action === 'complete' ? `0x${crypto.createHash('sha256').update(`order-delivery:${orderId}`).digest('hex')}` : null;
    await db().query(
      `UPDATE sandbox_provider_orders SET state = $2, captured = captured OR $3, failure_kind = COALESCE($4, failure_kind),
      provider_reason = COALESCE($5, provider_reason), delivery_tx_hash = COALESCE($6, delivery_tx_hash), updated_at = now() WHERE order_id = $1`,
      [
        orderId,
        next,
        action === 'capture',
        action === 'fail' ? (opts.failureKind ?? 'payment_declined') : null,
        opts.reason ??
          (action === 'refund' ? "Refunded at the buyer's request" : action === 'fail' ? 'Card issuer declined (sandbox)' : null),
        tx,
      ],
    );
    return this.report(orderId);
  }
}

let instance: SandboxOrderProviders | null = null;

/** The process's order-provider adapter. */
export function orderProviders(): SandboxOrderProviders {
  instance ??= instrumentProvider('order_providers', new SandboxOrderProviders());
  return instance;
}
