/**
 * The deposit intent's reads for the routes (spec 2.5): the deposit routes into the wallet's chain
 * with their bridge fee, deposit quotes, and the account's intents. Another account's (or mode's)
 * intent is 404: every lookup goes through the scoped finder (lib/scoped.ts). Amounts in 6-decimal
 * minor units.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { DomainError, notFound } from '../../domain/errors';
import { assertStorableMinor } from '../../domain/money';
import { assetAmount, DEPOSIT_SOURCE_ASSET, DEPOSIT_SOURCE_CHAINS } from '../../domain/wallet-deposits';
import { grossUp, XCHAIN_USDC, type XchainNetwork } from '../../domain/xchain';
import { WalletDepositIntent } from '../../entities';
import { scoped } from '../../lib/scoped';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import type { DepositRoute } from '../../views/wallet-deposits';
import type { AccountScope } from '../scope';

/** A source chain of DEPOSIT_SOURCE_CHAINS; otherwise `409 conflict` `network_not_supported` param `source_chain`. */
export function sourceChainOf(sourceChain: string): XchainNetwork {
  if (!(DEPOSIT_SOURCE_CHAINS as readonly string[]).includes(sourceChain)) {
    throw new DomainError(
      'conflict',
      'network_not_supported',
      `Deposits come from ${DEPOSIT_SOURCE_CHAINS.join(', ')}; not ${sourceChain}.`,
      { param: 'source_chain', details: { networks: [...DEPOSIT_SOURCE_CHAINS] } },
    );
  }
  return sourceChain as XchainNetwork;
}

/** A Money field of a deposit request (validated shape): `amount` in minor units at `decimals`. */
export interface MoneyIn {
  amount: string;
  currency: string;
  decimals: number;
}

/** `GET /wallet/deposit_routes`: every source chain the bridge takes USDC from into the wallet's chain, with its fee. */
export function depositRoutes(now = new Date()): DepositRoute[] {
  const chain = chainAdapter();
  return DEPOSIT_SOURCE_CHAINS.map((c) => ({
    sourceChain: c,
    sourceChainId: XCHAIN_USDC[c].chainId,
    sourceAsset: DEPOSIT_SOURCE_ASSET,
    sourceTokenAddress: XCHAIN_USDC[c].tokenAddress,
    destinationChain: chain.chain,
    destinationChainId: chain.chainId,
    destinationAsset: chain.stablecoin,
    bridgeFee: payInBridgeAdapter().quote(c, now).fee,
  }));
}

/**
 * `POST /wallet/deposit_quotes`: for `amount` to land in the wallet (amount out, USDC or the
 * chain's stablecoin), the amount to send on `source_chain` (amount out + the bridge fee), the fee
 * and the quote's expiry (the bridge's quote window).
 */
export function depositQuote(
  input: { source_chain: string; amount: MoneyIn },
  now = new Date(),
): {
  sourceChain: string;
  sourceAsset: string;
  destinationAsset: string;
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  expiresAt: Date;
} {
  const sourceChain = sourceChainOf(input.source_chain);
  const chain = chainAdapter();
  const out = assetAmount(input.amount, [...new Set([DEPOSIT_SOURCE_ASSET, chain.stablecoin])]);
  const q = payInBridgeAdapter().quote(sourceChain, now);
  const g = grossUp(out, q.fee);
  assertStorableMinor(g.amountIn);
  return {
    sourceChain,
    sourceAsset: DEPOSIT_SOURCE_ASSET,
    destinationAsset: chain.stablecoin,
    amountIn: g.amountIn,
    amountOut: g.amountOut,
    fee: g.fee,
    expiresAt: q.expiresAt,
  };
}

/** `GET /wallet/deposit_intents`: the query (alias `d`) of the account's intents; the caller paginates. */
export function depositIntentListQuery(scope: AccountScope): SelectQueryBuilder<WalletDepositIntent> {
  return scoped(scope).query(WalletDepositIntent, 'd');
}

/** `GET /wallet/deposit_intents/{id}`: one intent of the scope; 404 `not_found` (param `id`) otherwise. */
export async function getDepositIntent(scope: AccountScope, { id }: { id: string }): Promise<WalletDepositIntent> {
  return scoped(scope).getOne(WalletDepositIntent, { id }, () => notFound(`No such deposit intent: ${id}.`, 'id'));
}
