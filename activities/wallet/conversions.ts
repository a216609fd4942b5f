/**
 * Stablecoin conversions in the wallet (spec 2.5, 4.5, 6; issue 14): the conversion pairs of the
 * native chain, building a conversion (`cnv_`, status `built`, with the unsigned transaction the
 * holder signs with the passkey outside the API), recording the hash the holder signed
 * (`submitted`), and the steps of its workflow (workflows/conversion.ts) that watches the chain
 * for that transaction and checks it matches (token, amount, sender, recipient, chain): `settled`
 * (the router delivers the other asset to the wallet) or `failed` (`expired`,
 * `source_tx_not_found`, `source_tx_mismatch`). Every status change goes through
 * `conversionTransitions` with its catalogued `conversion.*` event in the same transaction.
 */
import { conversionCallData } from '../../domain/evm-calls';
import type { EntityManager } from 'typeorm';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import {
  assetAmount, CONVERSION_CONFIRM_MS, CONVERSION_EVENTS, CONVERSION_SIGNABLE_MS, conversionPairs, conversionTransitions, priceConversion,
  WALLET_ASSET_DECIMALS, type ConversionFailureReason, type ConversionPair, type ConversionStatus,
} from '../../domain/wallet-deposits';
import { WalletConversion } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { conversionView } from '../../views/wallet-deposits';
import { signalConversion } from './signals';
import { activeWalletOf } from './deposits';

/** The sandbox conversion router the holder's transaction pays into and that pays the other asset out. */
export const CONVERSION_ROUTER = deriveAddress('wallet:conversion-router');

/** The token contract of `asset` on the sandbox chain. */
const tokenAddress = (asset: string) => chainAdapter().tokenAddressOf(asset);

/** `GET /wallet/conversion_pairs`: the pairs of this network's chain. */
export function walletConversionPairs(): Array<ConversionPair & { chain: string }> {
  const chain = chainAdapter();
  return conversionPairs(chain.stablecoin).map((p) => ({ ...p, chain: chain.chain }));
}

/**
 * `POST /wallet/conversions`: `from_asset` -> `to_asset` (a pair of conversion_pairs, else `400
 * conversion_pair_unsupported` param `to_asset`), `amount` in `from_asset` (MoneyPositive).
 * Priced 1:1 less the pair fee; `built` with the unsigned transaction (the router call; the token
 * transfer it makes), signable for CONVERSION_SIGNABLE_MS; event `conversion.built`; its workflow starts.
 */
export async function createConversion(a: {
  accountId: string; livemode: boolean; body: { from_asset: string; to_asset: string; amount: { amount: string; currency: string; decimals: number } }; request: RequestRef | null;
}): Promise<WalletConversion> {
  const pair = walletConversionPairs().find((p) => p.from === a.body.from_asset && p.to === a.body.to_asset);
  if (!pair) {
    throw invalidRequest('conversion_pair_unsupported', `No conversion from ${a.body.from_asset} to ${a.body.to_asset}; see GET /v1/wallet/conversion_pairs.`, 'to_asset');
  }
  const amountIn = assetAmount(a.body.amount, [pair.from]);
  const price = priceConversion(pair, amountIn);
  const wallet = await activeWalletOf(a.accountId);
  const chain = chainAdapter();
  const id = newId('cnv_');
  const now = new Date();
  const unsigned = {
    chain: chain.chain, chain_id: chain.chainId, from: wallet.address, to: CONVERSION_ROUTER, value: '0',
    data: conversionCallData({ tokenIn: tokenAddress(pair.from), tokenOut: tokenAddress(pair.to), amountIn: price.amountIn, minAmountOut: price.amountOut, reference: id }),
    token_transfer: { token: tokenAddress(pair.from), to: CONVERSION_ROUTER, amount: { amount: price.amountIn.toString(), currency: pair.from, decimals: WALLET_ASSET_DECIMALS } },
  };
  const row = await transaction(async (m) => {
    const saved = await m.save(m.create(WalletConversion, {
      id, account_id: a.accountId, livemode: a.livemode, wallet_id: wallet.id, status: 'built', chain: chain.chain, wallet_address: wallet.address,
      from_asset: pair.from, to_asset: pair.to, amount_in_minor: price.amountIn.toString(), fee_minor: price.fee.toString(), amount_out_minor: price.amountOut.toString(),
      unsigned_tx: unsigned, source_tx_hash: null, settlement_tx_hash: null, failure_reason: null,
      signable_until: new Date(now.getTime() + CONVERSION_SIGNABLE_MS), submitted_at: null,
    }));
    await emitConversionEvent(m, saved, a.request);
    return saved;
  });
  await signalConversion(row.id, row.account_id);
  return row;
}

