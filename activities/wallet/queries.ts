/**
 * Service wallet reads the routes need (spec 4.5, 2.5): the account's wallets on this network
 * and the live balance of its active one.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError } from '../../domain/errors';
import { Wallet } from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { chainAdapter } from '../../providers/chain';

/** `GET /wallet/wallets`: the query (alias `w`) of the account's wallets on this network; the caller paginates. */
export function walletListQuery(accountId: string): SelectQueryBuilder<Wallet> {
  return db().getRepository(Wallet).createQueryBuilder('w').where('w.account_id = :a AND w.network = :n', { a: accountId, n: chainAdapter().network });
}

/** `GET /wallet/wallets/{id}`: a wallet of the account on this network; 404 `not_found` otherwise. */
export async function getWallet(accountId: string, id: string): Promise<Wallet> {
  const w = await db().getRepository(Wallet).findOneBy({ id, account_id: accountId, network: chainAdapter().network });
  if (!w) throw new DomainError('not_found', 'not_found', `No such wallet: ${id}.`, { param: 'id' });
  return w;
}

/**
 * `GET /wallet/balances`: the active wallet with its stablecoin balance (minor units, 6 decimals)
 * read live from the chain. 404 `wallet_not_found`; 503 `balance_unavailable` when the read fails.
 */
export async function walletBalance(accountId: string): Promise<{ wallet: Wallet; chainId: number; asset: string; minor: bigint; decimals: number }> {
  const w = await db().getRepository(Wallet).findOneBy({ account_id: accountId, network: chainAdapter().network, status: 'active' });
  if (!w) throw new DomainError('not_found', 'wallet_not_found', 'This account has no wallet on this network yet.');
  const chain = chainAdapter();
  let minor: bigint;
  try {
    minor = await chain.balanceOf(w.address, chain.stablecoin);
  } catch (e) {
    logger.error({ err: e, wallet_id: w.id }, 'balance read failed');
    throw new DomainError('provider_error', 'balance_unavailable', 'The wallet balance could not be read right now. Retry later.', { status: 503 });
  }
  return { wallet: w, chainId: chain.chainId, asset: chain.stablecoin, minor, decimals: 6 };
}
