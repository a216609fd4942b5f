/** Wire projections of the service wallet and its balances (spec 2.5). */
import type { Wallet } from '../entities';
import Joi from 'joi';
import { at, bool, int, kind, money, text, textOrNull } from './schema';
import type { WalletBalancesGet, WalletTransactionsGet, WalletWalletsCreate } from './wire';

/** Wallet: address checksum-cased verbatim, chain constant, network, single live status. */
export function walletView(wallet: Wallet): WalletWalletsCreate {
  return {
    id: wallet.id,
    object: 'wallet',
    livemode: wallet.livemode,
    address: wallet.address,
    chain: wallet.chain,
    network: wallet.network,
    status: wallet.status,
    label: wallet.label,
    created_at: wallet.created_at.toISOString(),
    updated_at: wallet.updated_at.toISOString(),
  };
}

/** Balances read from the chain adapter; `usd_total` server-computed (stablecoins 1:1 USD, floored to cents). */
export function balancesView(
  wallet: Wallet,
  chainId: number,
  balances: Array<{ asset: string; minor: bigint; decimals: number }>,
): WalletBalancesGet {
  const totalMicros = balances.reduce((s, b) => s + b.minor * 10n ** BigInt(6 - b.decimals), 0n);
  return {
    object: 'wallet_balances',
    wallet_id: wallet.id,
    address: wallet.address,
    chain: wallet.chain,
    chain_id: chainId,
    network: wallet.network,
    balances: balances.map((b) => ({ asset: b.asset, amount: { amount: b.minor.toString(), currency: b.asset, decimals: b.decimals } })),
    usd_total: { amount: (totalMicros / 10000n).toString(), currency: 'USD', decimals: 2 },
  };
}

/** Response schema of `walletView`. */
export const walletResponse = Joi.object({
  id: text(),
  object: kind('wallet'),
  livemode: bool(),
  address: text(),
  chain: text(),
  network: text(),
  status: text(),
  label: textOrNull(),
  created_at: at(),
  updated_at: at(),
});

/** Response schema of `balancesView`. */
export const balancesResponse = Joi.object({
  object: kind('wallet_balances'),
  wallet_id: text(),
  address: text(),
  chain: text(),
  chain_id: int(),
  network: text(),
  balances: Joi.array()
    .items(Joi.object({ asset: text(), amount: money() }))
    .required(),
  usd_total: money(),
});

/** A wallet transaction (spec 4.5; shape ours): direction from the wallet's side, amount in the stablecoin, block and confirmations. */
export function walletTransactionView(input: {
  wallet: Wallet;
  tx: {
    chain: string;
    asset: string;
    from_address: string | null;
    to_address: string;
    amount: bigint;
    decimals: number;
    tx_hash: string;
    block: number;
    at: Date;
  };
  direction: 'incoming' | 'outgoing';
  confirmations: number;
}): WalletTransactionsGet {
  return {
    object: 'wallet_transaction',
    hash: input.tx.tx_hash,
    wallet_id: input.wallet.id,
    chain: input.tx.chain,
    network: input.wallet.network,
    direction: input.direction,
    amount: { amount: input.tx.amount.toString(), currency: input.tx.asset, decimals: input.tx.decimals },
    from_address: input.tx.from_address,
    to_address: input.tx.to_address,
    block_number: input.tx.block,
    confirmations: input.confirmations,
    status: 'confirmed',
    created_at: input.tx.at.toISOString(),
  };
}

/** Response schema of `walletTransactionView`. */
export const walletTransactionResponse = Joi.object({
  object: kind('wallet_transaction'),
  hash: text(),
  wallet_id: text(),
  chain: text(),
  network: text(),
  direction: Joi.string().valid('incoming', 'outgoing').required(),
  amount: money(),
  from_address: textOrNull(),
  to_address: text(),
  block_number: int(),
  confirmations: int(),
  status: Joi.string().valid('confirmed').required(),
  created_at: at(),
});
