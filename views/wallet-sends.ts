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
export function unsignedTransactionView(t: UnsignedEvmCall): NonNullable<WalletSendIntentsCreate['unsigned_transaction']> {
  return { chain: t.chain, chain_id: t.chain_id, from: t.from, to: t.to, value: t.value, data: t.data };
}

/** Response schema of `unsignedTransactionView`. */
export const unsignedTransactionResponse = Joi.object({
  chain: text(), chain_id: int(), from: text(), to: text(), value: Joi.string().valid('0').required(), data: Joi.string().pattern(/^0x[0-9a-f]*$/).required(),
});

/** A send intent (`wsi_`). */
export function sendIntentView(r: WalletSendIntent): WalletSendIntentsCreate {
  const signable = r.status === 'created' && !r.source_tx_hash;
  return {
    id: r.id, object: 'send_intent', livemode: r.livemode, status: r.status, wallet_id: r.wallet_id,
    chain: r.chain, from_address: r.from_address,
    destination_chain: r.destination_chain, destination_address: r.destination_address,
    route: r.route_kind,
    amount: usdc(r.amount_minor, r.asset), bridge_fee: usdc(r.fee_minor, r.asset), amount_out: usdc(r.amount_out_minor, r.asset),
    unsigned_transaction: signable ? unsignedTransactionView(r.unsigned_transaction) : null,
    source_tx_hash: r.source_tx_hash, delivery_tx_hash: r.delivery_tx_hash, failure_reason: r.failure_reason, note: r.note,
    expires_at: r.expires_at.toISOString(),
    submitted_at: r.submitted_at?.toISOString() ?? null, settled_at: r.settled_at?.toISOString() ?? null, failed_at: r.failed_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

/** Response schema of `sendIntentView`. */
export const sendIntentResponse = Joi.object({
  id: text(), object: kind('send_intent'), livemode: bool(), status: Joi.string().valid(...SEND_INTENT_STATUSES).required(), wallet_id: text(),
  chain: text(), from_address: text(), destination_chain: text(), destination_address: text(),
  route: Joi.string().valid('direct', 'bridge').required(),
  amount: money(), bridge_fee: money(), amount_out: money(),
  unsigned_transaction: unsignedTransactionResponse.allow(null).required(),
  source_tx_hash: textOrNull(), delivery_tx_hash: textOrNull(),
  failure_reason: Joi.string().valid(...SEND_FAILURE_REASONS).allow(null).required(),
  note: textOrNull(), expires_at: at(), submitted_at: atOrNull(), settled_at: atOrNull(), failed_at: atOrNull(), created_at: at(), updated_at: at(),
});

/** A send route with its current fee and minimum (minor units of the stablecoin). */
export function sendRouteView(r: { chain: string; asset: string; destination_chain: string; kind: 'direct' | 'bridge'; fee: bigint; minimum: bigint }): WalletSendRoutesList['data'][number] {
  return { object: 'send_route', chain: r.chain, asset: r.asset, destination_chain: r.destination_chain, kind: r.kind, bridge_fee: usdc(r.fee, r.asset), minimum_amount: usdc(r.minimum, r.asset) };
}

/** Response schema of `sendRouteView`. */
export const sendRouteResponse = Joi.object({
  object: kind('send_route'), chain: text(), asset: text(), destination_chain: text(), kind: Joi.string().valid('direct', 'bridge').required(),
  bridge_fee: money(), minimum_amount: money(),
});
