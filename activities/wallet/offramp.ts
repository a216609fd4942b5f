/**
 * Off-ramp intents: quotes, commands and reads (spec 2.5 "Off-ramp intent", 3, 4.5; issue 14).
 * An intent pays `amount` USDC from the holder's wallet to one of its external bank accounts: the
 * API gives the transit deposit (a per-intent address on the wallet's chain, the amount, a memo on
 * pooled rails) and the unsigned transfer; the holder signs it outside the API; the intent's
 * workflow (workflows/offramp-intent.ts, activities/wallet/offramp-watch.ts) sees the funds,
 * pays the bank once through the fiat rail adapter and follows it, or gives the USDC back.
 * USDC in minor units (6 decimals); fiat in minor units of the destination currency.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { RAIL_CURRENCY, type BankRail } from '../../domain/bank-details';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { erc20TransferCall, type UnsignedEvmCall } from '../../domain/evm-calls';
import { currencyDecimals, toMinorPositive, type Money } from '../../domain/money';
import {
  developerFeeBps, MIN_OFFRAMP_MINOR, OFFRAMP_FUNDING_SECONDS, OFFRAMP_QUOTE_SECONDS, offrampTransitions, priceOfframp, transitMemo, type OfframpPrice,
} from '../../domain/offramp';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import { WalletOfframpIntent } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { offrampIntentView } from '../../views/wallet-offramp';
import { getExternalAccount } from './external-accounts';
import { signalOfframpIntent } from './signals';
import { activeWallet, chainRead } from './transactions';

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

/**
 * `POST /wallet/offramp_intents`: 404 `not_found` (param `external_account_id`); 400
 * `parameter_invalid` (param `destination_payment_rail`) when the account is on another rail; the
 * price rules of priceTerms; 400 `balance_insufficient` (param `amount`) above the wallet's
 * balance (503 `chain_unavailable` when unreadable). Emits `offramp_intent.created`; starts the
 * intent's workflow.
 */
export async function createOfframpIntent(a: { accountId: string; livemode: boolean; externalAccountId: string; terms: OfframpTerms }, request: RequestRef | null): Promise<WalletOfframpIntent> {
  const ba = await getExternalAccount(a.accountId, a.livemode, a.externalAccountId);
  if (ba.rail !== a.terms.destinationRail) {
    throw invalidRequest('parameter_invalid', `External account ${ba.id} is paid on \`${ba.rail}\`.`, 'destination_payment_rail');
  }
  const price = priceTerms(a.terms);
  const wallet = await activeWallet(a.accountId);
  const chain = chainAdapter();
  const balance = await chainRead(wallet.id, () => chain.balanceOf(wallet.address, chain.stablecoin));
  if (balance < price.amount) throw invalidRequest('balance_insufficient', 'The wallet balance does not cover this off-ramp.', 'amount', { available: balance.toString() });
  const id = newId('ofr_');
  const reference = `OFR${id.slice(4, 16).toUpperCase()}`;
  const now = new Date();
  const row = await transaction(async (m) => {
    const saved = await m.save(m.create(WalletOfframpIntent, {
      id, account_id: a.accountId, livemode: a.livemode, wallet_id: wallet.id, wallet_address: wallet.address, status: 'awaiting_funds',
      external_account_id: ba.id, destination_currency: a.terms.destinationCurrency, destination_decimals: price.decimals,
      destination_payment_rail: ba.rail, chain: chain.chain, asset: chain.stablecoin, amount_minor: price.amount.toString(),
      developer_fee_bps: Number(price.developerBps), service_fee_minor: price.serviceFee.toString(), developer_fee_minor: price.developerFee.toString(),
      rate_usdc_per_major: price.rate.toString(), destination_amount_minor: price.destinationAmount.toString(),
      transit_address: chain.depositAddress(`offramp:${id}`), transit_memo: transitMemo(ba.rail, reference), reference,
      received_minor: '0', source_tx_hash: null, rail_payment_id: null, settled_amount_minor: null, refund_tx_hash: null,
      failure_reason: null, return_reason: null, funding_deadline: new Date(now.getTime() + OFFRAMP_FUNDING_SECONDS * 1000),
      funds_received_at: null, payment_submitted_at: null, completed_at: null,
    }));
    await emitEvent(m, { accountId: a.accountId, livemode: a.livemode, type: 'offramp_intent.created', objectType: 'offramp_intent', objectId: id, object: offrampIntentView(saved), request });
    return saved;
  });
  await signalOfframpIntent(row.id, row.account_id);
  return row;
}

