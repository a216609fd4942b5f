/**
 * The off-ramp intent's reads for the routes (spec 2.5): prices and quotes of an off-ramp, the
 * transfer the holder signs to the transit address, and the account's intents. Another account's
 * (or mode's) intent is 404: every lookup goes through the scoped finder (lib/scoped.ts). USDC in
 * 6-decimal minor units; fiat in minor units of its currency.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { RAIL_CURRENCY, type BankRail } from '../../domain/bank-details';
import { invalidRequest, notFound } from '../../domain/errors';
import { erc20TransferCall, type UnsignedEvmCall } from '../../domain/evm-calls';
import { currencyDecimals, toMinorPositive, type Money } from '../../domain/money';
import { developerFeeBps, MIN_OFFRAMP_MINOR, OFFRAMP_QUOTE_SECONDS, priceOfframp, type OfframpPrice } from '../../domain/offramp';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import { WalletOfframpIntent } from '../../entities';
import { scoped } from '../../lib/scoped';
import { chainAdapter } from '../../providers/chain';
import type { AccountScope } from '../scope';

/** An off-ramp request's money fields, validated: the destination and the USDC amount with the developer fee. */
export interface OfframpTerms {
  destinationCurrency: string;
  destinationRail: string;
  amount: Money;
  developerFeePercent?: string | null;
}

/**
 * Prices `t`: 400 `parameter_invalid` for a rail that does not pay `destination_currency` (param
 * `destination_payment_rail`), an amount not in the network's stablecoin (`amount.currency`), a
 * bad `developer_fee_percent`; `amount_invalid` below 1 USDC or when the fees eat it.
 */
export function priceTerms(offrampTerms: OfframpTerms): OfframpPrice & { developerBps: bigint; decimals: number } {
  const chain = chainAdapter();
  if (RAIL_CURRENCY[offrampTerms.destinationRail as BankRail] !== offrampTerms.destinationCurrency) {
    throw invalidRequest(
      'parameter_invalid',
      `\`${offrampTerms.destinationRail}\` does not pay ${offrampTerms.destinationCurrency}.`,
      'destination_payment_rail',
    );
  }
  if (offrampTerms.amount.currency !== chain.stablecoin)
    throw invalidRequest('parameter_invalid', `Off-ramps spend ${chain.stablecoin}.`, 'amount.currency');
  const amount = toMinorPositive(offrampTerms.amount, 'amount');
  if (amount < MIN_OFFRAMP_MINOR)
    throw invalidRequest('amount_invalid', 'The smallest off-ramp is 1 USDC.', 'amount', { minimum: MIN_OFFRAMP_MINOR.toString() });
  const developerBps = developerFeeBps(offrampTerms.developerFeePercent);
  const decimals = currencyDecimals(offrampTerms.destinationCurrency);
  const price = priceOfframp(amount, developerBps, decimals, REFERENCE_RATES_USDC_PER_MAJOR[offrampTerms.destinationCurrency]);
  if (price.destinationAmount <= 0n) throw invalidRequest('amount_invalid', 'The fees leave nothing to pay out.', 'amount');
  return { ...price, developerBps, decimals };
}

/** `POST /wallet/offramp_quotes`: the price of `t` now, valid OFFRAMP_QUOTE_SECONDS (indicative; the intent prices again at create). */
export function offrampQuote(
  offrampTerms: OfframpTerms,
  now = new Date(),
): OfframpPrice & { developerBps: bigint; decimals: number; expiresAt: Date; terms: OfframpTerms } {
  return { ...priceTerms(offrampTerms), expiresAt: new Date(now.getTime() + OFFRAMP_QUOTE_SECONDS * 1000), terms: offrampTerms };
}

/** The transfer the holder signs: `amount` to the transit address from the wallet, the memo appended to the call data when the rail needs one. */
export function transitTransaction(walletOfframpIntent: WalletOfframpIntent): UnsignedEvmCall {
  const chain = chainAdapter();
  const call = erc20TransferCall({
    chain: walletOfframpIntent.chain,
    chainId: chain.chainId,
    from: walletOfframpIntent.wallet_address,
    token: chain.tokenAddressOf(walletOfframpIntent.asset),
    recipient: walletOfframpIntent.transit_address,
    amount: BigInt(walletOfframpIntent.amount_minor),
  });
  return walletOfframpIntent.transit_memo
    ? { ...call, data: `${call.data}${Buffer.from(walletOfframpIntent.transit_memo, 'utf8').toString('hex')}` }
    : call;
}

/** `GET /wallet/offramp_intents/{id}`: 404 `not_found` (param `id`). */
export async function getOfframpIntent(scope: AccountScope, { id }: { id: string }): Promise<WalletOfframpIntent> {
  return scoped(scope).getOne(WalletOfframpIntent, { id }, () => notFound(`No such off-ramp intent: ${id}.`, 'id'));
}

/** `GET /wallet/offramp_intents`: the query (alias `o`), optionally one `status`; the caller paginates newest first. */
export function offrampIntentListQuery(scope: AccountScope, { status }: { status?: string }): SelectQueryBuilder<WalletOfframpIntent> {
  const qb = scoped(scope).query(WalletOfframpIntent, 'o');
  if (status) qb.andWhere('o.status = :s', { s: status });
  return qb;
}
