/**
 * Prepared service-wallet sends (spec 2.5: nothing in the API can sign; 4.3 cancel rules). The
 * service prepares an unsigned send from the holder's wallet to a payout's funding address; the
 * holder signs it outside the service with a passkey while it is signable. The wallet provider
 * can close an unsigned send so it can never be signed.
 *
 * The provider reports what it did; the payouts area moves its `wallet_sends` rows through their
 * transition table (activities/payouts/wallet-sends.ts): this module never writes them.
 *
 * Sandbox: signing is the simulator's `/sim/wallet/sends/{id}/sign` (the holder acting), which
 * debits the wallet on the sandbox chain ledger and delivers the USDC to the funding address
 * across networks in the signing transaction. Fault `wallet.close_fails` (per account) makes closing fail.
 * `signTransaction` plays the holder's passkey on any built ERC-20 transfer (`/sim/wallet/sign`).
 */
import crypto from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { transaction } from '../lib/db';
import { chainAdapter, deriveAddress, type ObservedTransfer } from './chain';
import { decodeConversionCall, decodeErc20Transfer } from '../domain/evm-calls';
import { CONVERSION_OTHER_ASSET } from '../domain/wallet-deposits';
import { XCHAIN_USDC } from '../domain/xchain';
import { faultValue } from './sandbox-faults';

/** Raised when the provider cannot close unsigned sends right now. */
export class WalletSendCloseError extends Error {
  override readonly name = 'WalletSendCloseError';
}

/** Router address the sandbox cross-network send passes through. */
export const CROSS_NETWORK_ROUTER = deriveAddress('wallet:router');

/**
 * The sandbox payer wallet: a payer's wallet whose passkey the sandbox holds, on every chain it
 * signs for. `signTransaction` signs from it like from a registered wallet, first minting to it
 * what its balance lacks, so a payer in the sandbox can pay from it without funding it (the payer
 * page's SANDBOX button, `POST /sim/wallet/sign`).
 */
export const SANDBOX_PAYER_WALLET = deriveAddress('sandbox:payer-wallet');

/**
 * The wallet provider closes every unsigned send (signable or expired) of payout `payoutId` of the
 * holder `accountId`: afterwards none can be signed. Throws WalletSendCloseError when it cannot
 * (sandbox: fault `wallet.close_fails` set for that account). The provider reports; the payouts
 * area moves its `wallet_sends` rows (activities/payouts/wallet-sends.ts).
 */
export async function closeUnsignedSends(accountId: string, _payoutId: string): Promise<void> {
  if ((await faultValue(accountId, 'wallet.close_fails')) === 'true')
    throw new WalletSendCloseError('the wallet provider could not close unsigned sends');
}

/** The prepared send the holder signs (a `wallet_sends` row as the provider reads it; amounts in USDC minor units). */
export interface SendToSign {
  id: string;
  wallet_address: string;
  wallet_chain: string;
  to_address: string;
  to_chain: string;
  asset: string;
  amount_minor: string;
  delivery_minor: string;
}

/**
 * Sandbox: the holder's signature of prepared send `s`, inside the caller's transaction `m`
 * (activities/payouts/wallet-sends.ts `signWalletSend`, which checks the send is signable and
 * moves it). Serialised per wallet: checks the wallet balance on its chain covers the send, debits
 * it (to the cross-network router) and credits the funding address on the destination chain in
 * the sandbox chain ledger. Returns the debit's hash and the delivery to report to the chain
 * watchers after commit. Throws Error when the balance does not cover the send.
 */
