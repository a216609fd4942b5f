/**
 * The deposit intent's command, what the route calls (spec 2.5): a bridge deposit address on a
 * source chain that delivers to the account's active wallet. It opens the bridge transfer, writes
 * the intent with its event in one transaction, then starts its workflow (signals.ts). `(scope,
 * input)` (activities/scope.ts). Amounts in 6-decimal minor units.
 */
import { invalidRequest } from '../../domain/errors';
import { assertStorableMinor } from '../../domain/money';
import { assetAmount, DEPOSIT_INTENT_TTL_MS, DEPOSIT_SOURCE_ASSET } from '../../domain/wallet-deposits';
import { grossUp } from '../../domain/xchain';
import { WalletDepositIntent } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { emitDepositIntentEvent } from '../records/deposit-intents';
import { activeWallet } from '../records/wallets';
import type { Scope } from '../scope';
import { sourceChainOf, type MoneyIn } from './queries';
import { signalDepositIntent } from './signals';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO = /^0x0{40}$/i;

/**
 * `POST /wallet/deposit_intents`: a bridge deposit address on `source_chain` delivering to the
 * account's active wallet (404 `wallet_not_found` without one). `amount` (optional) is the amount
 * out expected in the wallet; `refund_address` (optional, non-zero EVM address) is where a failed
 * bridge returns funds (default: the sender of the first source transfer). Status
 * `awaiting_funds`, event `deposit_intent.created`; the intent's workflow starts.
 */
export async function createDepositIntent(
  scope: Scope,
  body: { source_chain: string; amount?: MoneyIn; refund_address?: string | null },
): Promise<WalletDepositIntent> {
  const sourceChain = sourceChainOf(body.source_chain);
  const chain = chainAdapter();
  const now = new Date();
  const quote = payInBridgeAdapter().quote(sourceChain, now);
  let amounts: { amountIn: bigint; amountOut: bigint } | null = null;
  if (body.amount) amounts = grossUp(assetAmount(body.amount, [...new Set([DEPOSIT_SOURCE_ASSET, chain.stablecoin])]), quote.fee);
  if (amounts) assertStorableMinor(amounts.amountIn);
  const refund = body.refund_address ?? null;
  if (refund !== null && (!EVM_ADDRESS.test(refund) || ZERO.test(refund))) {
    throw invalidRequest('parameter_invalid', '`refund_address` must be a non-zero ^0x[0-9a-fA-F]{40}$ address.', 'refund_address');
  }
  const wallet = await activeWallet(scope);
  const id = newId('dpi_');
  // Provider call first, idempotent by the intent id (a retried create never opens a second transfer).
  const transfer = await payInBridgeAdapter().createPayIn({
    idempotencyKey: `deposit_intent:${id}`,
    clientReference: id,
    sourceChain,
    sourceAsset: DEPOSIT_SOURCE_ASSET,
    destinationChain: chain.chain,
    destinationAddress: wallet.address,
    destinationAsset: chain.stablecoin,
    fee: quote.fee,
  });
  const row = await transaction(async (m) => {
    const r = m.create(WalletDepositIntent, {
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      wallet_id: wallet.id,
      status: 'awaiting_funds',
      source_chain: sourceChain,
      source_asset: DEPOSIT_SOURCE_ASSET,
      deposit_address: transfer.deposit_address,
      bridge_transfer_id: transfer.id,
      destination_chain: chain.chain,
      destination_asset: chain.stablecoin,
      destination_address: wallet.address,
      amount_out_minor: amounts?.amountOut.toString() ?? null,
      amount_in_minor: amounts?.amountIn.toString() ?? null,
      bridge_fee_minor: quote.fee.toString(),
      received_minor: null,
      delivered_minor: null,
      refund_address: refund,
      source_tx_hash: null,
      source_from_address: null,
      delivery_tx_hash: null,
      recovery_tx_hash: null,
      failure_reason: null,
      expires_at: new Date(now.getTime() + DEPOSIT_INTENT_TTL_MS),
    });
    const saved = await m.save(r);
    await emitDepositIntentEvent(m, saved, scope.request);
    return saved;
  });
  await signalDepositIntent(row.id, row.account_id);
  return row;
}
