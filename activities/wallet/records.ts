/**
 * What the wallet area's commands, queries and activities share (spec 2.5, 4.5; issue 14): the
 * account's active wallet on this network (404 `wallet_not_found`), chain reads that fail as 503
 * `chain_unavailable` (never an empty answer), the deposit source chains (409
 * `network_not_supported`), the outbox writers of deposit intents and conversions (their catalogued
 * `deposit_intent.*` / `conversion.*` events, in the caller's transaction) and the sandbox
 * conversion router's address. Amounts are bigint minor units.
 */
import type { EntityManager } from 'typeorm';
import { DomainError, temporarilyUnavailable } from '../../domain/errors';
import {
  CONVERSION_EVENTS, DEPOSIT_INTENT_EVENTS, DEPOSIT_SOURCE_CHAINS, type ConversionStatus, type DepositIntentStatus,
} from '../../domain/wallet-deposits';
import type { XchainNetwork } from '../../domain/xchain';
import { Wallet, WalletConversion, WalletDepositIntent } from '../../entities';
import { logger } from '../../lib/logger';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { conversionView, depositIntentView } from '../../views/wallet-deposits';
import type { AccountScope } from '../scope';

/** The active wallet of `scope`'s account and mode on this network; 404 `wallet_not_found` when it has none. */
export async function activeWallet(scope: AccountScope): Promise<Wallet> {
  const w = await scoped(scope).findOne(Wallet, { network: chainAdapter().network, status: 'active' });
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

/** A source chain of DEPOSIT_SOURCE_CHAINS; otherwise `409 conflict` `network_not_supported` param `source_chain`. */
export function sourceChainOf(c: string): XchainNetwork {
  if (!(DEPOSIT_SOURCE_CHAINS as readonly string[]).includes(c)) {
    throw new DomainError('conflict', 'network_not_supported', `Deposits come from ${DEPOSIT_SOURCE_CHAINS.join(', ')}; not ${c}.`,
      { param: 'source_chain', details: { networks: [...DEPOSIT_SOURCE_CHAINS] } });
  }
  return c as XchainNetwork;
}

/** A Money field of a deposit request (validated shape): `amount` in minor units at `decimals`. */
export interface MoneyIn { amount: string; currency: string; decimals: number }

/** Writes the `deposit_intent.*` event of intent `d`'s status (catalogued in DEPOSIT_INTENT_EVENTS) in transaction `m`. */
export async function emitDepositIntentEvent(m: EntityManager, d: WalletDepositIntent, request: RequestRef | null = null): Promise<void> {
  await emitEvent(m, {
    accountId: d.account_id, livemode: d.livemode, type: DEPOSIT_INTENT_EVENTS[d.status as DepositIntentStatus],
    objectType: 'wallet_deposit_intent', objectId: d.id, object: depositIntentView(d), relatedIds: [d.wallet_id], request,
  });
}

/** The sandbox conversion router the holder's transaction pays into and that pays the other asset out. */
export const CONVERSION_ROUTER = deriveAddress('wallet:conversion-router');

/** Writes the `conversion.*` event of conversion `c`'s status (catalogued in CONVERSION_EVENTS) in transaction `m`. */
export async function emitConversionEvent(m: EntityManager, c: WalletConversion, request: RequestRef | null = null): Promise<void> {
  await emitEvent(m, {
    accountId: c.account_id, livemode: c.livemode, type: CONVERSION_EVENTS[c.status as ConversionStatus],
    objectType: 'wallet_conversion', objectId: c.id, object: conversionView(c), relatedIds: [c.wallet_id], request,
  });
}