export async function signSend(manager: EntityManager, sendToSign: SendToSign): Promise<{ debitHash: string; delivery: ObservedTransfer }> {
  // Serialise sends of one wallet so two signatures cannot spend the same balance.
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wallet:${sendToSign.wallet_address.toLowerCase()}`]);
  const bal: Array<{ b: string }> = await manager.query(
    `SELECT (COALESCE(SUM(amount_minor) FILTER (WHERE lower(to_address) = lower($1)), 0)
           - COALESCE(SUM(amount_minor) FILTER (WHERE lower(from_address) = lower($1)), 0))::text AS b
       FROM sandbox_chain_transfers WHERE chain = $2 AND asset = $3`,
    [sendToSign.wallet_address, sendToSign.wallet_chain, sendToSign.asset],
  );
  if (BigInt(bal[0].b) < BigInt(sendToSign.amount_minor)) throw new Error('wallet balance does not cover the send');
  const debitHash = `0x${crypto.createHash('sha256').update(`wallet-send:${sendToSign.id}:debit`).digest('hex')}`;
  const creditHash = `0x${crypto.createHash('sha256').update(`wallet-send:${sendToSign.id}:delivery`).digest('hex')}`;
  await manager.query(
    `INSERT INTO sandbox_chain_transfers(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, idempotency_key)
     VALUES ($1,$2,$3,$4,$5,6,$6,$7), ($8,$2,$4,$9,$10,6,$11,$12)`,
    [
      sendToSign.wallet_chain,
      sendToSign.asset,
      sendToSign.wallet_address,
      CROSS_NETWORK_ROUTER,
      sendToSign.amount_minor,
      debitHash,
      `wallet-send:${sendToSign.id}:debit`,
      sendToSign.to_chain,
      sendToSign.to_address,
      sendToSign.delivery_minor,
      creditHash,
      `wallet-send:${sendToSign.id}:delivery`,
    ],
  );
  const delivery: ObservedTransfer = {
    chain: sendToSign.to_chain,
    asset: sendToSign.asset,
    from_address: CROSS_NETWORK_ROUTER,
    to_address: sendToSign.to_address,
    amount: BigInt(sendToSign.delivery_minor),
    decimals: 6,
    tx_hash: creditHash,
  };
  return { debitHash, delivery };
}

/** Assets a conversion on the sandbox chain can pay into the router. */
const CONVERTIBLE_ASSETS = (chain: { stablecoin: string }): string[] => [chain.stablecoin, CONVERSION_OTHER_ASSET];

/** Why the sandbox holder refused to sign: `param` names the offending request field when there is one. */
export class SignRefused extends Error {
  override readonly name = 'SignRefused';
  constructor(
    message: string,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** A transaction the holder is asked to sign: an ERC-20 transfer call (domain/evm-calls.ts). */
export interface SignRequest {
  from: string;
  chain_id: number;
  to: string;
  data: string;
  /** `pending`: broadcast only (in the mempool until `/sim/chain/transfers/{hash}/confirm`); default `confirmed`. */
  status?: 'confirmed' | 'pending';
}

/**
 * Simulator: the holder's passkey signs a built transaction and broadcasts it (spec 2.5: signing
 * happens outside the API). Accepts an ERC-20 `transfer` on a stablecoin contract the sandbox
 * knows (the native chain's, or USDC on a bridged network), or a conversion router `convert` call
 * on the native chain (paying `amountIn` of `tokenIn` to the router), from a wallet registered here (the
 * sandbox holds those passkeys) or from SANDBOX_PAYER_WALLET (minted what it lacks first). In one
 * transaction, serialised per wallet: checks the balance on that chain and records the transfer
 * under a fresh hash; then reports it to the chain watchers
 * (with `status: pending`, broadcast only: it waits in the mempool until confirmed).
 * Throws SignRefused (unknown chain or token, not a transfer, unknown wallet, balance too low).
 */
export async function signTransaction(req: SignRequest): Promise<ObservedTransfer> {
  const chain = chainAdapter();
  const xchain = Object.entries(XCHAIN_USDC).find(([, v]) => v.chainId === req.chain_id);
  const target =
    req.chain_id === chain.chainId
      ? { chain: chain.chain, asset: chain.stablecoin, token: chain.tokenAddress }
      : xchain
        ? { chain: xchain[0], asset: 'USDC', token: xchain[1].tokenAddress }
        : null;
  if (!target)
    throw new SignRefused(
      `The sandbox signs on chain ids ${[chain.chainId, ...Object.values(XCHAIN_USDC).map((v) => v.chainId)].join(', ')}.`,
      'network_not_supported',
      'chain_id',
    );
  const conversion = target.chain === chain.chain ? decodeConversionCall(req.data) : null;
  const convertedAsset = conversion
    ? CONVERTIBLE_ASSETS(chain).find((a) => chain.tokenAddressOf(a).toLowerCase() === conversion.tokenIn.toLowerCase())
    : undefined;
  if (conversion && convertedAsset) {
    // A conversion router call: the signed transaction pays `amountIn` of `tokenIn` into the router (`to`).
    target.asset = convertedAsset;
  } else if (req.to.toLowerCase() !== target.token.toLowerCase()) {
    throw new SignRefused(`\`to\` must be the ${target.asset} contract ${target.token} on ${target.chain}.`, 'parameter_invalid', 'to');
  }
  const call = conversion && convertedAsset ? { recipient: req.to, amount: conversion.amountIn } : decodeErc20Transfer(req.data);
  if (!call)
    throw new SignRefused(
      '`data` must be an ERC-20 transfer(address,uint256) or a conversion router convert(...) call.',
      'parameter_invalid',
      'data',
    );
  if (call.amount <= 0n) throw new SignRefused('The transfer amount must be positive.', 'parameter_invalid', 'data');
  const t = await transaction(async (m) => {
    const payerWallet = req.from.toLowerCase() === SANDBOX_PAYER_WALLET.toLowerCase();
    const w: Array<{ address: string }> = payerWallet
      ? [{ address: SANDBOX_PAYER_WALLET }]
      : await m.query('SELECT address FROM wallets WHERE lower(address) = lower($1) LIMIT 1', [req.from]);
    if (!w[0]) throw new SignRefused('The sandbox holds no passkey for that wallet.', 'wallet_not_found', 'from');
    await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wallet:${req.from.toLowerCase()}`]);
    const bal: Array<{ b: string }> = await m.query(
      `SELECT (COALESCE(SUM(amount_minor) FILTER (WHERE lower(to_address) = lower($1)), 0)
             - COALESCE(SUM(amount_minor) FILTER (WHERE lower(from_address) = lower($1)), 0))::text AS b
         FROM sandbox_chain_transfers WHERE chain = $2 AND asset = $3`,
      [w[0].address, target.chain, target.asset],
    );
    const lacking = call.amount - BigInt(bal[0].b);
    if (lacking > 0n && payerWallet) {
      // The sandbox payer wallet is funded on demand: a mint of what it lacks (no sender).
      await m.query(
        'INSERT INTO sandbox_chain_transfers(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash) VALUES ($1,$2,NULL,$3,$4,6,$5)',
        [target.chain, target.asset, SANDBOX_PAYER_WALLET, lacking.toString(), `0x${crypto.randomBytes(32).toString('hex')}`],
      );
    } else if (lacking > 0n) {
      throw new SignRefused('The wallet balance does not cover the transfer.', 'balance_insufficient', 'data');
    }
    const hash = `0x${crypto.randomBytes(32).toString('hex')}`;
    await m.query(
      `INSERT INTO ${req.status === 'pending' ? 'sandbox_chain_mempool' : 'sandbox_chain_transfers'}(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash) VALUES ($1,$2,$3,$4,$5,6,$6)`,
      [target.chain, target.asset, w[0].address, call.recipient, call.amount.toString(), hash],
    );
    return {
      chain: target.chain,
      asset: target.asset,
      from_address: w[0].address,
      to_address: call.recipient,
      amount: call.amount,
      decimals: 6,
      tx_hash: hash,
    } as ObservedTransfer;
  });
  if (req.status !== 'pending') await chain.report(t);
  return t;
}
