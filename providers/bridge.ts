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
  id: string; state: BridgeTransfer['state']; source_chain: string; source_asset: string; deposit_address: string;
  deposit_message: string; refund_address: string | null; refund_tx_hash: string | null;
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
      [id, input.idempotencyKey, input.clientReference, input.sourceChain, input.sourceAsset,
        deriveAddress(`bridge:${input.sourceChain}:${id}`), `BRG-${crypto.createHash('sha256').update(id).digest('hex').slice(0, 10).toUpperCase()}`,
        input.destinationRail, input.destinationCurrency]);
    const delay = Number(await faultValue(input.accountId, 'bridge.create_delay_ms') ?? '0');
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
    await db().query(`UPDATE sandbox_bridge_transfers SET state = 'cancelled', updated_at = now() WHERE id = $1 AND state = 'awaiting_funds'`, [id]);
    return this.getTransfer(id);
  }

  async refund(id: string, to: { chain: string; address: string }, amount: bigint, idempotencyKey: string): Promise<string> {
    const t = await this.getTransfer(id);
    const tx = await chainAdapter().transferOn(to.chain, this.treasury, to.address, t.source_asset, amount, `bridge-refund:${idempotencyKey}`);
    await db().query(`UPDATE sandbox_bridge_transfers SET state = 'refunded', refund_address = $2, refund_tx_hash = $3, updated_at = now() WHERE id = $1`,
      [id, to.address, tx]);
    return tx;
  }

  /** The newest 100 transfers, optionally only those of `clientReference` (the simulator's read; raw rows). */
  async recorded(clientReference: string | null): Promise<Array<Record<string, unknown>>> {
    return db().query(
      `SELECT id, idempotency_key, client_reference, source_chain, deposit_address, state, created_at FROM sandbox_bridge_transfers
        WHERE ($1::text IS NULL OR client_reference = $1) ORDER BY created_at DESC LIMIT 100`, [clientReference]);
  }

  private async withReceived(r: Row): Promise<BridgeTransfer> {
    const rows: Array<{ s: string }> = await db().query(
      `SELECT COALESCE(SUM(amount_minor), 0)::text AS s FROM sandbox_chain_transfers
        WHERE chain = $1 AND asset = $2 AND lower(to_address) = lower($3)`, [r.source_chain, r.source_asset, r.deposit_address]);
    const received = BigInt(rows[0].s);
    const state = r.state === 'awaiting_funds' && received > 0n ? 'funds_received' : r.state;
    return {
      id: r.id, state, source_chain: r.source_chain, source_asset: r.source_asset, deposit_address: r.deposit_address,
      deposit_message: r.deposit_message, received, refund_address: r.refund_address, refund_tx_hash: r.refund_tx_hash,
    };
  }
}

let bridge: SandboxBridge | null = null;

/** The process's bridge adapter (sandbox). */
export function bridgeAdapter(): SandboxBridge {
  if (!bridge) bridge = new SandboxBridge();
  return bridge;
}
