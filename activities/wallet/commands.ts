/**
 * The wallet area's commands, what the routes call (spec 2.5, 4.5; issue 14): registering the
 * passkey wallet, external bank accounts, send intents and their signed hash, off-ramp intents and
 * their cancel, deposit intents, conversions and their signed hash, wallet-funding virtual accounts
 * and their (de)activation, and the recording of a provider's bank credit to a virtual account
 * (`/sim/bank/credits`). Each writes its row with its outbox event in one transaction, then starts
 * or wakes the object's workflow (signals.ts). Errors are the spec's (each function says which).
 * Every command routes call is `(scope, input)` (activities/scope.ts): the account, mode, caller and
 * request come from the scope, lookups go through the scoped finder (lib/scoped.ts), status
 * changes through the object's transition table. USDC and stablecoins in 6-decimal minor units;
 * fiat in minor units of its currency.
 */
import { getAddress, isAddress } from 'viem';
import { checkAddress } from '../../domain/addresses';
import { normalizeBeneficiary, type BeneficiaryInput } from '../../domain/bank-details';
import { conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import { conversionCallData, erc20TransferCall } from '../../domain/evm-calls';
import { assertStorableMinor, toMinorPositive, type Money } from '../../domain/money';
import { OFFRAMP_FUNDING_SECONDS, offrampTransitions, transitMemo } from '../../domain/offramp';
import {
  VIRTUAL_ACCOUNT_CURRENCIES, VIRTUAL_ACCOUNT_RAILS, virtualAccountTransitions, type VirtualAccountStatus,
} from '../../domain/virtual-accounts';
import {
  assetAmount, CONVERSION_SIGNABLE_MS, conversionTransitions, DEPOSIT_INTENT_TTL_MS, DEPOSIT_SOURCE_ASSET, priceConversion,
  WALLET_ASSET_DECIMALS,
} from '../../domain/wallet-deposits';
import { MIN_SEND_MINOR, SEND_INTENT_TTL_SECONDS, sendRouteTo, sendRoutes } from '../../domain/wallet-sends';
import { grossUp } from '../../domain/xchain';
import {
  Account, Wallet, WalletConversion, WalletDepositIntent, WalletExternalAccount, WalletOfframpIntent, WalletSendIntent, WalletVirtualAccount,
} from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { encrypt } from '../../lib/secrets';
import { bankCollection, type ProviderCredit } from '../../providers/bank-collection';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { walletView } from '../../views/wallet';
import { offrampIntentView } from '../../views/wallet-offramp';
import { sendIntentView } from '../../views/wallet-sends';
import { virtualAccountView } from '../../views/wallet-virtual-accounts';
import { collectionCurrencies, getConversion, getExternalAccount, priceTerms, walletConversionPairs, type OfframpTerms } from './queries';
import { activeWallet, chainRead, CONVERSION_ROUTER, emitConversionEvent, emitDepositIntentEvent, sourceChainOf, type MoneyIn } from './records';
import type { Scope } from '../scope';
import { signalConversion, signalDepositIntent, signalOfframpIntent, wakeSendIntent, wakeVirtualAccount } from './signals';

/**
 * `POST /wallet/wallets`: registers the account's wallet on this network (one transaction). 400
 * `parameter_invalid` for a non-EVM address or a bad EIP-55 checksum; 409 `wallet_already_exists`.
 * Stores the EIP-55 form and emits `wallet.created` (catalogued: shipped by its switch).
 */
export async function createWallet(scope: Scope, a: { address: string; credentialId: string; label: string | null }): Promise<Wallet> {
  if (!isAddress(a.address, { strict: false })) throw new DomainError('invalid_request', 'parameter_invalid', '`address` must be an EVM address.', { param: 'address' });
  const hex = a.address.slice(2);
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && !isAddress(a.address, { strict: true })) {
    throw new DomainError('invalid_request', 'parameter_invalid', '`address` has an invalid EIP-55 checksum.', { param: 'address' });
  }
  const chain = chainAdapter();
  return transaction(async (m) => {
    const existing = await scoped(scope, m).query(Wallet, 'w').andWhere('w.network = :n', { n: chain.network }).setLock('pessimistic_write').getOne();
    if (existing) {
      throw new DomainError('conflict', 'wallet_already_exists', 'This account already has an active wallet on this network.', { details: { wallet_id: existing.id } });
    }
    const row = m.create(Wallet, {
      id: newId('wlt_'), account_id: scope.accountId, livemode: true, address: getAddress(a.address), chain: chain.chain,
      network: chain.network, status: 'active', label: a.label, credential_id: a.credentialId,
    });
    const saved = await m.save(row);
    await emitEvent(m, { accountId: scope.accountId, livemode: saved.livemode, type: 'wallet.created', objectType: 'wallet', objectId: saved.id, object: walletView(saved) });
    return saved;
  });
}