/** `GET /wallet/conversions/{id}`: one conversion of the account; 404 otherwise. */
export async function getConversion(accountId: string, id: string): Promise<WalletConversion> {
  const c = await db().getRepository(WalletConversion).findOneBy({ id, account_id: accountId });
  if (!c) throw notFound(`No such conversion: ${id}.`, 'id');
  return c;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * `POST /wallet/conversions/{id}/source_tx {tx_hash}`: the hash the holder signed. `built` ->
 * `submitted` (event `conversion.submitted`) and the workflow wakes. The same hash again answers
 * the conversion unchanged; 400 `parameter_invalid` param `tx_hash` for a malformed hash; 409
 * `conversion_expired` past `signable_until`; 409 `source_tx_already_used` for a hash another
 * conversion recorded; 409 `conversion_state_changed` once another hash was recorded or it ended.
 */
export async function submitConversionSourceTx(a: { accountId: string; id: string; txHash: string; request: RequestRef | null }): Promise<WalletConversion> {
  if (!TX_HASH.test(a.txHash)) throw invalidRequest('parameter_invalid', '`tx_hash` must be 0x and 64 hex digits.', 'tx_hash');
  await getConversion(a.accountId, a.id);
  const row = await transaction(async (m) => {
    const c = await m.findOne(WalletConversion, { where: { id: a.id, account_id: a.accountId }, lock: { mode: 'pessimistic_write' } });
    if (!c) throw notFound(`No such conversion: ${a.id}.`, 'id');
    // The recorded hash again answers the conversion as it is now (the workflow may already have settled it).
    if (c.source_tx_hash?.toLowerCase() === a.txHash.toLowerCase()) return c;
    if (c.status === 'built' && c.signable_until.getTime() <= Date.now()) {
      throw new DomainError('conflict', 'conversion_expired', 'This conversion can no longer be signed; build a new one.', { details: { signable_until: c.signable_until.toISOString() } });
    }
    conversionTransitions.assert(c.status, 'submitted');
    const used: Array<{ id: string }> = await m.query('SELECT id FROM wallet_conversions WHERE lower(source_tx_hash) = lower($1) AND id <> $2', [a.txHash, c.id]);
    if (used[0]) throw new DomainError('conflict', 'source_tx_already_used', 'This transaction hash was recorded for another conversion.', { param: 'tx_hash' });
    Object.assign(c, { status: 'submitted', source_tx_hash: a.txHash, submitted_at: new Date() });
    const saved = await m.save(c);
    await emitConversionEvent(m, saved, a.request);
    return saved;
  });
  await signalConversion(row.id, row.account_id);
  return row;
}

async function emitConversionEvent(m: EntityManager, c: WalletConversion, request: RequestRef | null = null): Promise<void> {
  await emitEvent(m, {
    accountId: c.account_id, livemode: c.livemode, type: CONVERSION_EVENTS[c.status as ConversionStatus],
    objectType: 'wallet_conversion', objectId: c.id, object: conversionView(c), relatedIds: [c.wallet_id], request,
  });
}

async function moveConversion(id: string, from: ConversionStatus, to: ConversionStatus, patch: Partial<WalletConversion>): Promise<WalletConversion> {
  return transaction(async (m) => {
    const c = await m.findOne(WalletConversion, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
    if (c.status === to || c.status !== from) return c;
    conversionTransitions.assert(c.status, to);
    Object.assign(c, patch, { status: to });
    const saved = await m.save(c);
    await emitConversionEvent(m, saved);
    return saved;
  });
}

/** What the conversion workflow needs after a step. */
/** A conversion as its workflow sees it; `createdAt` anchors its deadlines to the workflow's clock (domain/object-clock.ts). */
export interface ConversionState { status: string; terminal: boolean; signableUntil: string; confirmBy: string | null; createdAt: string }

const stateOf = (c: WalletConversion): ConversionState => ({
  status: c.status, terminal: conversionTransitions.terminal.includes(c.status as ConversionStatus), signableUntil: c.signable_until.toISOString(),
  confirmBy: c.submitted_at ? new Date(c.submitted_at.getTime() + CONVERSION_CONFIRM_MS).toISOString() : null,
  createdAt: c.created_at.toISOString(),
});

async function loadConversion(id: string): Promise<WalletConversion> {
  const c = await db().getRepository(WalletConversion).findOneBy({ id });
  if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
  return c;
}

/**
 * Workflow step: a `submitted` conversion whose transaction is on the chain is checked against
 * what was built (chain, token, amount in, sender = the wallet, recipient = the router): a match
 * settles (the router sends `amount_out` of `to_asset` to the wallet, idempotent by the
 * conversion id), a mismatch fails (`source_tx_mismatch`). Not on chain yet: unchanged.
 */
export async function checkConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status !== 'submitted' || !c.source_tx_hash) return stateOf(c);
  const chain = chainAdapter();
  const tx = await chain.transaction(c.source_tx_hash);
  if (!tx) return stateOf(c);
  const lower = (s: string | null) => (s ?? '').toLowerCase();
  const matches = tx.chain === c.chain && tx.asset === c.from_asset && tx.amount === BigInt(c.amount_in_minor)
    && lower(tx.from_address) === lower(c.wallet_address) && lower(tx.to_address) === lower(CONVERSION_ROUTER);
  if (!matches) return stateOf(await moveConversion(id, 'submitted', 'failed', { failure_reason: 'source_tx_mismatch' satisfies ConversionFailureReason }));
  const settlement = await chain.send(CONVERSION_ROUTER, c.wallet_address, c.to_asset, BigInt(c.amount_out_minor), `conversion:${id}`);
  return stateOf(await moveConversion(id, 'submitted', 'settled', { settlement_tx_hash: settlement }));
}

/**
 * Workflow step at a deadline (workflow time): a `built` conversion never submitted fails
 * `expired`; a `submitted` one gets a last look at the chain, then fails `source_tx_not_found`.
 */
export async function expireConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status === 'built') return stateOf(await moveConversion(id, 'built', 'failed', { failure_reason: 'expired' satisfies ConversionFailureReason }));
  const s = await checkConversion(id);
  if (s.status !== 'submitted') return s;
  return stateOf(await moveConversion(id, 'submitted', 'failed', { failure_reason: 'source_tx_not_found' satisfies ConversionFailureReason }));
}

/** The activities of workflows/conversion.ts (registered by activities/index.ts). */
export const conversionWorkflowActivities = { checkConversion, expireConversion };
export type ConversionWorkflowActivities = typeof conversionWorkflowActivities;
