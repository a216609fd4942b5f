/**
 * Deposits into the wallet from another chain (spec 2.5, 4.5, 6; issue 14): the deposit routes,
 * quotes (the cross-network rail's bridge fee and gross-up, domain/xchain.ts, providers/bridge.ts),
 * deposit intents (`dpi_`, dashboard session) with a bridge deposit address on the source chain,
 * and the steps of their workflow (workflows/deposit-intent.ts). Every status change goes through
 * `depositIntentTransitions` with its catalogued `deposit_intent.*` event in the same transaction.
 */
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import {
  assetAmount, DEPOSIT_INTENT_EVENTS, DEPOSIT_INTENT_TTL_MS, DEPOSIT_SOURCE_ASSET, DEPOSIT_SOURCE_CHAINS,
  depositIntentTransitions, type DepositIntentStatus,
} from '../../domain/wallet-deposits';
import { assertStorableMinor } from '../../domain/money';
import { grossUp, XCHAIN_USDC, type XchainNetwork } from '../../domain/xchain';
import { Wallet, WalletDepositIntent } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { depositIntentView, type DepositRoute } from '../../views/wallet-deposits';
import { signalDepositIntent } from './signals';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO = /^0x0{40}$/i;

/** The account's active wallet on this network; 404 `wallet_not_found` when it has none. */
export async function activeWalletOf(accountId: string): Promise<Wallet> {
  const w = await db().getRepository(Wallet).findOneBy({ account_id: accountId, network: chainAdapter().network, status: 'active' });
  if (!w) throw new DomainError('not_found', 'wallet_not_found', 'This account has no wallet on this network yet.');
  return w;
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

/** A source chain of DEPOSIT_SOURCE_CHAINS; otherwise `409 conflict` `network_not_supported` param `source_chain`. */
function sourceChainOf(c: string): XchainNetwork {
  if (!(DEPOSIT_SOURCE_CHAINS as readonly string[]).includes(c)) {
    throw new DomainError('conflict', 'network_not_supported', `Deposits come from ${DEPOSIT_SOURCE_CHAINS.join(', ')}; not ${c}.`,
      { param: 'source_chain', details: { networks: [...DEPOSIT_SOURCE_CHAINS] } });
  }
  return c as XchainNetwork;
}

interface MoneyIn { amount: string; currency: string; decimals: number }

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

/**
 * `POST /wallet/deposit_intents`: a bridge deposit address on `source_chain` delivering to the
 * account's active wallet (404 `wallet_not_found` without one). `amount` (optional) is the amount
 * out expected in the wallet; `refund_address` (optional, non-zero EVM address) is where a failed
 * bridge returns funds (default: the sender of the first source transfer). Status
 * `awaiting_funds`, event `deposit_intent.created`; the intent's workflow starts.
 */
export async function createDepositIntent(a: {
  accountId: string; livemode: boolean; body: { source_chain: string; amount?: MoneyIn; refund_address?: string | null }; request: RequestRef | null;
}): Promise<WalletDepositIntent> {
  const sourceChain = sourceChainOf(a.body.source_chain);
  const chain = chainAdapter();
  const now = new Date();
  const quote = payInBridgeAdapter().quote(sourceChain, now);
  let amounts: { amountIn: bigint; amountOut: bigint } | null = null;
  if (a.body.amount) amounts = grossUp(assetAmount(a.body.amount, [...new Set([DEPOSIT_SOURCE_ASSET, chain.stablecoin])]), quote.fee);
  if (amounts) assertStorableMinor(amounts.amountIn);
  const refund = a.body.refund_address ?? null;
  if (refund !== null && (!EVM_ADDRESS.test(refund) || ZERO.test(refund))) {
    throw invalidRequest('parameter_invalid', '`refund_address` must be a non-zero ^0x[0-9a-fA-F]{40}$ address.', 'refund_address');
  }
  const wallet = await activeWalletOf(a.accountId);
  const id = newId('dpi_');
  // Provider call first, idempotent by the intent id (a retried create never opens a second transfer).
  const transfer = await payInBridgeAdapter().createPayIn({
    idempotencyKey: `deposit_intent:${id}`, clientReference: id, sourceChain, sourceAsset: DEPOSIT_SOURCE_ASSET,
    destinationChain: chain.chain, destinationAddress: wallet.address, destinationAsset: chain.stablecoin, fee: quote.fee,
  });
  const row = await transaction(async (m) => {
    const r = m.create(WalletDepositIntent, {
      id, account_id: a.accountId, livemode: a.livemode, wallet_id: wallet.id, status: 'awaiting_funds',
      source_chain: sourceChain, source_asset: DEPOSIT_SOURCE_ASSET, deposit_address: transfer.deposit_address, bridge_transfer_id: transfer.id,
      destination_chain: chain.chain, destination_asset: chain.stablecoin, destination_address: wallet.address,
      amount_out_minor: amounts?.amountOut.toString() ?? null, amount_in_minor: amounts?.amountIn.toString() ?? null,
      bridge_fee_minor: quote.fee.toString(), received_minor: null, delivered_minor: null, refund_address: refund,
      source_tx_hash: null, source_from_address: null, delivery_tx_hash: null, recovery_tx_hash: null, failure_reason: null,
      expires_at: new Date(now.getTime() + DEPOSIT_INTENT_TTL_MS),
    });
    const saved = await m.save(r);
    await emitIntentEvent(m, saved, a.request);
    return saved;
  });
  await signalDepositIntent(row.id, row.account_id);
  return row;
}

/** `GET /wallet/deposit_intents`: the query (alias `d`) of the account's intents; the caller paginates. */
export function depositIntentListQuery(accountId: string, livemode: boolean): SelectQueryBuilder<WalletDepositIntent> {
  return db().getRepository(WalletDepositIntent).createQueryBuilder('d').where('d.account_id = :a AND d.livemode = :l', { a: accountId, l: livemode });
}

/** `GET /wallet/deposit_intents/{id}`: one intent of the account; 404 otherwise. */
export async function getDepositIntent(accountId: string, id: string): Promise<WalletDepositIntent> {
  const d = await db().getRepository(WalletDepositIntent).findOneBy({ id, account_id: accountId });
  if (!d) throw notFound(`No such deposit intent: ${id}.`, 'id');
  return d;
}

async function emitIntentEvent(m: EntityManager, d: WalletDepositIntent, request: RequestRef | null = null): Promise<void> {
  await emitEvent(m, {
    accountId: d.account_id, livemode: d.livemode, type: DEPOSIT_INTENT_EVENTS[d.status as DepositIntentStatus],
    objectType: 'wallet_deposit_intent', objectId: d.id, object: depositIntentView(d), relatedIds: [d.wallet_id], request,
  });
}

/**
 * Moves intent `id` to `to` with `patch` under a row lock, with its event, in one transaction.
 * Already in `to`: no change. Illegal: `IllegalTransition` (409; non-retryable in a workflow).
 */
async function moveIntent(id: string, to: DepositIntentStatus, patch: Partial<WalletDepositIntent> = {}): Promise<WalletDepositIntent> {
  return transaction(async (m) => {
    const d = await m.findOne(WalletDepositIntent, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
    if (d.status === to) return d;
    depositIntentTransitions.assert(d.status, to);
    Object.assign(d, patch, { status: to });
    const saved = await m.save(d);
    await emitIntentEvent(m, saved);
    return saved;
  });
}

/** What the deposit intent workflow needs after a step. */
export interface DepositIntentState {
  status: string; sourceChain: string; expiresAt: string; terminal: boolean;
  /** Anchors `expiresAt` to the workflow's clock (domain/object-clock.ts). */
  createdAt: string;
  /** True when the step changed the status (the workflow steps again at once). */
  changed: boolean;
}

const stateOf = (d: WalletDepositIntent, before: string): DepositIntentState => ({
  status: d.status, sourceChain: d.source_chain, expiresAt: d.expires_at.toISOString(), createdAt: d.created_at.toISOString(),
  terminal: depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus), changed: d.status !== before,
});

async function loadIntent(id: string): Promise<WalletDepositIntent> {
  const d = await db().getRepository(WalletDepositIntent).findOneBy({ id });
  if (!d) throw Object.assign(new Error(`deposit intent ${id} not found`), { name: 'NotFound' });
  return d;
}

/**
 * Workflow step: `awaiting_funds` -> `source_detected` when USDC reached the deposit address on
 * the source chain; then advances the bridge: held (`bridging`), delivered to the wallet
 * (`bridging` then `settled`, amount delivered and delivery hash), or failed: the undelivered
 * funds go back to the refund address (`recovering` then `failed`, `bridge_failed`), or
 * `manual_recovery_required` when there is no address to return them to; a failure with nothing
 * held is `failed`. Idempotent: a repeated step changes nothing twice.
 */
export async function advanceDepositIntent(id: string): Promise<DepositIntentState> {
  let d = await loadIntent(id);
  const before = d.status;
  if (depositIntentTransitions.terminal.includes(d.status as DepositIntentStatus)) return stateOf(d, before);
  if (d.status === 'awaiting_funds') {
    const seen = await chainAdapter().transfersTo(d.source_chain, d.deposit_address, d.source_asset);
    if (!seen.length) return stateOf(d, before);
    const received = seen.reduce((s, t) => s + t.amount, 0n);
    d = await moveIntent(id, 'source_detected', { received_minor: received.toString(), source_tx_hash: seen[0].tx_hash, source_from_address: seen[0].from_address });
    return stateOf(d, before);
  }
  const bridge = payInBridgeAdapter();
  if (d.status === 'recovering') return stateOf(await recoverIntent(d), before);
  const p = await bridge.advance(d.bridge_transfer_id);
  if (p.state === 'in_flight' || p.state === 'delivered') {
    if (d.status === 'source_detected') d = await moveIntent(id, 'bridging', { received_minor: p.received.toString() });
    if (p.state === 'delivered') {
      d = await moveIntent(id, 'settled', {
        received_minor: p.received.toString(), delivered_minor: p.delivered.toString(), delivery_tx_hash: p.delivery?.tx_hash ?? d.delivery_tx_hash,
      });
    }
  } else if (p.state === 'failed') {
    if (p.undelivered > 0n) {
      const to = d.refund_address ?? d.source_from_address;
      d = to
        ? await recoverIntent(await moveIntent(id, 'recovering', { received_minor: p.received.toString(), failure_reason: 'bridge_failed' }))
        : await moveIntent(id, 'manual_recovery_required', { received_minor: p.received.toString(), failure_reason: 'no_refund_address' });
    } else {
      d = await moveIntent(id, 'failed', { failure_reason: 'bridge_failed' });
    }
  }
  return stateOf(d, before);
}

/** Returns a failed bridge's undelivered funds to the refund address (idempotent by the received total), then `failed`. */
async function recoverIntent(d: WalletDepositIntent): Promise<WalletDepositIntent> {
  const to = d.refund_address ?? d.source_from_address;
  if (!to) return moveIntent(d.id, 'manual_recovery_required', { failure_reason: 'no_refund_address' });
  const r = await payInBridgeAdapter().returnUndelivered(d.bridge_transfer_id, to);
  return moveIntent(d.id, 'failed', { recovery_tx_hash: r?.tx_hash ?? d.recovery_tx_hash, failure_reason: d.failure_reason ?? 'bridge_failed' });
}

/**
 * Workflow step at `expires_at` (workflow time): a last look at the source chain (funds seen:
 * the intent goes on as `source_detected`), else `awaiting_funds` -> `expired`.
 */
export async function expireDepositIntent(id: string): Promise<DepositIntentState> {
  const d = await loadIntent(id);
  if (d.status !== 'awaiting_funds') return stateOf(d, d.status);
  const s = await advanceDepositIntent(id);
  if (s.changed) return s;
  return stateOf(await moveIntent(id, 'expired', { failure_reason: null }), 'awaiting_funds');
}

/** The activities of workflows/deposit-intent.ts (registered by activities/index.ts). */
export const depositIntentWorkflowActivities = { advanceDepositIntent, expireDepositIntent };
export type DepositIntentWorkflowActivities = typeof depositIntentWorkflowActivities;
