/**
 * Chain indexer (spec 4.8 `POST /traces`, `GET /transactions/{chain}/{hash}`): lookups
 * over the chains the sandbox keeps a ledger for (the sandbox chain and the bridged networks),
 * fed by `/sim/chain/transfers` like every other chain read. Amounts in minor units of the asset.
 */
import { db } from '../lib/db';
import { chainAdapter } from './chain';

/** A transfer as the indexer reports it; `block` is the ledger sequence (one transfer per block), null while pending. */
export interface IndexedTransfer {
  chain: string;
  asset: string;
  from_address: string | null;
  to_address: string;
  amount: bigint;
  decimals: number;
  tx_hash: string;
  block: number | null;
  at: Date;
  status: 'confirmed' | 'pending';
}

interface Row {
  seq: string | null;
  chain: string;
  asset: string;
  from_address: string | null;
  to_address: string;
  amount_minor: string;
  decimals: number;
  tx_hash: string;
  created_at: Date;
}
const toTransfer = (r: Row, status: 'confirmed' | 'pending'): IndexedTransfer => ({
  chain: r.chain,
  asset: r.asset,
  from_address: r.from_address,
  to_address: r.to_address,
  amount: BigInt(r.amount_minor),
  decimals: r.decimals,
  tx_hash: r.tx_hash,
  block: r.seq === null ? null : Number(r.seq),
  at: r.created_at,
  status,
});

/** The chains the indexer covers. */
export function indexedChains(extra: readonly string[]): string[] {
  return [chainAdapter().chain, ...extra];
}

/** The transfer `hash` on `chain` (any case): mined, else pending in the mempool, else null. */
export async function indexedTransaction(chain: string, hash: string): Promise<IndexedTransfer | null> {
  const mined: Row[] = await db().query(
    'SELECT seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_transfers WHERE chain = $1 AND lower(tx_hash) = lower($2)',
    [chain, hash],
  );
  if (mined[0]) return toTransfer(mined[0], 'confirmed');
  const pending: Row[] = await db().query(
    'SELECT NULL AS seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_mempool WHERE chain = $1 AND lower(tx_hash) = lower($2)',
    [chain, hash],
  );
  return pending[0] ? toTransfer(pending[0], 'pending') : null;
}

/** Mined transfers touching `address` on `chain` in `direction`, oldest first, at most `limit`. */
export async function transfersOf(
  chain: string,
  address: string,
  direction: 'incoming' | 'outgoing',
  limit: number,
): Promise<IndexedTransfer[]> {
  const col = direction === 'incoming' ? 'to_address' : 'from_address';
  const rows: Row[] = await db().query(
    `SELECT seq, chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, created_at FROM sandbox_chain_transfers
      WHERE chain = $1 AND lower(${col}) = lower($2) ORDER BY seq LIMIT $3`,
    [chain, address, limit],
  );
  return rows.map((r) => toTransfer(r, 'confirmed'));
}

/** The newest block of `chain` (0 before any transfer). */
export async function headBlockOf(chain: string): Promise<number> {
  const rows: Array<{ head: string | null }> = await db().query(
    'SELECT max(seq)::text AS head FROM sandbox_chain_transfers WHERE chain = $1',
    [chain],
  );
  return Number(rows[0]?.head ?? 0);
}