/** The transfer the holder signs: `amount` to the transit address from the wallet, the memo appended to the call data when the rail needs one. */
export function transitTransaction(r: WalletOfframpIntent): UnsignedEvmCall {
  const chain = chainAdapter();
  const call = erc20TransferCall({ chain: r.chain, chainId: chain.chainId, from: r.wallet_address, token: chain.tokenAddressOf(r.asset), recipient: r.transit_address, amount: BigInt(r.amount_minor) });
  return r.transit_memo ? { ...call, data: `${call.data}${Buffer.from(r.transit_memo, 'utf8').toString('hex')}` } : call;
}

/**
 * `POST /wallet/offramp_intents/{id}/cancel`: only from `awaiting_funds` (409
 * `offramp_intent_state_changed` otherwise), and refused with 409 `cancel_unavailable` once the
 * transit deposit is signed and broadcast (a pending transfer to the transit address, or funds
 * already there). Emits `offramp_intent.canceled`.
 */
export async function cancelOfframpIntent(accountId: string, livemode: boolean, id: string, request: RequestRef | null): Promise<WalletOfframpIntent> {
  const chain = chainAdapter();
  const row = await transaction(async (m) => {
    const r = await m.findOne(WalletOfframpIntent, { where: { id, account_id: accountId, livemode }, lock: { mode: 'pessimistic_write' } });
    if (!r) throw notFound(`No such off-ramp intent: ${id}.`, 'id');
    offrampTransitions.assert(r.status, 'canceled');
    const [pending, arrived] = await Promise.all([chain.pendingTo(r.chain, r.transit_address), chain.balanceOf(r.transit_address, r.asset)]);
    if (pending.length > 0 || arrived > 0n) {
      throw conflict('cancel_unavailable', 'The transit deposit is signed and broadcast; the off-ramp can no longer be canceled.', { tx_hash: pending[0]?.tx_hash ?? null });
    }
    r.status = 'canceled';
    r.completed_at = new Date();
    const saved = await m.save(r);
    await emitEvent(m, { accountId, livemode, type: 'offramp_intent.canceled', objectType: 'offramp_intent', objectId: id, object: offrampIntentView(saved), request });
    return saved;
  });
  await signalOfframpIntent(row.id, row.account_id);
  return row;
}

/** `GET /wallet/offramp_intents/{id}`: 404 `not_found` (param `id`). */
export async function getOfframpIntent(accountId: string, livemode: boolean, id: string): Promise<WalletOfframpIntent> {
  const r = await db().getRepository(WalletOfframpIntent).findOneBy({ id, account_id: accountId, livemode });
  if (!r) throw notFound(`No such off-ramp intent: ${id}.`, 'id');
  return r;
}

/** `GET /wallet/offramp_intents`: the query (alias `o`), optionally one `status`; the caller paginates newest first. */
export function offrampIntentListQuery(accountId: string, livemode: boolean, status: string | undefined): SelectQueryBuilder<WalletOfframpIntent> {
  const qb = db().getRepository(WalletOfframpIntent).createQueryBuilder('o').where('o.account_id = :a AND o.livemode = :l', { a: accountId, l: livemode });
  if (status) qb.andWhere('o.status = :s', { s: status });
  return qb;
}
