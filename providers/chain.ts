/**
 * Chain adapter (ARCHITECTURE.md "Simulator"; spec 2.4, 2.5): deposit addresses, balances,
 * transfers and the watcher that reports transfers to watched addresses. The sandbox keeps the
 * chain's ledger in `sandbox_chain_transfers`; `/sim/chain/transfers` injects transfers into it
 * exactly as the outside world would, and the adapter reports them to its observers as a real
 * chain watcher would. Workflows never know which implementation runs.
 */
import crypto from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { getAddress } from 'viem';
import { loadConfig } from '../lib/config';
import { db } from '../lib/db';
import { instrumentProvider } from '../lib/metrics';

export interface ObservedTransfer {
  chain: string;
  asset: string;
  from_address: string | null;
  to_address: string;
  /** Minor units of `asset` (USDC: 6 decimals). */
  amount: bigint;
  decimals: number;
  tx_hash: string;
}

/** A transfer as the chain's history reports it: its block (the sandbox mines one transfer per block) and time. */
export interface ChainTransaction extends ObservedTransfer {
  block: number;
  at: Date;
}

export interface ChainAdapter {
  readonly chain: string;
  readonly network: 'mainnet' | 'testnet';
  readonly chainId: number;
  /** Settlement stablecoin symbol on this network (USDC.e on mainnet, USDC on the test network). */
  readonly stablecoin: string;
  readonly tokenAddress: string;
  /** A fresh deposit address owned by the service, derived from `seed` (e.g. a payment id). */
  depositAddress(seed: string): string;
  /** Balance of `address` in minor units of `asset`; throws on read failure (never a zero by default). */
  balanceOf(address: string, asset: string): Promise<bigint>;
  /** Sends `amount` from a service-controlled address; idempotent by `idempotencyKey`; returns the tx hash. */
  send(from: string, to: string, asset: string, amount: bigint, idempotencyKey: string): Promise<string>;
  /** Registers a watcher callback for transfers (sandbox: called after each injected transfer). */
  onTransfer(listener: (t: ObservedTransfer) => Promise<void>): void;
}

const CHAIN = 'tempo';

/** Deterministic sandbox chain backed by PostgreSQL. */
export class SandboxChain implements ChainAdapter {
  readonly chain = CHAIN;
  readonly network: 'mainnet' | 'testnet';
  readonly chainId: number;
  readonly stablecoin: string;
  readonly tokenAddress: string;
  private listeners: Array<(t: ObservedTransfer) => Promise<void>> = [];

  constructor(network: 'mainnet' | 'testnet') {
    this.network = network;
    this.chainId = network === 'mainnet' ? 4217 : 42429;
    this.stablecoin = network === 'mainnet' ? 'USDC.e' : 'USDC';
    this.tokenAddress = deriveAddress(`token:${network}:${this.stablecoin}`);
  }

  depositAddress(seed: string): string {
    return deriveAddress(`deposit:${this.network}:${seed}`);
  }

  /** The token contract of `asset` on this chain (the stablecoin's, or a sandbox token's derived address). */
  tokenAddressOf(asset: string): string {
    return asset === this.stablecoin ? this.tokenAddress : deriveAddress(`token:${this.network}:${asset}`);
  }

  async balanceOf(address: string, asset: string): Promise<bigint> {
    const rows: Array<{ bal: string }> = await db().query(
      `SELECT (COALESCE(SUM(amount_minor) FILTER (WHERE lower(to_address) = lower($1)), 0)
             - COALESCE(SUM(amount_minor) FILTER (WHERE lower(from_address) = lower($1)), 0))::text AS bal
         FROM sandbox_chain_transfers WHERE chain = $2 AND asset = $3 AND (lower(to_address) = lower($1) OR lower(from_address) = lower($1))`,
      [address, this.chain, asset],
    );
    return BigInt(rows[0]?.bal ?? '0');
  }

  async send(from: string, to: string, asset: string, amount: bigint, idempotencyKey: string): Promise<string> {
    const t = await this.record(
      { chain: this.chain, asset, from_address: from, to_address: to, amount, decimals: 6, tx_hash: txHash(`send:${idempotencyKey}`) },
      idempotencyKey,
    );
    return t.tx_hash;
  }

