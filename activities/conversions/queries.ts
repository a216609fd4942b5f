/**
 * The conversion's reads for the routes (spec 2.5): the conversion pairs of this network's chain,
 * the sandbox router conversions pay into, and the account's conversions. Another account's (or
 * mode's) conversion is 404: every lookup goes through the scoped finder (lib/scoped.ts).
 */
import { notFound } from '../../domain/errors';
import { conversionPairs, type ConversionPair } from '../../domain/wallet-deposits';
import { WalletConversion } from '../../entities';
import { scoped } from '../../lib/scoped';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import type { AccountScope } from '../scope';

/** The sandbox conversion router the holder's transaction pays into and that pays the other asset out. */
export const CONVERSION_ROUTER = deriveAddress('wallet:conversion-router');

/** `GET /wallet/conversion_pairs`: the pairs of this network's chain. */
export function walletConversionPairs(): Array<ConversionPair & { chain: string }> {
  const chain = chainAdapter();
  return conversionPairs(chain.stablecoin).map((p) => ({ ...p, chain: chain.chain }));
}

/** `GET /wallet/conversions/{id}`: one conversion of the scope; 404 `not_found` (param `id`) otherwise. */
export async function getConversion(scope: AccountScope, { id }: { id: string }): Promise<WalletConversion> {
  return scoped(scope).getOne(WalletConversion, { id }, () => notFound(`No such conversion: ${id}.`, 'id'));
}
