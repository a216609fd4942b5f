/**
 * The wallet's reads for the routes (spec 2.5, 4.5): the account's wallets and the active one's live
 * balance (503 `balance_unavailable`), its chain transactions (503 `chain_unavailable`, never an
 * empty history), and its external bank accounts. Another account's (or mode's) object is 404:
 * every lookup for a caller takes its AccountScope first and goes through the scoped finder
 * (lib/scoped.ts). Amounts in the stablecoin's 6-decimal minor units.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { decodeCursor, encodeCursor, parseLimit } from '../../domain/pagination';
import { Wallet, WalletExternalAccount } from '../../entities';
import { logger } from '../../lib/logger';
import { scoped } from '../../lib/scoped';
import { chainAdapter, type ChainTransaction } from '../../providers/chain';
import { activeWallet, chainRead } from '../records/wallets';
import type { AccountScope } from '../scope';

/** `GET /wallet/wallets`: the query (alias `w`) of the scope's wallets on this network; the caller paginates. */
export function walletListQuery(scope: AccountScope): SelectQueryBuilder<Wallet> {
  return scoped(scope).query(Wallet, 'w').andWhere('w.network = :n', { n: chainAdapter().network });
}

/** `GET /wallet/wallets/{id}`: a wallet of the scope on this network; 404 `not_found` (param `id`) otherwise. */
export async function getWallet(scope: AccountScope, { id }: { id: string }): Promise<Wallet> {
  return scoped(scope).getOne(
    Wallet,
    { id, network: chainAdapter().network },
    () => new DomainError('not_found', 'not_found', `No such wallet: ${id}.`, { param: 'id' }),
  );
}

/**
 * `GET /wallet/balances`: the active wallet with its stablecoin balance (minor units, 6 decimals)
 * read live from the chain. 404 `wallet_not_found`; 503 `balance_unavailable` when the read fails.
 */
export async function walletBalance(
  scope: AccountScope,
): Promise<{ wallet: Wallet; chainId: number; asset: string; minor: bigint; decimals: number }> {
  const w = await activeWallet(scope);
  const chain = chainAdapter();
  let minor: bigint;
  try {
    minor = await chain.balanceOf(w.address, chain.stablecoin);
  } catch (e) {
    logger.error({ err: e, wallet_id: w.id }, 'balance read failed');
    throw new DomainError('provider_error', 'balance_unavailable', 'The wallet balance could not be read right now. Retry later.', {
      status: 503,
    });
  }
  return { wallet: w, chainId: chain.chainId, asset: chain.stablecoin, minor, decimals: 6 };
}

/** A transaction of the wallet with what the chain says about it now. */
export interface WalletTransaction {
  wallet: Wallet;
  tx: ChainTransaction;
  direction: 'incoming' | 'outgoing';
  confirmations: number;
}

const lower = (s: string | null) => (s ?? '').toLowerCase();

function asWalletTx(w: Wallet, tx: ChainTransaction, head: number): WalletTransaction {
  return {
    wallet: w,
    tx,
    direction: lower(tx.to_address) === lower(w.address) ? 'incoming' : 'outgoing',
    confirmations: Math.max(1, head - tx.block + 1),
  };
}

/**
 * `GET /wallet/transactions`: the wallet's stablecoin transfers, newest first (`limit`, `cursor`
 * of the previous page's last item). `confirmations` = head block - the transfer's block + 1.
 * 400 `cursor_invalid` for a cursor this list did not issue.
 */
export async function walletTransactions(
  scope: AccountScope,
  query: { limit?: unknown; cursor?: unknown },
): Promise<{ data: WalletTransaction[]; has_more: boolean; next_cursor: string | null }> {
  const w = await activeWallet(scope);
  const limit = parseLimit(query.limit);
  let beforeBlock: number | undefined;
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    const block = c && /^b[0-9]{1,18}$/.test(c.id) ? Number(c.id.slice(1)) : NaN;
    if (!Number.isSafeInteger(block)) throw invalidRequest('cursor_invalid', 'The cursor is not valid for this list.', 'cursor');
    beforeBlock = block;
  }
  const chain = chainAdapter();
  const [rows, head] = await chainRead(w.id, () =>
    Promise.all([chain.history(w.address, chain.stablecoin, { limit: limit + 1, beforeBlock }), chain.headBlock()]),
  );
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
export async function walletTransaction(scope: AccountScope, { hash }: { hash: string }): Promise<WalletTransaction> {
  const w = await activeWallet(scope);
  const chain = chainAdapter();
  const [tx, head] = await chainRead(w.id, () => Promise.all([chain.transaction(hash), chain.headBlock()]));
  if (!tx || tx.asset !== chain.stablecoin || (lower(tx.to_address) !== lower(w.address) && lower(tx.from_address) !== lower(w.address))) {
    throw notFound(`No transaction ${hash} of this wallet.`, 'hash');
  }
  return asWalletTx(w, tx, head);
}

/** `GET /wallet/external_accounts`: the query (alias `b`); the caller paginates newest first. */
export function externalAccountListQuery(scope: AccountScope): SelectQueryBuilder<WalletExternalAccount> {
  return scoped(scope).query(WalletExternalAccount, 'b');
}

/** An external account of the scope; 404 `not_found` with `param` (default `external_account_id`). */
export async function getExternalAccount(
  scope: AccountScope,
  { id, param = 'external_account_id' }: { id: string; param?: string },
): Promise<WalletExternalAccount> {
  return scoped(scope).getOne(WalletExternalAccount, { id }, () => notFound(`No such external account: ${id}.`, param));
}