  onTransfer(listener: (t: ObservedTransfer) => Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Every transfer of `asset` to `address` on `chainName` (address compared case-insensitively), oldest first. */
  async transfersTo(chainName: string, address: string, asset: string): Promise<ObservedTransfer[]> {
    const rows: Array<{
      chain: string;
      asset: string;
      from_address: string | null;
      to_address: string;
      amount_minor: string;
      decimals: number;
      tx_hash: string;
    }> = await db().query(
      `SELECT chain, asset, from_address, to_address, amount_minor, decimals, tx_hash FROM sandbox_chain_transfers
        WHERE chain = $1 AND lower(to_address) = lower($2) AND asset = $3 ORDER BY created_at, tx_hash`,
      [chainName, address, asset],
    );
    return rows.map((r) => ({
      chain: r.chain,
      asset: r.asset,
      from_address: r.from_address,
      to_address: r.to_address,
      amount: BigInt(r.amount_minor),
      decimals: r.decimals,
      tx_hash: r.tx_hash,
    }));
  }

  /**
   * Transfers of `asset` on this chain from or to `address` (case-insensitive), newest first, at
   * most `limit`, only blocks below `beforeBlock` when given. The sandbox mines one block per
   * recorded transfer, so a transfer's block is its ledger sequence number.
   */
  async history(address: string, asset: string, opts: { limit: number; beforeBlock?: number }): Promise<ChainTransaction[]> {
    const rows: TxRow[] = await db().query(
      `SELECT seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_transfers
        WHERE chain = $1 AND asset = $2 AND (lower(to_address) = lower($3) OR lower(from_address) = lower($3)) AND ($4::bigint IS NULL OR seq < $4)
        ORDER BY seq DESC LIMIT $5`,
      [this.chain, asset, address, opts.beforeBlock ?? null, opts.limit],
    );
    return rows.map(toTx);
  }

  /** The transfer with hash `hash` on this chain (any case), or null. */
  async transaction(hash: string): Promise<ChainTransaction | null> {
    const rows: TxRow[] = await db().query(
      `SELECT seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_transfers
        WHERE chain = $1 AND lower(tx_hash) = lower($2)`,
      [this.chain, hash],
    );
    return rows[0] ? toTx(rows[0]) : null;
  }

  /**
   * The transfer with hash `hash` (any case) on whichever chain the sandbox keeps a ledger for
   * (this chain or an EVM source chain), or null: how a watcher finds a transaction the holder
   * may have signed on the wrong chain.
   */
  async locate(hash: string): Promise<ChainTransaction | null> {
    const rows: TxRow[] = await db().query(
      `SELECT seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_transfers
        WHERE lower(tx_hash) = lower($1) ORDER BY (chain = $2) DESC LIMIT 1`,
      [hash, this.chain],
    );
    return rows[0] ? toTx(rows[0]) : null;
  }

  /** The newest block of this chain (0 before any transfer). */
  async headBlock(): Promise<number> {
    const rows: Array<{ head: string | null }> = await db().query(
      'SELECT max(seq)::text AS head FROM sandbox_chain_transfers WHERE chain = $1',
      [this.chain],
    );
    return Number(rows[0]?.head ?? 0);
  }

  /**
   * Broadcasts a transfer that is not confirmed yet (the sandbox's mempool, `sandbox_chain_mempool`):
   * not on the ledger, not in any balance, not reported to watchers until `confirm`. Idempotent by
   * tx hash; a fresh hash when none is given. Returns the pending transfer.
   */
  async broadcast(
    observedTransfer: Omit<ObservedTransfer, 'tx_hash' | 'from_address'> & { tx_hash?: string | null; from_address?: string | null },
  ): Promise<ObservedTransfer> {
    const full: ObservedTransfer = {
      ...observedTransfer,
      from_address: observedTransfer.from_address ?? null,
      tx_hash: observedTransfer.tx_hash ?? txHash(crypto.randomUUID()),
    };
    await db().query(
      `INSERT INTO sandbox_chain_mempool(tx_hash, chain, asset, from_address, to_address, amount_minor, decimals) VALUES ($1,$2,$3,$4,$5,$6,$7)
       ON CONFLICT (tx_hash) DO NOTHING`,
      [full.tx_hash, full.chain, full.asset, full.from_address, full.to_address, full.amount.toString(), full.decimals],
    );
    return full;
  }

  /** Confirms pending transfer `hash`: moves it from the mempool to the ledger and reports it. Null when no such pending transfer. */
  async confirm(hash: string): Promise<ObservedTransfer | null> {
    const rows: Array<{
      tx_hash: string;
      chain: string;
      asset: string;
      from_address: string | null;
      to_address: string;
      amount_minor: string;
      decimals: number;
    }> = await db().query('WITH d AS (DELETE FROM sandbox_chain_mempool WHERE lower(tx_hash) = lower($1) RETURNING *) SELECT * FROM d', [
      hash,
    ]);
    const r = rows[0];
    if (!r) return null;
    return this.inject({
      chain: r.chain,
      asset: r.asset,
      from_address: r.from_address,
      to_address: r.to_address,
      amount: BigInt(r.amount_minor),
      decimals: r.decimals,
      tx_hash: r.tx_hash,
    });
  }

  /** Broadcast but unconfirmed transfers to `address` on `chainName` (any case). */
  async pendingTo(chainName: string, address: string): Promise<ObservedTransfer[]> {
    const rows: Array<{
      tx_hash: string;
      chain: string;
      asset: string;
      from_address: string | null;
      to_address: string;
      amount_minor: string;
      decimals: number;
    }> = await db().query('SELECT * FROM sandbox_chain_mempool WHERE chain = $1 AND lower(to_address) = lower($2) ORDER BY created_at', [
      chainName,
      address,
    ]);
    return rows.map((r) => ({
      chain: r.chain,
      asset: r.asset,
      from_address: r.from_address,
      to_address: r.to_address,
      amount: BigInt(r.amount_minor),
      decimals: r.decimals,
      tx_hash: r.tx_hash,
    }));
  }

  /** Reports a transfer recorded elsewhere (in a caller's transaction) to the watchers. */
  async report(observedTransfer: ObservedTransfer): Promise<void> {
    for (const l of this.listeners) await l(observedTransfer);
  }

  /**
   * Sends `amount` of `asset` on `chainName` (this chain or an EVM source chain the sandbox keeps a
   * ledger for) from a service-controlled address; idempotent by `idempotencyKey`; returns the tx
   * hash. Reported to the watchers like any other transfer.
   */
  async transferOn(chainName: string, from: string, to: string, asset: string, amount: bigint, idempotencyKey: string): Promise<string> {
    const t = await this.record(
      {
        chain: chainName,
        asset,
        from_address: from,
        to_address: to,
        amount,
        decimals: 6,
        tx_hash: txHash(`send:${chainName}:${idempotencyKey}`),
      },
      idempotencyKey,
    );
    for (const l of this.listeners) await l(t);
    return t.tx_hash;
  }

  /**
   * Simulator entry: records a transfer on the sandbox ledger (idempotent by tx hash) and reports it
   * to the watchers. Returns the recorded transfer.
   */
  async inject(
    observedTransfer: Omit<ObservedTransfer, 'tx_hash' | 'from_address'> & { tx_hash?: string | null; from_address?: string | null },
  ): Promise<ObservedTransfer> {
    const full: ObservedTransfer = {
      ...observedTransfer,
      from_address: observedTransfer.from_address ?? null,
      tx_hash: observedTransfer.tx_hash ?? txHash(crypto.randomUUID()),
    };
    const rec = await this.record(full, null);
    for (const l of this.listeners) await l(rec);
    return rec;
  }

  private async record(t: ObservedTransfer, idempotencyKey: string | null, m?: EntityManager): Promise<ObservedTransfer> {
    const q = m ?? db().manager;
    await q.query(
      `INSERT INTO sandbox_chain_transfers(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, idempotency_key)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING`,
      [t.chain, t.asset, t.from_address, t.to_address, t.amount.toString(), t.decimals, t.tx_hash, idempotencyKey],
    );
    const rows: Array<{
      chain: string;
      asset: string;
      from_address: string | null;
      to_address: string;
      amount_minor: string;
      decimals: number;
      tx_hash: string;
    }> = await q.query(
      'SELECT chain, asset, from_address, to_address, amount_minor, decimals, tx_hash FROM sandbox_chain_transfers WHERE tx_hash = $1',
      [t.tx_hash],
    );
    const r = rows[0];
    return {
      chain: r.chain,
      asset: r.asset,
      from_address: r.from_address,
      to_address: r.to_address,
      amount: BigInt(r.amount_minor),
      decimals: r.decimals,
      tx_hash: r.tx_hash,
    };
  }
}

interface TxRow {
  seq: string;
  chain: string;
  asset: string;
  from_address: string | null;
  to_address: string;
  amount_minor: string;
  decimals: number;
  tx_hash: string;
  created_at: Date;
}

const toTx = (r: TxRow): ChainTransaction => ({
  chain: r.chain,
  asset: r.asset,
  from_address: r.from_address,
  to_address: r.to_address,
  amount: BigInt(r.amount_minor),
  decimals: r.decimals,
  tx_hash: r.tx_hash,
  block: Number(r.seq),
  at: r.created_at,
});

/** EIP-55 checksummed address derived from a label (sandbox only). */
export function deriveAddress(label: string): string {
  return getAddress(`0x${crypto.createHash('sha256').update(label).digest('hex').slice(0, 40)}`);
}

function txHash(label: string): string {
  return `0x${crypto.createHash('sha256').update(label).digest('hex')}`;
}

let chain: SandboxChain | null = null;

/** The process's chain adapter (sandbox on every network this build supports). */
export function chainAdapter(): SandboxChain {
  if (!chain) chain = instrumentProvider('chain', new SandboxChain(loadConfig().network));
  return chain;
}
