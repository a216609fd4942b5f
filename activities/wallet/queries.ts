/**
 * The wallet area's reads for the routes (spec 2.5, 4.5; issue 14): the account's wallets and the
 * active one's live balance (503 `balance_unavailable`), its chain transactions (503
 * `chain_unavailable`, never an empty history), external bank accounts, send routes and send
 * intents, off-ramp prices, quotes and intents with the transfer the holder signs, deposit routes,
 * quotes and intents, conversion pairs and conversions, virtual accounts and their bank credits.
 * Another account's (or mode's) object is 404: every lookup for a caller takes its AccountScope
 * first and goes through the scoped finder (lib/scoped.ts). USDC and stablecoins in 6-decimal
 * minor units; fiat in minor units of its currency.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { RAIL_CURRENCY, type BankRail } from '../../domain/bank-details';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { erc20TransferCall, type UnsignedEvmCall } from '../../domain/evm-calls';
import { assertStorableMinor, currencyDecimals, toMinorPositive, type Money } from '../../domain/money';
import { developerFeeBps, MIN_OFFRAMP_MINOR, OFFRAMP_QUOTE_SECONDS, priceOfframp, type OfframpPrice } from '../../domain/offramp';
import { decodeCursor, encodeCursor, parseLimit } from '../../domain/pagination';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import type { VirtualAccountPurpose } from '../../domain/virtual-accounts';
import { assetAmount, conversionPairs, DEPOSIT_SOURCE_ASSET, DEPOSIT_SOURCE_CHAINS, type ConversionPair } from '../../domain/wallet-deposits';
import { MIN_SEND_MINOR, sendRoutes, type SendRoute } from '../../domain/wallet-sends';
import { grossUp, XCHAIN_USDC } from '../../domain/xchain';
import {
  Wallet, WalletConversion, WalletDepositIntent, WalletExternalAccount, WalletOfframpIntent, WalletSendIntent, WalletVirtualAccount,
  WalletVirtualAccountCredit,
} from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import { scoped } from '../../lib/scoped';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter, type ChainTransaction } from '../../providers/chain';
import type { DepositRoute } from '../../views/wallet-deposits';
import type { AccountScope } from '../scope';
import { activeWallet, chainRead, sourceChainOf, type MoneyIn } from './records';

/** `GET /wallet/wallets`: the query (alias `w`) of the scope's wallets on this network; the caller paginates. */
export function walletListQuery(scope: AccountScope): SelectQueryBuilder<Wallet> {
  return scoped(scope).query(Wallet, 'w').andWhere('w.network = :n', { n: chainAdapter().network });
}

/** `GET /wallet/wallets/{id}`: a wallet of the scope on this network; 404 `not_found` (param `id`) otherwise. */
export async function getWallet(scope: AccountScope, { id }: { id: string }): Promise<Wallet> {
  return scoped(scope).getOne(Wallet, { id, network: chainAdapter().network },
    () => new DomainError('not_found', 'not_found', `No such wallet: ${id}.`, { param: 'id' }));
}

/**
 * `GET /wallet/balances`: the active wallet with its stablecoin balance (minor units, 6 decimals)
 * read live from the chain. 404 `wallet_not_found`; 503 `balance_unavailable` when the read fails.
 */
