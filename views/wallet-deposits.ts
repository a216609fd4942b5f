/**
 * Wire projections of wallet deposits and conversions (spec 2.5, 4.5): deposit routes,
 * deposit quotes, deposit intents (`dpi_`), conversion pairs and conversions (`cnv_`), with their
 * Joi response schemas. Money is `{ amount (minor units, string), currency, decimals }`.
 */
import Joi from 'joi';
import type { WalletConversion, WalletDepositIntent } from '../entities';
import { at, atOrNull, int, kind, listEnvelope, money, moneyOrNull, text, textOrNull } from './schema';
import type {
  WalletConversionPairsList,
  WalletConversionsCreate,
  WalletDepositIntentsCreate,
  WalletDepositQuotesCreate,
  WalletDepositRoutesList,
} from './wire';

const DECIMALS = 6;
const m = (minor: bigint | string, currency: string) => ({ amount: minor.toString(), currency, decimals: DECIMALS });
const mOrNull = (minor: string | null, currency: string) => (minor === null ? null : m(minor, currency));

/** A deposit route: a source chain and asset the bridge takes into the wallet, with its fee. */
export interface DepositRoute {
  sourceChain: string;
  sourceChainId: number;
  sourceAsset: string;
  sourceTokenAddress: string;
  destinationChain: string;
  destinationChainId: number;
  destinationAsset: string;
  bridgeFee: bigint;
}

/** `GET /wallet/deposit_routes` item. */
export function depositRouteView(depositRoute: DepositRoute): WalletDepositRoutesList['data'][number] {
  return {
    object: 'wallet_deposit_route',
    source_chain: depositRoute.sourceChain,
    source_chain_id: depositRoute.sourceChainId,
    source_asset: depositRoute.sourceAsset,
    source_token_address: depositRoute.sourceTokenAddress,
    destination_chain: depositRoute.destinationChain,
    destination_chain_id: depositRoute.destinationChainId,
    destination_asset: depositRoute.destinationAsset,
    bridge_fee: m(depositRoute.bridgeFee, depositRoute.sourceAsset),
  };
}

export const depositRouteResponse = Joi.object({
  object: kind('wallet_deposit_route'),
  source_chain: text(),
  source_chain_id: int(),
  source_asset: text(),
  source_token_address: text(),
  destination_chain: text(),
  destination_chain_id: int(),
  destination_asset: text(),
  bridge_fee: money(),
});

/** `POST /wallet/deposit_quotes` answer. */
export function depositQuoteView(input: {
  sourceChain: string;
  sourceAsset: string;
  destinationAsset: string;
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  expiresAt: Date;
}): WalletDepositQuotesCreate {
  return {
    object: 'wallet_deposit_quote',
    source_chain: input.sourceChain,
    amount_in: m(input.amountIn, input.sourceAsset),
    amount_out: m(input.amountOut, input.destinationAsset),
    bridge_fee: m(input.fee, input.sourceAsset),
    expires_at: input.expiresAt.toISOString(),
  };
}

export const depositQuoteResponse = Joi.object({
  object: kind('wallet_deposit_quote'),
  source_chain: text(),
  amount_in: money(),
  amount_out: money(),
  bridge_fee: money(),
  expires_at: at(),
});

/** A deposit intent (`dpi_`): where to send on the source chain, what lands in the wallet, and what happened. */
export function depositIntentView(walletDepositIntent: WalletDepositIntent): WalletDepositIntentsCreate {
  return {
    id: walletDepositIntent.id,
    object: 'wallet_deposit_intent',
    livemode: walletDepositIntent.livemode,
    wallet_id: walletDepositIntent.wallet_id,
    status: walletDepositIntent.status,
    source_chain: walletDepositIntent.source_chain,
    source_asset: walletDepositIntent.source_asset,
    deposit_address: walletDepositIntent.deposit_address,
    destination: {
      chain: walletDepositIntent.destination_chain,
      asset: walletDepositIntent.destination_asset,
      address: walletDepositIntent.destination_address,
    },
    amount_in: mOrNull(walletDepositIntent.amount_in_minor, walletDepositIntent.source_asset),
    amount_out: mOrNull(walletDepositIntent.amount_out_minor, walletDepositIntent.destination_asset),
    bridge_fee: m(walletDepositIntent.bridge_fee_minor, walletDepositIntent.source_asset),
    amount_received: mOrNull(walletDepositIntent.received_minor, walletDepositIntent.source_asset),
    amount_delivered: mOrNull(walletDepositIntent.delivered_minor, walletDepositIntent.destination_asset),
    refund_address: walletDepositIntent.refund_address,
    source_tx_hash: walletDepositIntent.source_tx_hash,
    delivery_tx_hash: walletDepositIntent.delivery_tx_hash,
    recovery_tx_hash: walletDepositIntent.recovery_tx_hash,
    failure_reason: walletDepositIntent.failure_reason,
    expires_at: walletDepositIntent.expires_at.toISOString(),
    created_at: walletDepositIntent.created_at.toISOString(),
    updated_at: walletDepositIntent.updated_at.toISOString(),
  };
}

