/**
 * Bridge provider (ARCHITECTURE.md "providers/"): a USDC -> fiat transfer. The provider issues a
 * deposit address on the payer's source chain, observes the USDC arriving there, and can return
 * held funds to a refund address. Every create is idempotent by the caller's key (a retried call
 * returns the transfer the first call made, never a second one).
 *
 * The sandbox keeps transfers in `sandbox_bridge_transfers` and reads what arrived from the
 * sandbox chain ledger (`sandbox_chain_transfers`), which `/sim/chain/transfers` writes exactly as
 * the outside world would. Workflows never know which implementation runs.
 */
import crypto from 'node:crypto';
import { db } from '../lib/db';
import { newId } from '../lib/ids';
import { chainAdapter, deriveAddress } from './chain';
import { faultValue } from './sandbox-faults';
import { instrumentProvider } from '../lib/metrics';

/** A bridge transfer as the provider reports it. `received` in USDC minor units (6 decimals). */
export interface BridgeTransfer {
  id: string;
  state: 'awaiting_funds' | 'funds_received' | 'cancelled' | 'refunded';
  source_chain: string;
  source_asset: string;
  deposit_address: string;
  deposit_message: string;
  received: bigint;
  refund_address: string | null;
  refund_tx_hash: string | null;
}

export interface CreateBridgeTransfer {
  /** Provider idempotency key (the payout attempt id): at most one transfer per key. */
  idempotencyKey: string;
  /** Our reference the provider echoes (the payout id). */
  clientReference: string;
  /** The merchant the transfer is for (the provider's customer; sandbox faults are scoped to it). */
  accountId: string;
  sourceChain: string;
  sourceAsset: string;
  destinationRail: string;
  destinationCurrency: string;
}

/** Raised when the provider refuses an operation because money is moving (e.g. cancel after funds arrived). */
export class BridgeMoneyMovingError extends Error {
  override readonly name = 'BridgeMoneyMovingError';
}

export interface BridgeAdapter {
  createTransfer(input: CreateBridgeTransfer): Promise<BridgeTransfer>;
  getTransfer(id: string): Promise<BridgeTransfer>;
  /** Cancels a transfer with no funds; throws BridgeMoneyMovingError once funds arrived. Idempotent. */
  cancelTransfer(id: string): Promise<BridgeTransfer>;
  /** Returns `amount` of held USDC to `to` on `chain`; idempotent by `idempotencyKey`; returns the tx hash. */
  refund(id: string, to: { chain: string; address: string }, amount: bigint, idempotencyKey: string): Promise<string>;
}

interface Row {
  id: string;
  state: BridgeTransfer['state'];
  source_chain: string;
  source_asset: string;
  deposit_address: string;
  deposit_message: string;
  refund_address: string | null;
  refund_tx_hash: string | null;
}

/** Deterministic sandbox bridge backed by PostgreSQL. */
export class SandboxBridge implements BridgeAdapter {
  /** Treasury address the sandbox bridge returns funds from. */
  readonly treasury = deriveAddress('bridge:treasury');

  async createTransfer(input: CreateBridgeTransfer): Promise<BridgeTransfer> {
    const id = newId('btr_');
    await db().query(
      `INSERT INTO sandbox_bridge_transfers(id, idempotency_key, client_reference, source_chain, source_asset, deposit_address,
         deposit_message, destination_rail, destination_currency, state)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,'awaiting_funds') ON CONFLICT (idempotency_key) DO NOTHING`,
      [
        id,
        input.idempotencyKey,
        input.clientReference,
        input.sourceChain,
        input.sourceAsset,
        deriveAddress(`bridge:${input.sourceChain}:${id}`),
        `BRG-${crypto.createHash('sha256').update(id).digest('hex').slice(0, 10).toUpperCase()}`,
        input.destinationRail,
        input.destinationCurrency,
      ],
    );
    const delay = Number((await faultValue(input.accountId, 'bridge.create_delay_ms')) ?? '0');
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const rows: Row[] = await db().query('SELECT * FROM sandbox_bridge_transfers WHERE idempotency_key = $1', [input.idempotencyKey]);
    return this.withReceived(rows[0]);
  }

  async getTransfer(id: string): Promise<BridgeTransfer> {
    const rows: Row[] = await db().query('SELECT * FROM sandbox_bridge_transfers WHERE id = $1', [id]);
    if (!rows[0]) throw new Error(`bridge transfer ${id} not found`);
    return this.withReceived(rows[0]);
  }

