/**
 * Wallet transactions (spec 4.5, 2.5; issue 14): the USDC transfers into and out of the account's
 * active wallet on this network, read from the chain adapter (`/sim/chain/transfers` feeds the
 * sandbox chain). Never a client-supplied address; a failed chain read is `503
 * temporarily_unavailable` (`chain_unavailable`), never an empty history. Amounts are bigint minor
 * units of the stablecoin (6 decimals).
 */
import { DomainError, invalidRequest, notFound, temporarilyUnavailable } from '../../domain/errors';
import { decodeCursor, encodeCursor, parseLimit } from '../../domain/pagination';
import { Wallet } from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { chainAdapter, type ChainTransaction } from '../../providers/chain';

/** A transaction of the wallet with what the chain says about it now. */
export interface WalletTransaction { wallet: Wallet; tx: ChainTransaction; direction: 'incoming' | 'outgoing'; confirmations: number }

/** The account's active wallet on this network; 404 `wallet_not_found` when it has none. */
export async function activeWallet(accountId: string): Promise<Wallet> {
  const w = await db().getRepository(Wallet).findOneBy({ account_id: accountId, network: chainAdapter().network, status: 'active' });
  if (!w) throw new DomainError('not_found', 'wallet_not_found', 'This account has no wallet on this network yet.');
  return w;
}

/** Runs a chain read for wallet `walletId`; any failure is 503 `chain_unavailable` (an error is never shown as "no transactions"). */
export async function chainRead<T>(walletId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    logger.error({ err: e, wallet_id: walletId }, 'wallet transaction read failed');
    throw temporarilyUnavailable('chain_unavailable', 'The wallet transactions could not be read from the chain right now. Retry later.');
  }
}

const lower = (s: string | null) => (s ?? '').toLowerCase();

function asWalletTx(w: Wallet, tx: ChainTransaction, head: number): WalletTransaction {
  return { wallet: w, tx, direction: lower(tx.to_address) === lower(w.address) ? 'incoming' : 'outgoing', confirmations: Math.max(1, head - tx.block + 1) };
}

/**
 * `GET /wallet/transactions`: the wallet's stablecoin transfers, newest first (`limit`, `cursor`
 * of the previous page's last item). `confirmations` = head block - the transfer's block + 1.
 * 400 `cursor_invalid` for a cursor this list did not issue.
 */
export async function walletTransactions(accountId: string, query: { limit?: unknown; cursor?: unknown }): Promise<{ data: WalletTransaction[]; has_more: boolean; next_cursor: string | null }> {
  const w = await activeWallet(accountId);
  const limit = parseLimit(query.limit);
  let beforeBlock: number | undefined;
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    const block = c && /^b[0-9]{1,18}$/.test(c.id) ? Number(c.id.slice(1)) : NaN;
    if (!Number.isSafeInteger(block)) throw invalidRequest('cursor_invalid', 'The cursor is not valid for this list.', 'cursor');
    beforeBlock = block;
  }
  const chain = chainAdapter();
  const [rows, head] = await chainRead(w.id, () => Promise.all([chain.history(w.address, chain.stablecoin, { limit: limit + 1, beforeBlock }), chain.headBlock()]));
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = rows.length > limit;
  return {
    data: page.map((tx) => asWalletTx(w, tx, head)),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.at.toISOString(), id: `b${last.block}` }) : null,
  };
}

/** `GET /wallet/transactions/{hash}`: one transfer of the wallet; 404 when unknown or not the wallet's (any other wallet's transfer included). */
export async function walletTransaction(accountId: string, hash: string): Promise<WalletTransaction> {
  const w = await activeWallet(accountId);
  const chain = chainAdapter();
  const [tx, head] = await chainRead(w.id, () => Promise.all([chain.transaction(hash), chain.headBlock()]));
  if (!tx || tx.asset !== chain.stablecoin || (lower(tx.to_address) !== lower(w.address) && lower(tx.from_address) !== lower(w.address))) {
    throw notFound(`No transaction ${hash} of this wallet.`, 'hash');
  }
  return asWalletTx(w, tx, head);
}
