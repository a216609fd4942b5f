/**
 * The service wallet's lookups every area shares (spec 2.5, 4.5): the account's active wallet on
 * this network (one query, mode-bound for a caller's scope or account-wide for a settlement
 * wallet), and chain reads of a wallet that fail as 503 `chain_unavailable` (never an empty answer).
 */
import type { EntityManager } from 'typeorm';
import { DomainError, temporarilyUnavailable } from '../../domain/errors';
import { Wallet } from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { accountWide, scoped } from '../../lib/scoped';
import { chainAdapter } from '../../providers/chain';

/**
 * Whose active wallet: `livemode` given, the account's wallet in that mode (a caller's scope); absent,
 * the account's wallet whatever its mode (the settlement wallet a payment or payout pays from or to).
 */
export interface WalletOwner {
  accountId: string;
  livemode?: boolean;
}

/** The active wallet of `owner` on this network through `m` (default: the process manager), or null. */
export async function findActiveWallet(owner: WalletOwner, entityManager: EntityManager = db().manager): Promise<Wallet | null> {
  const network = chainAdapter().network;
  if (owner.livemode !== undefined)
    return scoped({ accountId: owner.accountId, livemode: owner.livemode }, entityManager).findOne(Wallet, { network, status: 'active' });
  // Account-wide on purpose: the settlement wallet of the account, read for an object of either mode.
  return accountWide(owner.accountId, entityManager).findOne(Wallet, { network, status: 'active' });
}

/** The active wallet of `scope`'s account and mode on this network; 404 `wallet_not_found` when it has none. */
export async function activeWallet(scope: { accountId: string; livemode: boolean }, manager?: EntityManager): Promise<Wallet> {
  const wallet = await findActiveWallet(scope, manager);
  if (!wallet) throw new DomainError('not_found', 'wallet_not_found', 'This account has no wallet on this network yet.');
  return wallet;
}

/** Runs a chain read for wallet `walletId`; any failure is 503 `chain_unavailable` (an error is never shown as "no transactions"). */
export async function chainRead<T>(walletId: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    logger.error({ err: e, wallet_id: walletId }, 'wallet transaction read failed');
    throw temporarilyUnavailable('chain_unavailable', 'The wallet transactions could not be read from the chain right now. Retry later.');
  }
}
