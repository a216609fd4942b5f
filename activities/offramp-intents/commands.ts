/**
 * The off-ramp intent's commands, what the routes call (spec 2.5): creating an intent that pays a
 * registered external account from the wallet's USDC, and canceling it before its transit deposit
 * is signed. Each writes its row with its outbox event in one transaction, then starts or wakes the
 * intent's workflow (signals.ts). Every command is `(scope, input)` (activities/scope.ts). USDC in
 * 6-decimal minor units; fiat in minor units of its currency.
 */
import { conflict, invalidRequest } from '../../domain/errors';
import { OFFRAMP_FUNDING_SECONDS, transitMemo } from '../../domain/offramp';
import { WalletOfframpIntent } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { offrampIntentView } from '../../views/wallet-offramp';
import { assertOfframpCancelable, cancelOfframp, lockOfframpIntent } from '../records/offramp-intents';
import { activeWallet, chainRead } from '../records/wallets';
import type { Scope } from '../scope';
import { getExternalAccount } from '../wallet/queries';
import { priceTerms, type OfframpTerms } from './queries';
import { signalOfframpIntent } from './signals';

/**
 * `POST /wallet/offramp_intents`: 404 `not_found` (param `external_account_id`); 400
 * `parameter_invalid` (param `destination_payment_rail`) when the account is on another rail; the
 * price rules of priceTerms; 400 `balance_insufficient` (param `amount`) above the wallet's
 * balance (503 `chain_unavailable` when unreadable). Emits `offramp_intent.created`; starts the
 * intent's workflow.
 */
export async function createOfframpIntent(
  scope: Scope,
  input: { external_account_id: string; terms: OfframpTerms },
): Promise<WalletOfframpIntent> {
  const ba = await getExternalAccount(scope, { id: input.external_account_id });
  if (ba.rail !== input.terms.destinationRail) {
    throw invalidRequest('parameter_invalid', `External account ${ba.id} is paid on \`${ba.rail}\`.`, 'destination_payment_rail');
  }
  const price = priceTerms(input.terms);
  const wallet = await activeWallet(scope);
  const chain = chainAdapter();
  const balance = await chainRead(wallet.id, () => chain.balanceOf(wallet.address, chain.stablecoin));
  if (balance < price.amount)
    throw invalidRequest('balance_insufficient', 'The wallet balance does not cover this off-ramp.', 'amount', {
      available: balance.toString(),
    });
  const id = newId('ofr_');
  const reference = `OFR${id.slice(4, 16).toUpperCase()}`;
  const now = new Date();
  const row = await transaction(async (m) => {
    const saved = await m.save(
      m.create(WalletOfframpIntent, {
        id,
        account_id: scope.accountId,
        livemode: scope.livemode,
        wallet_id: wallet.id,
        wallet_address: wallet.address,
        status: 'awaiting_funds',
        external_account_id: ba.id,
        destination_currency: input.terms.destinationCurrency,
        destination_decimals: price.decimals,
        destination_payment_rail: ba.rail,
        chain: chain.chain,
        asset: chain.stablecoin,
        amount_minor: price.amount.toString(),
        developer_fee_bps: Number(price.developerBps),
        service_fee_minor: price.serviceFee.toString(),
        developer_fee_minor: price.developerFee.toString(),
        rate_usdc_per_major: price.rate.toString(),
        destination_amount_minor: price.destinationAmount.toString(),
        transit_address: chain.depositAddress(`offramp:${id}`),
        transit_memo: transitMemo(ba.rail, reference),
        reference,
        received_minor: '0',
        source_tx_hash: null,
        rail_payment_id: null,
        settled_amount_minor: null,
        refund_tx_hash: null,
        failure_reason: null,
        return_reason: null,
        funding_deadline: new Date(now.getTime() + OFFRAMP_FUNDING_SECONDS * 1000),
        funds_received_at: null,
        payment_submitted_at: null,
        completed_at: null,
      }),
    );
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'offramp_intent.created',
      objectType: 'offramp_intent',
      objectId: id,
      object: offrampIntentView(saved),
      request: scope.request,
    });
    return saved;
  });
  await signalOfframpIntent(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/offramp_intents/{id}/cancel`: only from `awaiting_funds` (409
 * `offramp_intent_state_changed` otherwise), and refused with 409 `cancel_unavailable` once the
 * transit deposit is signed and broadcast (a pending transfer to the transit address, or funds
 * already there). Emits `offramp_intent.canceled`.
 */
export async function cancelOfframpIntent(scope: Scope, { id }: { id: string }): Promise<WalletOfframpIntent> {
  const chain = chainAdapter();
  const row = await transaction(async (m) => {
    const r = (await lockOfframpIntent(m, id, scope))!;
    assertOfframpCancelable(r); // 409 offramp_intent_state_changed before the chain is asked
    const [pending, arrived] = await Promise.all([
      chain.pendingTo(r.chain, r.transit_address),
      chain.balanceOf(r.transit_address, r.asset),
    ]);
    if (pending.length > 0 || arrived > 0n) {
      throw conflict('cancel_unavailable', 'The transit deposit is signed and broadcast; the off-ramp can no longer be canceled.', {
        tx_hash: pending[0]?.tx_hash ?? null,
      });
    }
    return cancelOfframp(m, r, scope.request);
  });
  await signalOfframpIntent(row.id, row.account_id);
  return row;
}