/** `POST /wallet/external_accounts`: stores `input` (400 on the rail's field rules, from normalizeBeneficiary); returns the row (masked). */
export async function createExternalAccount(scope: Scope, input: BeneficiaryInput): Promise<WalletExternalAccount> {
  const { details, masked } = normalizeBeneficiary(input);
  const repo = db().getRepository(WalletExternalAccount);
  return repo.save(repo.create({
    id: newId('ba_'), account_id: scope.accountId, livemode: scope.livemode, rail: masked.rail, currency: masked.currency, masked,
    details_ciphertext: encrypt(JSON.stringify(details)),
  }));
}

/** Create request of a send intent (validated shape; rules checked here). */
export interface CreateSendIntent { destinationChain: string; destinationAddress: string; amount: Money; note: string | null }

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
export async function createSendIntent(scope: Scope, a: CreateSendIntent): Promise<WalletSendIntent> {
  const wallet = await activeWallet(scope);
  const chain = chainAdapter();
  const route = sendRouteTo(chain.chain, a.destinationChain);
  if (!route) {
    throw invalidRequest('network_not_supported', `The wallet sends to ${sendRoutes(chain.chain).map((r) => r.destination_chain).join(', ')}.`, 'destination_chain');
  }
  const address = checkAddress('base', a.destinationAddress, chain.network);
  if (!address.ok) throw invalidRequest('parameter_invalid', `destination_address: ${address.reason}.`, 'destination_address');
  if (route.kind === 'direct' && address.key === wallet.address.toLowerCase()) {
    throw invalidRequest('parameter_invalid', 'A wallet cannot send to itself.', 'destination_address');
  }
  if (a.amount.currency !== chain.stablecoin) throw invalidRequest('parameter_invalid', `The wallet sends ${chain.stablecoin}.`, 'amount.currency');
  const amount = toMinorPositive(a.amount, 'amount');
  const now = new Date();
  const fee = route.kind === 'bridge' ? payInBridgeAdapter().quote(route.destination_chain, now).fee : 0n;
  if (amount < fee + MIN_SEND_MINOR) {
    throw invalidRequest('amount_invalid', `The smallest send on this route is ${fee + MIN_SEND_MINOR} minor units (0.01 plus the bridge fee).`, 'amount', { minimum: (fee + MIN_SEND_MINOR).toString() });
  }
  const balance = await chainRead(wallet.id, () => chain.balanceOf(wallet.address, chain.stablecoin));
  if (balance < amount) throw invalidRequest('balance_insufficient', 'The wallet balance does not cover this send.', 'amount', { available: balance.toString() });

  const id = newId('wsi_');
  let transferTo = address.address;
  let bridgeId: string | null = null;
  if (route.kind === 'bridge') {
    const t = await payInBridgeAdapter().createPayIn({
      idempotencyKey: `send:${id}`, clientReference: id, sourceChain: chain.chain, sourceAsset: chain.stablecoin,
      destinationChain: route.destination_chain, destinationAddress: address.address, destinationAsset: 'USDC', fee,
    });
    transferTo = t.deposit_address;
    bridgeId = t.id;
  }
  const row = await transaction(async (m) => {
    const r = m.create(WalletSendIntent, {
      id, account_id: scope.accountId, livemode: scope.livemode, wallet_id: wallet.id, status: 'created', chain: chain.chain, asset: chain.stablecoin,
      from_address: wallet.address, destination_chain: route.destination_chain, destination_address: address.address, route_kind: route.kind,
      amount_minor: amount.toString(), fee_minor: fee.toString(), amount_out_minor: (amount - fee).toString(), transfer_to: transferTo,
      unsigned_transaction: erc20TransferCall({ chain: chain.chain, chainId: chain.chainId, from: wallet.address, token: chain.tokenAddress, recipient: transferTo, amount }),
      bridge_transfer_id: bridgeId, source_tx_hash: null, source_tx_recorded_at: null, delivery_tx_hash: null, failure_reason: null,
      note: a.note, expires_at: new Date(now.getTime() + SEND_INTENT_TTL_SECONDS * 1000), submitted_at: null, settled_at: null, failed_at: null,
    });
    const saved = await m.save(r);
    await emitEvent(m, { accountId: scope.accountId, livemode: scope.livemode, type: 'send_intent.created', objectType: 'send_intent', objectId: id, object: sendIntentView(saved), request: scope.request });
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
export async function recordSendSourceTx(scope: Scope, { id, txHash }: { id: string; txHash: string }): Promise<WalletSendIntent> {
  const row = await transaction(async (m) => {
    const r = await scoped(scope, m).lock(WalletSendIntent, { id }, () => notFound(`No such send intent: ${id}.`, 'id'));
    if (r.source_tx_hash) {
      if (r.source_tx_hash.toLowerCase() === txHash.toLowerCase()) return r;
      throw conflict('source_tx_already_recorded', 'This send intent already has a signed transaction.', { source_tx_hash: r.source_tx_hash });
    }
    if (r.status !== 'created') throw conflict('send_intent_state_changed', `A ${r.status} send intent takes no transaction.`, { status: r.status });
    if (r.expires_at.getTime() <= Date.now()) throw conflict('send_intent_expired', 'This send intent expired before it was signed; build a new one.');
    const used: Array<{ id: string }> = await m.query(
      'SELECT id FROM wallet_send_intents WHERE chain = $1 AND lower(source_tx_hash) = lower($2) LIMIT 1', [r.chain, txHash]);
    if (used[0]) throw conflict('source_tx_in_use', 'That transaction is already recorded for another send intent.');
    r.source_tx_hash = txHash;
    r.source_tx_recorded_at = new Date();
    return m.save(r);
  });
  await wakeSendIntent(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/offramp_intents`: 404 `not_found` (param `external_account_id`); 400
 * `parameter_invalid` (param `destination_payment_rail`) when the account is on another rail; the
 * price rules of priceTerms; 400 `balance_insufficient` (param `amount`) above the wallet's
 * balance (503 `chain_unavailable` when unreadable). Emits `offramp_intent.created`; starts the
 * intent's workflow.
 */
export async function createOfframpIntent(scope: Scope, a: { externalAccountId: string; terms: OfframpTerms }): Promise<WalletOfframpIntent> {
  const ba = await getExternalAccount(scope, { id: a.externalAccountId });
  if (ba.rail !== a.terms.destinationRail) {
    throw invalidRequest('parameter_invalid', `External account ${ba.id} is paid on \`${ba.rail}\`.`, 'destination_payment_rail');
  }
  const price = priceTerms(a.terms);
  const wallet = await activeWallet(scope);
  const chain = chainAdapter();
  const balance = await chainRead(wallet.id, () => chain.balanceOf(wallet.address, chain.stablecoin));
  if (balance < price.amount) throw invalidRequest('balance_insufficient', 'The wallet balance does not cover this off-ramp.', 'amount', { available: balance.toString() });
  const id = newId('ofr_');
  const reference = `OFR${id.slice(4, 16).toUpperCase()}`;
  const now = new Date();
  const row = await transaction(async (m) => {
    const saved = await m.save(m.create(WalletOfframpIntent, {
      id, account_id: scope.accountId, livemode: scope.livemode, wallet_id: wallet.id, wallet_address: wallet.address, status: 'awaiting_funds',
      external_account_id: ba.id, destination_currency: a.terms.destinationCurrency, destination_decimals: price.decimals,
      destination_payment_rail: ba.rail, chain: chain.chain, asset: chain.stablecoin, amount_minor: price.amount.toString(),
      developer_fee_bps: Number(price.developerBps), service_fee_minor: price.serviceFee.toString(), developer_fee_minor: price.developerFee.toString(),
      rate_usdc_per_major: price.rate.toString(), destination_amount_minor: price.destinationAmount.toString(),
      transit_address: chain.depositAddress(`offramp:${id}`), transit_memo: transitMemo(ba.rail, reference), reference,
      received_minor: '0', source_tx_hash: null, rail_payment_id: null, settled_amount_minor: null, refund_tx_hash: null,
      failure_reason: null, return_reason: null, funding_deadline: new Date(now.getTime() + OFFRAMP_FUNDING_SECONDS * 1000),
      funds_received_at: null, payment_submitted_at: null, completed_at: null,
    }));
    await emitEvent(m, { accountId: scope.accountId, livemode: scope.livemode, type: 'offramp_intent.created', objectType: 'offramp_intent', objectId: id, object: offrampIntentView(saved), request: scope.request });
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
    const r = await scoped(scope, m).lock(WalletOfframpIntent, { id }, () => notFound(`No such off-ramp intent: ${id}.`, 'id'));
    offrampTransitions.assert(r.status, 'canceled'); // 409 offramp_intent_state_changed before the chain is asked
    const [pending, arrived] = await Promise.all([chain.pendingTo(r.chain, r.transit_address), chain.balanceOf(r.transit_address, r.asset)]);
    if (pending.length > 0 || arrived > 0n) {
      throw conflict('cancel_unavailable', 'The transit deposit is signed and broadcast; the off-ramp can no longer be canceled.', { tx_hash: pending[0]?.tx_hash ?? null });
    }
    offrampTransitions.move(r, 'canceled');
    r.completed_at = new Date();
    const saved = await m.save(r);
    await emitEvent(m, { accountId: scope.accountId, livemode: scope.livemode, type: 'offramp_intent.canceled', objectType: 'offramp_intent', objectId: id, object: offrampIntentView(saved), request: scope.request });
    return saved;
  });
  await signalOfframpIntent(row.id, row.account_id);
  return row;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO = /^0x0{40}$/i;

/**
 * `POST /wallet/deposit_intents`: a bridge deposit address on `source_chain` delivering to the
 * account's active wallet (404 `wallet_not_found` without one). `amount` (optional) is the amount
 * out expected in the wallet; `refund_address` (optional, non-zero EVM address) is where a failed
 * bridge returns funds (default: the sender of the first source transfer). Status
 * `awaiting_funds`, event `deposit_intent.created`; the intent's workflow starts.
 */
export async function createDepositIntent(scope: Scope, body: { source_chain: string; amount?: MoneyIn; refund_address?: string | null }): Promise<WalletDepositIntent> {
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
    idempotencyKey: `deposit_intent:${id}`, clientReference: id, sourceChain, sourceAsset: DEPOSIT_SOURCE_ASSET,
    destinationChain: chain.chain, destinationAddress: wallet.address, destinationAsset: chain.stablecoin, fee: quote.fee,
  });
  const row = await transaction(async (m) => {
    const r = m.create(WalletDepositIntent, {
      id, account_id: scope.accountId, livemode: scope.livemode, wallet_id: wallet.id, status: 'awaiting_funds',
      source_chain: sourceChain, source_asset: DEPOSIT_SOURCE_ASSET, deposit_address: transfer.deposit_address, bridge_transfer_id: transfer.id,
      destination_chain: chain.chain, destination_asset: chain.stablecoin, destination_address: wallet.address,
      amount_out_minor: amounts?.amountOut.toString() ?? null, amount_in_minor: amounts?.amountIn.toString() ?? null,
      bridge_fee_minor: quote.fee.toString(), received_minor: null, delivered_minor: null, refund_address: refund,
      source_tx_hash: null, source_from_address: null, delivery_tx_hash: null, recovery_tx_hash: null, failure_reason: null,
      expires_at: new Date(now.getTime() + DEPOSIT_INTENT_TTL_MS),
    });
    const saved = await m.save(r);
    await emitDepositIntentEvent(m, saved, scope.request);
    return saved;
  });
  await signalDepositIntent(row.id, row.account_id);
  return row;
}

/** The token contract of `asset` on the sandbox chain. */
const tokenAddress = (asset: string) => chainAdapter().tokenAddressOf(asset);

/**
 * `POST /wallet/conversions`: `from_asset` -> `to_asset` (a pair of conversion_pairs, else `400
 * conversion_pair_unsupported` param `to_asset`), `amount` in `from_asset` (MoneyPositive).
 * Priced 1:1 less the pair fee; `built` with the unsigned transaction (the router call; the token
 * transfer it makes), signable for CONVERSION_SIGNABLE_MS; event `conversion.built`; its workflow starts.
 */
export async function createConversion(scope: Scope, body: { from_asset: string; to_asset: string; amount: MoneyIn }): Promise<WalletConversion> {
  const pair = walletConversionPairs().find((p) => p.from === body.from_asset && p.to === body.to_asset);
  if (!pair) {
    throw invalidRequest('conversion_pair_unsupported', `No conversion from ${body.from_asset} to ${body.to_asset}; see GET /v1/wallet/conversion_pairs.`, 'to_asset');
  }
  const amountIn = assetAmount(body.amount, [pair.from]);
  const price = priceConversion(pair, amountIn);
  const wallet = await activeWallet(scope);
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
      id, account_id: scope.accountId, livemode: scope.livemode, wallet_id: wallet.id, status: 'built', chain: chain.chain, wallet_address: wallet.address,
      from_asset: pair.from, to_asset: pair.to, amount_in_minor: price.amountIn.toString(), fee_minor: price.fee.toString(), amount_out_minor: price.amountOut.toString(),
      unsigned_tx: unsigned, source_tx_hash: null, settlement_tx_hash: null, failure_reason: null,
      signable_until: new Date(now.getTime() + CONVERSION_SIGNABLE_MS), submitted_at: null,
    }));
    await emitConversionEvent(m, saved, scope.request);
    return saved;
  });
  await signalConversion(row.id, row.account_id);
  return row;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * `POST /wallet/conversions/{id}/source_tx {tx_hash}`: the hash the holder signed. `built` ->
 * `submitted` (event `conversion.submitted`) and the workflow wakes. The same hash again answers
 * the conversion unchanged; 400 `parameter_invalid` param `tx_hash` for a malformed hash; 409
 * `conversion_expired` past `signable_until`; 409 `source_tx_already_used` for a hash another
 * conversion recorded; 409 `conversion_state_changed` once another hash was recorded or it ended.
 */
