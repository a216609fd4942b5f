/**
 * Wire projections of wallet deposits and conversions (spec 2.5, 4.5; issue 14): deposit routes,
 * deposit quotes, deposit intents (`dpi_`), conversion pairs and conversions (`cnv_`), with their
 * Joi response schemas. Money is `{ amount (minor units, string), currency, decimals }`.
 */
import Joi from 'joi';
import type { WalletConversion, WalletDepositIntent } from '../entities';
import { at, atOrNull, int, kind, listEnvelope, money, moneyOrNull, text, textOrNull } from './schema';
import type { WalletConversionPairsList, WalletConversionsCreate, WalletDepositIntentsCreate, WalletDepositQuotesCreate, WalletDepositRoutesList } from './wire';

const DECIMALS = 6;
const m = (minor: bigint | string, currency: string) => ({ amount: minor.toString(), currency, decimals: DECIMALS });
const mOrNull = (minor: string | null, currency: string) => (minor === null ? null : m(minor, currency));

/** A deposit route: a source chain and asset the bridge takes into the wallet, with its fee. */
export interface DepositRoute {
  sourceChain: string; sourceChainId: number; sourceAsset: string; sourceTokenAddress: string;
  destinationChain: string; destinationChainId: number; destinationAsset: string; bridgeFee: bigint;
}

/** `GET /wallet/deposit_routes` item. */
export function depositRouteView(r: DepositRoute): WalletDepositRoutesList['data'][number] {
  return {
    object: 'wallet_deposit_route', source_chain: r.sourceChain, source_chain_id: r.sourceChainId, source_asset: r.sourceAsset,
    source_token_address: r.sourceTokenAddress, destination_chain: r.destinationChain, destination_chain_id: r.destinationChainId,
    destination_asset: r.destinationAsset, bridge_fee: m(r.bridgeFee, r.sourceAsset),
  };
}

export const depositRouteResponse = Joi.object({
  object: kind('wallet_deposit_route'), source_chain: text(), source_chain_id: int(), source_asset: text(), source_token_address: text(),
  destination_chain: text(), destination_chain_id: int(), destination_asset: text(), bridge_fee: money(),
});

/** `POST /wallet/deposit_quotes` answer. */
export function depositQuoteView(q: { sourceChain: string; sourceAsset: string; destinationAsset: string; amountIn: bigint; amountOut: bigint; fee: bigint; expiresAt: Date }): WalletDepositQuotesCreate {
  return {
    object: 'wallet_deposit_quote', source_chain: q.sourceChain, amount_in: m(q.amountIn, q.sourceAsset), amount_out: m(q.amountOut, q.destinationAsset),
    bridge_fee: m(q.fee, q.sourceAsset), expires_at: q.expiresAt.toISOString(),
  };
}

export const depositQuoteResponse = Joi.object({
  object: kind('wallet_deposit_quote'), source_chain: text(), amount_in: money(), amount_out: money(), bridge_fee: money(), expires_at: at(),
});

/** A deposit intent (`dpi_`): where to send on the source chain, what lands in the wallet, and what happened. */
export function depositIntentView(d: WalletDepositIntent): WalletDepositIntentsCreate {
  return {
    id: d.id, object: 'wallet_deposit_intent', livemode: d.livemode, wallet_id: d.wallet_id, status: d.status,
    source_chain: d.source_chain, source_asset: d.source_asset,
    deposit_address: d.deposit_address,
    destination: { chain: d.destination_chain, asset: d.destination_asset, address: d.destination_address },
    amount_in: mOrNull(d.amount_in_minor, d.source_asset),
    amount_out: mOrNull(d.amount_out_minor, d.destination_asset),
    bridge_fee: m(d.bridge_fee_minor, d.source_asset),
    amount_received: mOrNull(d.received_minor, d.source_asset),
    amount_delivered: mOrNull(d.delivered_minor, d.destination_asset),
    refund_address: d.refund_address,
    source_tx_hash: d.source_tx_hash,
    delivery_tx_hash: d.delivery_tx_hash,
    recovery_tx_hash: d.recovery_tx_hash,
    failure_reason: d.failure_reason,
    expires_at: d.expires_at.toISOString(),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

export const depositIntentResponse = Joi.object({
  id: text(), object: kind('wallet_deposit_intent'), livemode: Joi.boolean().required(), wallet_id: text(), status: text(),
  source_chain: text(), source_asset: text(), deposit_address: text(),
  destination: Joi.object({ chain: text(), asset: text(), address: text() }).required(),
  amount_in: moneyOrNull(), amount_out: moneyOrNull(), bridge_fee: money(), amount_received: moneyOrNull(), amount_delivered: moneyOrNull(),
  refund_address: textOrNull(), source_tx_hash: textOrNull(), delivery_tx_hash: textOrNull(), recovery_tx_hash: textOrNull(), failure_reason: textOrNull(),
  expires_at: at(), created_at: at(), updated_at: at(),
});

export const depositIntentListResponse = listEnvelope(depositIntentResponse);

/** `GET /wallet/conversion_pairs` item. */
export function conversionPairView(p: { chain: string; from: string; to: string; feeBps: bigint }): WalletConversionPairsList['data'][number] {
  return { object: 'wallet_conversion_pair', chain: p.chain, from_asset: p.from, to_asset: p.to, rate: '1', fee_bps: Number(p.feeBps) };
}

export const conversionPairResponse = Joi.object({
  object: kind('wallet_conversion_pair'), chain: text(), from_asset: text(), to_asset: text(), rate: text(), fee_bps: int(),
});

/** A conversion (`cnv_`): the unsigned transaction while `built`, the holder's hash once `submitted`. */
export function conversionView(c: WalletConversion): WalletConversionsCreate {
  return {
    id: c.id, object: 'wallet_conversion', livemode: c.livemode, wallet_id: c.wallet_id, status: c.status, chain: c.chain,
    from_asset: c.from_asset, to_asset: c.to_asset,
    amount_in: m(c.amount_in_minor, c.from_asset), fee: m(c.fee_minor, c.from_asset), amount_out: m(c.amount_out_minor, c.to_asset),
    unsigned_transaction: c.unsigned_tx as WalletConversionsCreate['unsigned_transaction'],
    signable_until: c.signable_until.toISOString(),
    source_tx_hash: c.source_tx_hash, settlement_tx_hash: c.settlement_tx_hash, failure_reason: c.failure_reason,
    submitted_at: c.submitted_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(), updated_at: c.updated_at.toISOString(),
  };
}

export const unsignedTransactionResponse = Joi.object({
  chain: text(), chain_id: int(), from: text(), to: text(), value: text(), data: text(),
  token_transfer: Joi.object({ token: text(), to: text(), amount: money() }).required(),
});

export const conversionResponse = Joi.object({
  id: text(), object: kind('wallet_conversion'), livemode: Joi.boolean().required(), wallet_id: text(), status: text(), chain: text(),
  from_asset: text(), to_asset: text(), amount_in: money(), fee: money(), amount_out: money(), unsigned_transaction: unsignedTransactionResponse,
  signable_until: at(), source_tx_hash: textOrNull(), settlement_tx_hash: textOrNull(), failure_reason: textOrNull(), submitted_at: atOrNull(),
  created_at: at(), updated_at: at(),
});