export async function walletBalance(scope: AccountScope): Promise<{ wallet: Wallet; chainId: number; asset: string; minor: bigint; decimals: number }> {
  const w = await activeWallet(scope);
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

/** A transaction of the wallet with what the chain says about it now. */
export interface WalletTransaction { wallet: Wallet; tx: ChainTransaction; direction: 'incoming' | 'outgoing'; confirmations: number }

const lower = (s: string | null) => (s ?? '').toLowerCase();

function asWalletTx(w: Wallet, tx: ChainTransaction, head: number): WalletTransaction {
  return { wallet: w, tx, direction: lower(tx.to_address) === lower(w.address) ? 'incoming' : 'outgoing', confirmations: Math.max(1, head - tx.block + 1) };
}

/**
 * `GET /wallet/transactions`: the wallet's stablecoin transfers, newest first (`limit`, `cursor`
 * of the previous page's last item). `confirmations` = head block - the transfer's block + 1.
 * 400 `cursor_invalid` for a cursor this list did not issue.
 */
export async function walletTransactions(scope: AccountScope, query: { limit?: unknown; cursor?: unknown }): Promise<{ data: WalletTransaction[]; has_more: boolean; next_cursor: string | null }> {
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
export async function getExternalAccount(scope: AccountScope, { id, param = 'external_account_id' }: { id: string; param?: string }): Promise<WalletExternalAccount> {
  return scoped(scope).getOne(WalletExternalAccount, { id }, () => notFound(`No such external account: ${id}.`, param));
}

/** A route with what it costs now: the bridge's fee (0 direct), minor units of the stablecoin. */
export interface PricedSendRoute extends SendRoute { chain: string; asset: string; fee: bigint; minimum: bigint }

/** `GET /wallet/send_routes`: every route of the scope's wallet with its fee and minimum at `now` (default: now; 404 `wallet_not_found`). */
export async function pricedSendRoutes(scope: AccountScope, { now = new Date() }: { now?: Date } = {}): Promise<PricedSendRoute[]> {
  await activeWallet(scope);
  const chain = chainAdapter();
  return sendRoutes(chain.chain).map((r) => {
    const fee = r.kind === 'bridge' ? payInBridgeAdapter().quote(r.destination_chain, now).fee : 0n;
    return { ...r, chain: chain.chain, asset: chain.stablecoin, fee, minimum: fee + MIN_SEND_MINOR };
  });
}

/** `GET /wallet/send_intents/{id}`: 404 `not_found` (param `id`) for an unknown or another account's intent. */
export async function getSendIntent(scope: AccountScope, { id }: { id: string }): Promise<WalletSendIntent> {
  return scoped(scope).getOne(WalletSendIntent, { id }, () => notFound(`No such send intent: ${id}.`, 'id'));
}

/** `GET /wallet/send_intents`: the scope's intents (alias `s`), optionally one `status`; the caller paginates newest first. */
export function sendIntentListQuery(scope: AccountScope, { status }: { status?: string }): SelectQueryBuilder<WalletSendIntent> {
  const qb = scoped(scope).query(WalletSendIntent, 's');
  if (status) qb.andWhere('s.status = :st', { st: status });
  return qb;
}

/** An off-ramp request's money fields, validated: the destination and the USDC amount with the developer fee. */
export interface OfframpTerms { destinationCurrency: string; destinationRail: string; amount: Money; developerFeePercent?: string | null }

/**
 * Prices `t`: 400 `parameter_invalid` for a rail that does not pay `destination_currency` (param
 * `destination_payment_rail`), an amount not in the network's stablecoin (`amount.currency`), a
 * bad `developer_fee_percent`; `amount_invalid` below 1 USDC or when the fees eat it.
 */
export function priceTerms(t: OfframpTerms): OfframpPrice & { developerBps: bigint; decimals: number } {
  const chain = chainAdapter();
  if (RAIL_CURRENCY[t.destinationRail as BankRail] !== t.destinationCurrency) {
    throw invalidRequest('parameter_invalid', `\`${t.destinationRail}\` does not pay ${t.destinationCurrency}.`, 'destination_payment_rail');
  }
  if (t.amount.currency !== chain.stablecoin) throw invalidRequest('parameter_invalid', `Off-ramps spend ${chain.stablecoin}.`, 'amount.currency');
  const amount = toMinorPositive(t.amount, 'amount');
  if (amount < MIN_OFFRAMP_MINOR) throw invalidRequest('amount_invalid', 'The smallest off-ramp is 1 USDC.', 'amount', { minimum: MIN_OFFRAMP_MINOR.toString() });
  const developerBps = developerFeeBps(t.developerFeePercent);
  const decimals = currencyDecimals(t.destinationCurrency);
  const price = priceOfframp(amount, developerBps, decimals, REFERENCE_RATES_USDC_PER_MAJOR[t.destinationCurrency]);
  if (price.destinationAmount <= 0n) throw invalidRequest('amount_invalid', 'The fees leave nothing to pay out.', 'amount');
  return { ...price, developerBps, decimals };
}

/** `POST /wallet/offramp_quotes`: the price of `t` now, valid OFFRAMP_QUOTE_SECONDS (indicative; the intent prices again at create). */
export function offrampQuote(t: OfframpTerms, now = new Date()): OfframpPrice & { developerBps: bigint; decimals: number; expiresAt: Date; terms: OfframpTerms } {
  return { ...priceTerms(t), expiresAt: new Date(now.getTime() + OFFRAMP_QUOTE_SECONDS * 1000), terms: t };
}

/** The transfer the holder signs: `amount` to the transit address from the wallet, the memo appended to the call data when the rail needs one. */
export function transitTransaction(r: WalletOfframpIntent): UnsignedEvmCall {
  const chain = chainAdapter();
  const call = erc20TransferCall({ chain: r.chain, chainId: chain.chainId, from: r.wallet_address, token: chain.tokenAddressOf(r.asset), recipient: r.transit_address, amount: BigInt(r.amount_minor) });
  return r.transit_memo ? { ...call, data: `${call.data}${Buffer.from(r.transit_memo, 'utf8').toString('hex')}` } : call;
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

/** `GET /wallet/deposit_routes`: every source chain the bridge takes USDC from into the wallet's chain, with its fee. */
export function depositRoutes(now = new Date()): DepositRoute[] {
  const chain = chainAdapter();
  return DEPOSIT_SOURCE_CHAINS.map((c) => ({
    sourceChain: c, sourceChainId: XCHAIN_USDC[c].chainId, sourceAsset: DEPOSIT_SOURCE_ASSET, sourceTokenAddress: XCHAIN_USDC[c].tokenAddress,
    destinationChain: chain.chain, destinationChainId: chain.chainId, destinationAsset: chain.stablecoin,
    bridgeFee: payInBridgeAdapter().quote(c, now).fee,
  }));
}

/**
 * `POST /wallet/deposit_quotes`: for `amount` to land in the wallet (amount out, USDC or the
 * chain's stablecoin), the amount to send on `source_chain` (amount out + the bridge fee), the fee
 * and the quote's expiry (the bridge's quote window).
 */
export function depositQuote(b: { source_chain: string; amount: MoneyIn }, now = new Date()): { sourceChain: string; sourceAsset: string; destinationAsset: string; amountIn: bigint; amountOut: bigint; fee: bigint; expiresAt: Date } {
  const sourceChain = sourceChainOf(b.source_chain);
  const chain = chainAdapter();
  const out = assetAmount(b.amount, [...new Set([DEPOSIT_SOURCE_ASSET, chain.stablecoin])]);
  const q = payInBridgeAdapter().quote(sourceChain, now);
  const g = grossUp(out, q.fee);
  assertStorableMinor(g.amountIn);
  return { sourceChain, sourceAsset: DEPOSIT_SOURCE_ASSET, destinationAsset: chain.stablecoin, amountIn: g.amountIn, amountOut: g.amountOut, fee: g.fee, expiresAt: q.expiresAt };
}

/** `GET /wallet/deposit_intents`: the query (alias `d`) of the account's intents; the caller paginates. */
export function depositIntentListQuery(scope: AccountScope): SelectQueryBuilder<WalletDepositIntent> {
  return scoped(scope).query(WalletDepositIntent, 'd');
}

/** `GET /wallet/deposit_intents/{id}`: one intent of the scope; 404 `not_found` (param `id`) otherwise. */
export async function getDepositIntent(scope: AccountScope, { id }: { id: string }): Promise<WalletDepositIntent> {
  return scoped(scope).getOne(WalletDepositIntent, { id }, () => notFound(`No such deposit intent: ${id}.`, 'id'));
}

/** `GET /wallet/conversion_pairs`: the pairs of this network's chain. */
export function walletConversionPairs(): Array<ConversionPair & { chain: string }> {
  const chain = chainAdapter();
  return conversionPairs(chain.stablecoin).map((p) => ({ ...p, chain: chain.chain }));
}

/** `GET /wallet/conversions/{id}`: one conversion of the scope; 404 `not_found` (param `id`) otherwise. */
export async function getConversion(scope: AccountScope, { id }: { id: string }): Promise<WalletConversion> {
  return scoped(scope).getOne(WalletConversion, { id }, () => notFound(`No such conversion: ${id}.`, 'id'));
}

/** Currencies the scope's account collects through its bank-rail payment links (its `collection` rows). */
export async function collectionCurrencies(scope: AccountScope): Promise<Set<string>> {
  const rows = await scoped(scope).find(WalletVirtualAccount, { purpose: 'collection' });
  return new Set(rows.map((r) => r.currency));
}

/** `GET /wallet/virtual_accounts/{id}`: 404 `not_found` (param `id`) for an unknown or another account's (or mode's) one. */
export async function getVirtualAccount(scope: AccountScope, { id }: { id: string }): Promise<WalletVirtualAccount> {
  return scoped(scope).getOne(WalletVirtualAccount, { id }, () => notFound(`No such virtual account: ${id}.`, 'id'));
}

/** `GET /wallet/virtual_accounts`: the query (alias `v`); with `purpose` only that purpose (`wallet_funding` for wallet screens), else every row. */
export function virtualAccountListQuery(scope: AccountScope, { purpose }: { purpose?: VirtualAccountPurpose }): SelectQueryBuilder<WalletVirtualAccount> {
  const qb = scoped(scope).query(WalletVirtualAccount, 'v');
  if (purpose) qb.andWhere('v.purpose = :p', { p: purpose });
  return qb;
}

/** `GET /wallet/virtual_accounts/{id}/history`: the query (alias `c`) of its bank credits; 404 as get. */
export async function virtualAccountHistoryQuery(scope: AccountScope, { id }: { id: string }): Promise<SelectQueryBuilder<WalletVirtualAccountCredit>> {
  const va = await getVirtualAccount(scope, { id });
  return db().getRepository(WalletVirtualAccountCredit).createQueryBuilder('c').where('c.virtual_account_id = :v', { v: va.id });
}
