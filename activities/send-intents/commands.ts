/**
 * The send intent's commands, what the routes call (spec 2.5): building a send from the account's
 * active wallet and recording the hash the holder signed. Each writes its row with its outbox event
 * in one transaction, then starts or wakes the intent's workflow (signals.ts). Every command is
 * `(scope, input)` (activities/scope.ts); lookups go through the scoped finder. Amounts in the
 * stablecoin's 6-decimal minor units.
 */
import { checkAddress } from '../../domain/addresses';
import { conflict, invalidRequest } from '../../domain/errors';
import { erc20TransferCall } from '../../domain/evm-calls';
import { toMinorPositive, type Money } from '../../domain/money';
import { MIN_SEND_MINOR, SEND_INTENT_TTL_SECONDS, sendRouteTo, sendRoutes } from '../../domain/wallet-sends';
import { WalletSendIntent } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { sendIntentView } from '../../views/wallet-sends';
import { lockSendIntent } from '../records/send-intents';
import { activeWallet, chainRead } from '../records/wallets';
import type { Scope } from '../scope';
import { wakeSendIntent } from './signals';

/** Create request of a send intent (validated shape; rules checked here). */
export interface CreateSendIntent {
  destinationChain: string;
  destinationAddress: string;
  amount: Money;
  note: string | null;
}

/**
 * `POST /wallet/send_intents`: builds a send from the account's active wallet. 400
 * `network_not_supported` (param `destination_chain`) for a chain no route reaches;
 * `parameter_invalid` (param `destination_address`) for a malformed, zero or own address;
 * `parameter_invalid` (param `amount.currency`) for another asset than the wallet's stablecoin;
 * `amount_invalid` (param `amount`) below the route's minimum (0.01 plus the bridge fee);
 * `balance_insufficient` (param `amount`) above the wallet's balance; 503 `chain_unavailable`
 * when the balance cannot be read. A cross-chain route opens the bridge transfer first
 * (idempotent by the intent id). Emits `send_intent.created`; starts the intent's workflow.
 */
export async function createSendIntent(scope: Scope, input: CreateSendIntent): Promise<WalletSendIntent> {
  const wallet = await activeWallet(scope);
  const chain = chainAdapter();
  const route = sendRouteTo(chain.chain, input.destinationChain);
  if (!route) {
    throw invalidRequest(
      'network_not_supported',
      `The wallet sends to ${sendRoutes(chain.chain)
        .map((r) => r.destination_chain)
        .join(', ')}.`,
      'destination_chain',
    );
  }
  const address = checkAddress('base', input.destinationAddress, chain.network);
  if (!address.ok) throw invalidRequest('parameter_invalid', `destination_address: ${address.reason}.`, 'destination_address');
  if (route.kind === 'direct' && address.key === wallet.address.toLowerCase()) {
    throw invalidRequest('parameter_invalid', 'A wallet cannot send to itself.', 'destination_address');
  }
  if (input.amount.currency !== chain.stablecoin)
    throw invalidRequest('parameter_invalid', `The wallet sends ${chain.stablecoin}.`, 'amount.currency');
  const amount = toMinorPositive(input.amount, 'amount');
  const now = new Date();
  const fee = route.kind === 'bridge' ? payInBridgeAdapter().quote(route.destination_chain, now).fee : 0n;
  if (amount < fee + MIN_SEND_MINOR) {
    throw invalidRequest(
      'amount_invalid',
      `The smallest send on this route is ${fee + MIN_SEND_MINOR} minor units (0.01 plus the bridge fee).`,
      'amount',
      { minimum: (fee + MIN_SEND_MINOR).toString() },
    );
  }
  const balance = await chainRead(wallet.id, () => chain.balanceOf(wallet.address, chain.stablecoin));
  if (balance < amount)
    throw invalidRequest('balance_insufficient', 'The wallet balance does not cover this send.', 'amount', {
      available: balance.toString(),
    });

  const id = newId('wsi_');
  let transferTo = address.address;
  let bridgeId: string | null = null;
  if (route.kind === 'bridge') {
    const t = await payInBridgeAdapter().createPayIn({
      idempotencyKey: `send:${id}`,
      clientReference: id,
      sourceChain: chain.chain,
      sourceAsset: chain.stablecoin,
      destinationChain: route.destination_chain,
      destinationAddress: address.address,
      destinationAsset: 'USDC',
      fee,
    });
    transferTo = t.deposit_address;
    bridgeId = t.id;
  }
  const row = await transaction(async (m) => {
    const r = m.create(WalletSendIntent, {
      id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      wallet_id: wallet.id,
      status: 'created',
      chain: chain.chain,
      asset: chain.stablecoin,
      from_address: wallet.address,
      destination_chain: route.destination_chain,
      destination_address: address.address,
      route_kind: route.kind,
      amount_minor: amount.toString(),
      fee_minor: fee.toString(),
      amount_out_minor: (amount - fee).toString(),
      transfer_to: transferTo,
      unsigned_transaction: erc20TransferCall({
        chain: chain.chain,
        chainId: chain.chainId,
        from: wallet.address,
        token: chain.tokenAddress,
        recipient: transferTo,
        amount,
      }),
      bridge_transfer_id: bridgeId,
      source_tx_hash: null,
      source_tx_recorded_at: null,
      delivery_tx_hash: null,
      failure_reason: null,
      note: input.note,
      expires_at: new Date(now.getTime() + SEND_INTENT_TTL_SECONDS * 1000),
      submitted_at: null,
      settled_at: null,
      failed_at: null,
    });
    const saved = await m.save(r);
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'send_intent.created',
      objectType: 'send_intent',
      objectId: id,
      object: sendIntentView(saved),
      request: scope.request,
    });
    return saved;
  });
  await wakeSendIntent(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/send_intents/{id}/source_tx`: records the hash the holder signed (the workflow then
 * looks for it on chain). The same hash again answers the intent unchanged; 409
 * `source_tx_already_recorded` for another hash, `send_intent_expired` past `expires_at`,
 * `send_intent_state_changed` once the intent left `created`, `source_tx_in_use` when another
 * intent recorded that hash; 404 for another account's intent.
 */
export async function recordSendSourceTx(
  scope: Scope,
  { id, tx_hash: txHash }: { id: string; tx_hash: string },
): Promise<WalletSendIntent> {
  const row = await transaction(async (m) => {
    const r = (await lockSendIntent(m, id, scope))!;
    if (r.source_tx_hash) {
      if (r.source_tx_hash.toLowerCase() === txHash.toLowerCase()) return r;
      throw conflict('source_tx_already_recorded', 'This send intent already has a signed transaction.', {
        source_tx_hash: r.source_tx_hash,
      });
    }
    if (r.status !== 'created')
      throw conflict('send_intent_state_changed', `A ${r.status} send intent takes no transaction.`, { status: r.status });
    if (r.expires_at.getTime() <= Date.now())
      throw conflict('send_intent_expired', 'This send intent expired before it was signed; build a new one.');
    const used: Array<{ id: string }> = await m.query(
      'SELECT id FROM wallet_send_intents WHERE chain = $1 AND lower(source_tx_hash) = lower($2) LIMIT 1',
      [r.chain, txHash],
    );
    if (used[0]) throw conflict('source_tx_in_use', 'That transaction is already recorded for another send intent.');
    r.source_tx_hash = txHash;
    r.source_tx_recorded_at = new Date();
    return m.save(r);
  });
  await wakeSendIntent(row.id, row.account_id);
  return row;
}