  async cancelTransfer(id: string): Promise<BridgeTransfer> {
    const t = await this.getTransfer(id);
    if (t.state === 'cancelled') return t;
    if (t.received > 0n || t.state !== 'awaiting_funds') throw new BridgeMoneyMovingError(`bridge transfer ${id} holds funds`);
    await db().query(
      `UPDATE sandbox_bridge_transfers SET state = 'cancelled', updated_at = now() WHERE id = $1 AND state = 'awaiting_funds'`,
      [id],
    );
    return this.getTransfer(id);
  }

  async refund(id: string, to: { chain: string; address: string }, amount: bigint, idempotencyKey: string): Promise<string> {
    const t = await this.getTransfer(id);
    const tx = await chainAdapter().transferOn(
      to.chain,
      this.treasury,
      to.address,
      t.source_asset,
      amount,
      `bridge-refund:${idempotencyKey}`,
    );
    await db().query(
      `UPDATE sandbox_bridge_transfers SET state = 'refunded', refund_address = $2, refund_tx_hash = $3, updated_at = now() WHERE id = $1`,
      [id, to.address, tx],
    );
    return tx;
  }

  /** The newest 100 transfers, optionally only those of `clientReference` (the simulator's read; raw rows). */
  async recorded(clientReference: string | null): Promise<Array<Record<string, unknown>>> {
    return db().query(
      `SELECT id, idempotency_key, client_reference, source_chain, deposit_address, state, created_at FROM sandbox_bridge_transfers
        WHERE ($1::text IS NULL OR client_reference = $1) ORDER BY created_at DESC LIMIT 100`,
      [clientReference],
    );
  }

  private async withReceived(r: Row): Promise<BridgeTransfer> {
    const rows: Array<{ s: string }> = await db().query(
      `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM sandbox_chain_transfers
        WHERE chain = $1 AND asset = $2 AND lower(to_address) = lower($3)`,
      [r.source_chain, r.source_asset, r.deposit_address],
    );
    const received = BigInt(rows[0].s);
    const state = r.state === 'awaiting_funds' && received > 0n ? 'funds_received' : r.state;
    return {
      id: r.id,
      state,
      source_chain: r.source_chain,
      source_asset: r.source_asset,
      deposit_address: r.deposit_address,
      deposit_message: r.deposit_message,
      received,
      refund_address: r.refund_address,
      refund_tx_hash: r.refund_tx_hash,
    };
  }
}

/** A cross-network pay-in quote (spec 2.1): the bridge's fee for `network`, valid until `expiresAt`. */
export interface PayInQuote {
  fee: bigint;
  expiresAt: Date;
}

/** Input of `createPayIn`: one bridge transfer per payment (idempotent by `idempotencyKey`). */
export interface CreatePayIn {
  /** Provider idempotency key (the payment id). */
  idempotencyKey: string;
  /** Our reference the provider echoes (the payment id). */
  clientReference: string;
  sourceChain: string;
  sourceAsset: string;
  /** Where the bridge delivers on the native chain, in which asset. */
  destinationChain: string;
  destinationAddress: string;
  destinationAsset: string;
  /** The quoted fee the bridge keeps from the first delivery (minor units). */
  fee: bigint;
}

/**
 * What a pay-in transfer did when advanced: `awaiting_funds` (nothing on the source chain),
 * `in_flight` (held: confirmations or a delay), `delivered` (every received unit is covered by a
 * delivery), `failed`. `received` and `delivered` are running totals (minor units); `delivery` is
 * the transfer this call made on the destination chain, if any.
 */
export interface PayInProgress {
  state: 'awaiting_funds' | 'in_flight' | 'delivered' | 'failed';
  received: bigint;
  delivered: bigint;
  /** Source funds not (yet) covered by a delivery: what a failed bridge returns. */
  undelivered: bigint;
  delivery: { chain: string; asset: string; to_address: string; from_address: string; amount: bigint; tx_hash: string } | null;
}

/** Sandbox quote fees per source network (USDC minor units); documented in the README. */
export const SANDBOX_BRIDGE_FEES: Readonly<Record<string, bigint>> = Object.freeze({
  base: 100_000n,
  arbitrum: 150_000n,
  optimism: 150_000n,
  polygon: 50_000n,
  ethereum: 1_500_000n,
});

