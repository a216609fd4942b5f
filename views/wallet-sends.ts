/**
 * Wire projections of send intents and send routes (spec 2.5, 4.5; shapes ours where the spec is
 * silent, docs/decisions/0040-wallet-sends-signature-pay-with-wallet.md). Amounts are Money in minor units of the
 * stablecoin (6 decimals); `unsigned_transaction` is present only while the intent waits for the
 * holder's signature.
 */
import Joi from 'joi';
import type { UnsignedEvmCall } from '../domain/evm-calls';
import { SEND_FAILURE_REASONS, SEND_INTENT_STATUSES } from '../domain/wallet-sends';
import type { WalletSendIntent } from '../entities';
import { at, atOrNull, bool, int, kind, money, text, textOrNull } from './schema';
import type { WalletSendIntentsCreate, WalletSendRoutesList } from './wire';

const usdc = (minor: string | bigint, asset: string) => ({ amount: minor.toString(), currency: asset, decimals: 6 });

/** The unsigned ERC-20 transfer to sign (spec 2.5: built here, signed outside with the holder's passkey). */
export function unsignedTransactionView(unsignedEvmCall: UnsignedEvmCall): NonNullable<WalletSendIntentsCreate['unsigned_transaction']> {
  return {
    chain: unsignedEvmCall.chain,
    chain_id: unsignedEvmCall.chain_id,
    from: unsignedEvmCall.from,
    to: unsignedEvmCall.to,
    value: unsignedEvmCall.value,
    data: unsignedEvmCall.data,
  };
}

/** Response schema of `unsignedTransactionView`. */
export const unsignedTransactionResponse = Joi.object({
  chain: text(),
  chain_id: int(),
  from: text(),
  to: text(),
  value: Joi.string().valid('0').required(),
  data: Joi.string()
    .pattern(/^0x[0-9a-f]*$/)
    .required(),
});

/** A send intent (`wsi_`). */
export function sendIntentView(walletSendIntent: WalletSendIntent): WalletSendIntentsCreate {
  const signable = walletSendIntent.status === 'created' && !walletSendIntent.source_tx_hash;
  return {
    id: walletSendIntent.id,
    object: 'send_intent',
    livemode: walletSendIntent.livemode,
    status: walletSendIntent.status,
    wallet_id: walletSendIntent.wallet_id,
    chain: walletSendIntent.chain,
    from_address: walletSendIntent.from_address,
    destination_chain: walletSendIntent.destination_chain,
    destination_address: walletSendIntent.destination_address,
    route: walletSendIntent.route_kind,
    amount: usdc(walletSendIntent.amount_minor, walletSendIntent.asset),
    bridge_fee: usdc(walletSendIntent.fee_minor, walletSendIntent.asset),
    amount_out: usdc(walletSendIntent.amount_out_minor, walletSendIntent.asset),
    unsigned_transaction: signable ? unsignedTransactionView(walletSendIntent.unsigned_transaction) : null,
    source_tx_hash: walletSendIntent.source_tx_hash,
    delivery_tx_hash: walletSendIntent.delivery_tx_hash,
    failure_reason: walletSendIntent.failure_reason,
    note: walletSendIntent.note,
    expires_at: walletSendIntent.expires_at.toISOString(),
    submitted_at: walletSendIntent.submitted_at?.toISOString() ?? null,
    settled_at: walletSendIntent.settled_at?.toISOString() ?? null,
    failed_at: walletSendIntent.failed_at?.toISOString() ?? null,
    created_at: walletSendIntent.created_at.toISOString(),
    updated_at: walletSendIntent.updated_at.toISOString(),
  };
}

/** Response schema of `sendIntentView`. */
export const sendIntentResponse = Joi.object({
  id: text(),
  object: kind('send_intent'),
  livemode: bool(),
  status: Joi.string()
    .valid(...SEND_INTENT_STATUSES)
    .required(),
  wallet_id: text(),
  chain: text(),
  from_address: text(),
  destination_chain: text(),
  destination_address: text(),
  route: Joi.string().valid('direct', 'bridge').required(),
  amount: money(),
  bridge_fee: money(),
  amount_out: money(),
  unsigned_transaction: unsignedTransactionResponse.allow(null).required(),
  source_tx_hash: textOrNull(),
  delivery_tx_hash: textOrNull(),
  failure_reason: Joi.string()
    .valid(...SEND_FAILURE_REASONS)
    .allow(null)
    .required(),
  note: textOrNull(),
  expires_at: at(),
  submitted_at: atOrNull(),
  settled_at: atOrNull(),
  failed_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});

/** A send route with its current fee and minimum (minor units of the stablecoin). */
export function sendRouteView(input: {
  chain: string;
  asset: string;
  destination_chain: string;
  kind: 'direct' | 'bridge';
  fee: bigint;
  minimum: bigint;
}): WalletSendRoutesList['data'][number] {
  return {
    object: 'send_route',
    chain: input.chain,
    asset: input.asset,
    destination_chain: input.destination_chain,
    kind: input.kind,
    bridge_fee: usdc(input.fee, input.asset),
    minimum_amount: usdc(input.minimum, input.asset),
  };
}

/** Response schema of `sendRouteView`. */
export const sendRouteResponse = Joi.object({
  object: kind('send_route'),
  chain: text(),
  asset: text(),
  destination_chain: text(),
  kind: Joi.string().valid('direct', 'bridge').required(),
  bridge_fee: money(),
  minimum_amount: money(),
});