export const depositIntentResponse = Joi.object({
  id: text(),
  object: kind('wallet_deposit_intent'),
  livemode: Joi.boolean().required(),
  wallet_id: text(),
  status: text(),
  source_chain: text(),
  source_asset: text(),
  deposit_address: text(),
  destination: Joi.object({ chain: text(), asset: text(), address: text() }).required(),
  amount_in: moneyOrNull(),
  amount_out: moneyOrNull(),
  bridge_fee: money(),
  amount_received: moneyOrNull(),
  amount_delivered: moneyOrNull(),
  refund_address: textOrNull(),
  source_tx_hash: textOrNull(),
  delivery_tx_hash: textOrNull(),
  recovery_tx_hash: textOrNull(),
  failure_reason: textOrNull(),
  expires_at: at(),
  created_at: at(),
  updated_at: at(),
});

export const depositIntentListResponse = listEnvelope(depositIntentResponse);

/** `GET /wallet/conversion_pairs` item. */
export function conversionPairView(input: {
  chain: string;
  from: string;
  to: string;
  feeBps: bigint;
}): WalletConversionPairsList['data'][number] {
  return {
    object: 'wallet_conversion_pair',
    chain: input.chain,
    from_asset: input.from,
    to_asset: input.to,
    rate: '1',
    fee_bps: Number(input.feeBps),
  };
}

export const conversionPairResponse = Joi.object({
  object: kind('wallet_conversion_pair'),
  chain: text(),
  from_asset: text(),
  to_asset: text(),
  rate: text(),
  fee_bps: int(),
});

/** A conversion (`cnv_`): the unsigned transaction while `built`, the holder's hash once `submitted`. */
export function conversionView(walletConversion: WalletConversion): WalletConversionsCreate {
  return {
    id: walletConversion.id,
    object: 'wallet_conversion',
    livemode: walletConversion.livemode,
    wallet_id: walletConversion.wallet_id,
    status: walletConversion.status,
    chain: walletConversion.chain,
    from_asset: walletConversion.from_asset,
    to_asset: walletConversion.to_asset,
    amount_in: m(walletConversion.amount_in_minor, walletConversion.from_asset),
    fee: m(walletConversion.fee_minor, walletConversion.from_asset),
    amount_out: m(walletConversion.amount_out_minor, walletConversion.to_asset),
    unsigned_transaction: walletConversion.unsigned_tx as WalletConversionsCreate['unsigned_transaction'],
    signable_until: walletConversion.signable_until.toISOString(),
    source_tx_hash: walletConversion.source_tx_hash,
    settlement_tx_hash: walletConversion.settlement_tx_hash,
    failure_reason: walletConversion.failure_reason,
    submitted_at: walletConversion.submitted_at?.toISOString() ?? null,
    created_at: walletConversion.created_at.toISOString(),
    updated_at: walletConversion.updated_at.toISOString(),
  };
}

export const unsignedTransactionResponse = Joi.object({
  chain: text(),
  chain_id: int(),
  from: text(),
  to: text(),
  value: text(),
  data: text(),
  token_transfer: Joi.object({ token: text(), to: text(), amount: money() }).required(),
});

export const conversionResponse = Joi.object({
  id: text(),
  object: kind('wallet_conversion'),
  livemode: Joi.boolean().required(),
  wallet_id: text(),
  status: text(),
  chain: text(),
  from_asset: text(),
  to_asset: text(),
  amount_in: money(),
  fee: money(),
  amount_out: money(),
  unsigned_transaction: unsignedTransactionResponse,
  signable_until: at(),
  source_tx_hash: textOrNull(),
  settlement_tx_hash: textOrNull(),
  failure_reason: textOrNull(),
  submitted_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});