/** How long a sandbox pay-in quote holds. */
export const SANDBOX_QUOTE_TTL_MS = 15 * 60 * 1000;

interface PayInRow extends Row {
  kind: string;
  destination_chain: string;
  destination_address: string;
  destination_asset: string;
  fee_minor: string;
  covered_minor: string;
  delivered_minor: string;
  sim_state: 'auto' | 'delayed' | 'failed';
  client_reference: string;
}

/**
 * The cross-network pay-in side of the sandbox bridge (spec 2.4 watcher states): a deposit address
 * on the source chain, delivery of what arrives there (less the quoted fee, once) to the payment's
 * native-chain address, and the return of held funds to a refund address. The simulator forces a
 * transfer `delayed`, `failed`, or delivered with a chosen amount (`POST /sim/bridge/transfers/{id}`).
 */
export class SandboxPayInBridge {
  /** Treasury address the sandbox bridge delivers and returns from. */
  readonly treasury = deriveAddress('bridge:treasury');

  /** The quote for a pay-in from `network`. Throws for a network the bridge does not serve. */
  quote(network: string, now: Date): PayInQuote {
    const fee = SANDBOX_BRIDGE_FEES[network];
    if (fee === undefined) throw new Error(`the bridge does not serve ${network}`);
    return { fee, expiresAt: new Date(now.getTime() + SANDBOX_QUOTE_TTL_MS) };
  }

  /** Creates (or returns, same key) the pay-in transfer; returns its id and source-chain deposit address. */
  async createPayIn(input: CreatePayIn): Promise<{ id: string; deposit_address: string }> {
    const id = newId('btr_');
    await db().query(
      `INSERT INTO sandbox_bridge_transfers(id, idempotency_key, client_reference, source_chain, source_asset, deposit_address,
         deposit_message, destination_rail, destination_currency, state, kind, destination_chain, destination_address, destination_asset, fee_minor)
       VALUES ($1,$2,$3,$4,$5,$6,'', 'chain', $7, 'awaiting_funds', 'pay_in', $8, $9, $7, $10) ON CONFLICT (idempotency_key) DO NOTHING`,
      [
        id,
        input.idempotencyKey,
        input.clientReference,
        input.sourceChain,
        input.sourceAsset,
        deriveAddress(`bridge:${input.sourceChain}:${id}`),
        input.destinationAsset,
        input.destinationChain,
        input.destinationAddress,
        input.fee.toString(),
      ],
    );
    const rows: PayInRow[] = await db().query('SELECT * FROM sandbox_bridge_transfers WHERE idempotency_key = $1', [input.idempotencyKey]);
    return { id: rows[0].id, deposit_address: rows[0].deposit_address };
  }

  /**
   * Advances a pay-in transfer as the provider would on its own: with funds received and not
   * held (`auto`), delivers what is not yet covered (less the fee on the first delivery) to the
   * destination by an on-chain transfer (idempotent by the covered total). Returns the progress.
   */
  async advance(id: string): Promise<PayInProgress> {
    return this.deliver(id, null);
  }

  /**
   * Simulator: forces the transfer `delayed` (held until the next `delivered`), `failed`, or
   * `delivered` (released; with `deliveredAmount`, every received unit not yet covered is delivered
   * as exactly that amount, e.g. less than quoted). Returns the progress; null when no such transfer.
   */
  async simulate(
    idOrReference: string,
    state: 'delivered' | 'failed' | 'delayed',
    deliveredAmount: bigint | null,
  ): Promise<(PayInProgress & { id: string; client_reference: string }) | null> {
    const rows: PayInRow[] = await db().query(
      `SELECT * FROM sandbox_bridge_transfers WHERE kind = 'pay_in' AND (id = $1 OR client_reference = $1) ORDER BY created_at DESC LIMIT 1`,
      [idOrReference],
    );
    const r = rows[0];
    if (!r) return null;
    const sim = state === 'delivered' ? 'auto' : state;
    await db().query('UPDATE sandbox_bridge_transfers SET sim_state = $2, updated_at = now() WHERE id = $1', [r.id, sim]);
    const progress = state === 'delivered' ? await this.deliver(r.id, deliveredAmount) : await this.deliver(r.id, null);
    return { ...progress, id: r.id, client_reference: r.client_reference };
  }