export async function submitConversionSourceTx(scope: Scope, a: { id: string; txHash: string }): Promise<WalletConversion> {
  if (!TX_HASH.test(a.txHash)) throw invalidRequest('parameter_invalid', '`tx_hash` must be 0x and 64 hex digits.', 'tx_hash');
  await getConversion(scope, { id: a.id });
  const row = await transaction(async (m) => {
    const c = await scoped(scope, m).lock(WalletConversion, { id: a.id }, () => notFound(`No such conversion: ${a.id}.`, 'id'));
    // The recorded hash again answers the conversion as it is now (the workflow may already have settled it).
    if (c.source_tx_hash?.toLowerCase() === a.txHash.toLowerCase()) return c;
    if (c.status === 'built' && c.signable_until.getTime() <= Date.now()) {
      throw new DomainError('conflict', 'conversion_expired', 'This conversion can no longer be signed; build a new one.', { details: { signable_until: c.signable_until.toISOString() } });
    }
    conversionTransitions.assert(c.status, 'submitted'); // 409 conversion_state_changed before the hash is looked up
    const used: Array<{ id: string }> = await m.query('SELECT id FROM wallet_conversions WHERE lower(source_tx_hash) = lower($1) AND id <> $2', [a.txHash, c.id]);
    if (used[0]) throw new DomainError('conflict', 'source_tx_already_used', 'This transaction hash was recorded for another conversion.', { param: 'tx_hash' });
    conversionTransitions.move(c, 'submitted');
    Object.assign(c, { source_tx_hash: a.txHash, submitted_at: new Date() });
    const saved = await m.save(c);
    await emitConversionEvent(m, saved, scope.request);
    return saved;
  });
  await signalConversion(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/virtual_accounts`: issues the wallet-funding account of `currency`. 400
 * `parameter_invalid` (param `currency`) outside USD, EUR, GBP, MXN, BRL; 404 `wallet_not_found`;
 * 409 `conflict` code `collection_account_uses_currency` when a collection account already
 * received that currency; 409 `virtual_account_already_exists` (details `virtual_account_id`) when
 * the account has one for it. Emits `virtual_account.created`; starts its workflow.
 */
export async function createVirtualAccount(scope: Scope, a: { currency: string }): Promise<WalletVirtualAccount> {
  const rails = VIRTUAL_ACCOUNT_RAILS[a.currency];
  if (!rails) throw invalidRequest('parameter_invalid', `Virtual accounts are issued in ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}.`, 'currency');
  const wallet = await activeWallet(scope);
  if ((await collectionCurrencies(scope)).has(a.currency)) {
    throw conflict('collection_account_uses_currency', `A collection account of this account already receives ${a.currency}; it cannot also fund the wallet.`, { currency: a.currency });
  }
  const existing = await scoped(scope).findOne(WalletVirtualAccount, { currency: a.currency, purpose: 'wallet_funding' });
  if (existing) throw conflict('virtual_account_already_exists', `This account already has a ${a.currency} virtual account.`, { virtual_account_id: existing.id });
  const holder = await db().getRepository(Account).findOneByOrFail({ id: scope.accountId });
  const id = newId('va_');
  const instructions: Array<Record<string, string | null>> = [];
  for (const rail of rails) instructions.push((await bankCollection().issue({ rail, currency: a.currency, clientReference: id, holderName: holder.display_name })).instructions);
  const row = await transaction(async (m) => {
    const inserted: Array<{ id: string }> = await m.query(
      `INSERT INTO wallet_virtual_accounts(id, account_id, livemode, purpose, status, currency, rails, instructions, wallet_id, wallet_address)
       VALUES ($1,$2,$3,'wallet_funding','active',$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING RETURNING id`,
      [id, scope.accountId, scope.livemode, a.currency, [...rails], JSON.stringify(instructions), wallet.id, wallet.address]);
    if (!inserted[0]) throw conflict('virtual_account_already_exists', `This account already has a ${a.currency} virtual account.`);
    const r = (await m.findOneBy(WalletVirtualAccount, { id }))!;
    await emitEvent(m, { accountId: scope.accountId, livemode: scope.livemode, type: 'virtual_account.created', objectType: 'virtual_account', objectId: id, object: virtualAccountView(r), request: scope.request });
    return r;
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}

/**
 * `POST /wallet/virtual_accounts/{id}/deactivate` (`to: inactive`) and `/reactivate` (`to: active`):
 * through the transition table (409 `virtual_account_state_changed` when already there); only
 * `wallet_funding` rows (409 `virtual_account_not_managed` for collection and legacy rows). Emits
 * `virtual_account.deactivated` / `.reactivated`; wakes the workflow (a deactivated account's
 * later credits are returned to their senders).
 */
export async function setVirtualAccountStatus(scope: Scope, { id, to }: { id: string; to: VirtualAccountStatus }): Promise<WalletVirtualAccount> {
  const row = await transaction(async (m) => {
    const r = await scoped(scope, m).lock(WalletVirtualAccount, { id }, () => notFound(`No such virtual account: ${id}.`, 'id'));
    if (r.purpose !== 'wallet_funding') throw conflict('virtual_account_not_managed', `A ${r.purpose} account is not deactivated or reactivated here.`);
    virtualAccountTransitions.move(r, to);
    r.deactivated_at = to === 'inactive' ? new Date() : null;
    const saved = await m.save(r);
    await emitEvent(m, { accountId: scope.accountId, livemode: scope.livemode, type: to === 'inactive' ? 'virtual_account.deactivated' : 'virtual_account.reactivated', objectType: 'virtual_account', objectId: id, object: virtualAccountView(saved), request: scope.request });
    return saved;
  });
  await wakeVirtualAccount(row.id, row.account_id);
  return row;
}

/**
 * Records provider credit `c` (matched to `va_...` by the provider) against its virtual account
 * (idempotent by the provider's credit id) and wakes the account's workflow. Returns false when
 * the credit is not a virtual account's. A provider notification (`/sim/bank/credits`), not a
 * caller's command: no scope, the account is the credit's virtual account's; the credit starts
 * `received` (domain/virtual-accounts.ts `virtualAccountCreditTransitions`).
 */
export async function recordVirtualAccountCredit(c: ProviderCredit, decimals: number): Promise<boolean> {
  if (!c.client_reference?.startsWith('va_')) return false;
  const rows: Array<{ id: string; account_id: string }> = await db().query('SELECT id, account_id FROM wallet_virtual_accounts WHERE id = $1', [c.client_reference]);
  const va = rows[0];
  if (!va) return false;
  await db().query(
    `INSERT INTO wallet_virtual_account_credits(id, virtual_account_id, account_id, provider_credit_id, rail, currency, amount_minor, decimals, sender_name, reference, status)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,'received') ON CONFLICT (provider_credit_id) DO NOTHING`,
    [newId('vac_'), va.id, va.account_id, c.id, c.rail, c.currency, c.amount.toString(), decimals, c.sender_name, c.reference]);
  await wakeVirtualAccount(va.id, va.account_id);
  return true;
}