  /**
   * A failed transfer: returns every received unit no delivery covered to `to` on the source chain
   * (idempotent by the received total) and marks it covered. Returns the return's tx hash and
   * amount, or null when nothing was held.
   */
  async returnUndelivered(id: string, to: string): Promise<{ tx_hash: string; amount: bigint } | null> {
    const r = await this.row(id);
    const received = await this.received(r);
    const covered = BigInt(r.covered_minor);
    if (received <= covered) return null;
    const tx = await chainAdapter().transferOn(
      r.source_chain,
      this.treasury,
      to,
      r.source_asset,
      received - covered,
      `bridge-return-failed:${id}:${received}`,
    );
    await db().query(`UPDATE sandbox_bridge_transfers SET covered_minor = $2, updated_at = now() WHERE id = $1 AND covered_minor = $3`, [
      id,
      received.toString(),
      covered.toString(),
    ]);
    return { tx_hash: tx, amount: received - covered };
  }

  /** Returns `amount` of held source funds to `to` on the source chain; idempotent by `idempotencyKey`; returns the tx hash. */
  async returnFunds(id: string, to: string, amount: bigint, idempotencyKey: string): Promise<string> {
    const r = await this.row(id);
    return chainAdapter().transferOn(r.source_chain, this.treasury, to, r.source_asset, amount, `bridge-return:${idempotencyKey}`);
  }

  private async row(id: string): Promise<PayInRow> {
    const rows: PayInRow[] = await db().query(`SELECT * FROM sandbox_bridge_transfers WHERE id = $1 AND kind = 'pay_in'`, [id]);
    if (!rows[0]) throw new Error(`bridge pay-in ${id} not found`);
    return rows[0];
  }

  /** What reached the transfer's source address (the sandbox chain ledger). */
  private async received(r: PayInRow): Promise<bigint> {
    const sum: Array<{ s: string }> = await db().query(
      `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM sandbox_chain_transfers WHERE chain = $1 AND asset = $2 AND lower(to_address) = lower($3)`,
      [r.source_chain, r.source_asset, r.deposit_address],
    );
    return BigInt(sum[0].s);
  }

  private async deliver(id: string, forced: bigint | null): Promise<PayInProgress> {
    const r = await this.row(id);
    const received = await this.received(r);
    const covered = BigInt(r.covered_minor);
    const delivered = BigInt(r.delivered_minor);
    const base = { received, delivered, undelivered: received - covered, delivery: null };
    if (r.sim_state === 'failed') return { ...base, state: 'failed' };
    if (received === 0n) return { ...base, state: 'awaiting_funds' };
    if (r.sim_state === 'delayed') return { ...base, state: 'in_flight' };
    if (received === covered) return { ...base, state: 'delivered' };
    const fee = covered === 0n ? BigInt(r.fee_minor) : 0n;
    const amount = forced ?? (received - covered > fee ? received - covered - fee : 0n);
    let delivery: PayInProgress['delivery'] = null;
    if (amount > 0n) {
      const tx = await chainAdapter().transferOn(
        r.destination_chain,
        this.treasury,
        r.destination_address,
        r.destination_asset,
        amount,
        `bridge-deliver:${id}:${received}`,
      );
      delivery = {
        chain: r.destination_chain,
        asset: r.destination_asset,
        to_address: r.destination_address,
        from_address: this.treasury,
        amount,
        tx_hash: tx,
      };
    }
    await db().query(
      `UPDATE sandbox_bridge_transfers SET covered_minor = $2, delivered_minor = delivered_minor + $3, state = 'funds_received', updated_at = now()
        WHERE id = $1 AND covered_minor = $4`,
      [id, received.toString(), amount.toString(), covered.toString()],
    );
    return { state: 'delivered', received, delivered: delivered + amount, undelivered: 0n, delivery };
  }
}

let payInBridge: SandboxPayInBridge | null = null;

/** The process's pay-in bridge adapter (sandbox). */
export function payInBridgeAdapter(): SandboxPayInBridge {
  if (!payInBridge) payInBridge = instrumentProvider('pay_in_bridge', new SandboxPayInBridge());
  return payInBridge;
}

let bridge: SandboxBridge | null = null;

/** The process's bridge adapter (sandbox). */
export function bridgeAdapter(): SandboxBridge {
  if (!bridge) bridge = instrumentProvider('bridge', new SandboxBridge());
  return bridge;
}
