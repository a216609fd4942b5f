/**
 * Cross-network (`crypto_xchain`) and direct-transfer (`crypto_transfer`) pay-in rules (spec 2.1
 * DepositInstructions, 2.4 watcher states and verdicts, 4.1 payer payment body, 7 errors):
 * request validation beyond its shape, the gross-up of a bridge quote, the watcher's transition
 * table and how a ledger status maps to a watcher state. Amounts are bigint minor units of USDC
 * (6 decimals).
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { DomainError, invalidRequest } from './errors';
import { transitionTable } from './transitions';
import type { PaymentStatus } from './verdicts';

/** Source networks the cross-network rail takes (spec 4.1 `network`). */
export const XCHAIN_NETWORKS = Object.freeze(['base', 'ethereum', 'polygon', 'arbitrum', 'optimism'] as const);
export type XchainNetwork = (typeof XCHAIN_NETWORKS)[number];

/** The one stablecoin the payer may send on the cross-network and transfer rails (spec 4.1). */
export const XCHAIN_STABLECOIN = 'USDC';

/** Watcher states of a cross-network payment (spec 2.4; null on other rails). */
export type WatcherState =
  | 'address_issued'
  | 'source_seen'
  | 'confirming'
  | 'matching'
  | 'delivered'
  | 'recovering'
  | 'recovery_required'
  | 'bridge_failed'
  | 'expired';

/** `watcher_reason` values (spec 2.4): only with `matching` and `recovery_required`. */
export type WatcherReason = 'bridge_delivered_less' | 'payment_closed';

/**
 * The watcher's transition table (spec 2.4). address_issued -> source_seen (the payer's deposit is
 * seen on the source chain) -> confirming (the bridge moves it) -> delivered (paid) or matching
 * (`bridge_delivered_less`: delivered short; a top-up goes round again) or bridge_failed;
 * address_issued -> expired (the window closed with nothing seen); any not-delivered state ->
 * recovery_required (`payment_closed`: money on a closed payment) -> recovering (returned to the
 * refund address). `delivered` is terminal (later money is recorded for support). An illegal move
 * is `409 conflict` code `watcher_state_changed` (non-retryable in a workflow).
 */
export const watcherTransitions = transitionTable<WatcherState>(
  'watcher',
  {
    address_issued: ['source_seen', 'expired', 'bridge_failed', 'recovery_required'],
    source_seen: ['confirming', 'delivered', 'matching', 'bridge_failed', 'recovery_required'],
    confirming: ['source_seen', 'matching', 'delivered', 'bridge_failed', 'recovery_required'],
    matching: ['source_seen', 'confirming', 'delivered', 'bridge_failed', 'recovery_required'],
    delivered: [],
    bridge_failed: ['source_seen', 'confirming', 'matching', 'delivered', 'recovery_required'],
    expired: ['recovery_required'],
    recovery_required: ['recovering'],
    recovering: ['recovery_required'],
  },
  'watcher_state_changed',
);

/** The watcher state and reason a ledger status implies after the bridge delivered (spec 2.4). */
export function watcherAfterDelivery(status: PaymentStatus): { state: WatcherState; reason: WatcherReason | null } | null {
  switch (status) {
    case 'paid':
    case 'overpaid':
    case 'settled':
      return { state: 'delivered', reason: null };
    case 'underpaid':
      return { state: 'matching', reason: 'bridge_delivered_less' };
    case 'unmatched':
    case 'expired':
    case 'abandoned':
      return { state: 'recovery_required', reason: 'payment_closed' };
    default:
      return null;
  }
}

/** Payment statuses in which money reaching the payment is returned to the refund address (closed, unpaid). */
export const XCHAIN_CLOSED_STATUSES: readonly PaymentStatus[] = Object.freeze(['expired', 'abandoned', 'unmatched'] as const);

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO = /^0x0{40}$/i;

/** Input of `validateXchainRequest` (the payer body after joi, plus the addresses the service owns). */
export interface XchainRequest {
  network?: string;
  stablecoin?: string;
  refund_address?: string;
  /** The native chain's name (refused as a source network). */
  nativeChain: string;
  /** Addresses the refund address may not be: the service's own and the merchant's settlement addresses (any case). */
  forbiddenAddresses: string[];
}

/**
 * Validates a `crypto_xchain` payer request (spec 4.1, 7) and returns its network, stablecoin and
 * refund address (verbatim). Errors, in this order:
 * - `network` missing: `400 invalid_request` code `parameter_missing` param `network`;
 * - the native chain, `solana` or any network not in XCHAIN_NETWORKS: `409 conflict` code
 *   `network_not_supported` param `network` (details `networks`);
 * - `stablecoin` other than USDC: `400 invalid_request` param `stablecoin` (absent means USDC);
 * - `refund_address` missing, not `^0x[0-9a-fA-F]{40}$`, the zero address, a service address or the
 *   merchant's settlement address: `400 invalid_request` param `refund_address`.
 */
export function validateXchainRequest(xchainRequest: XchainRequest): { network: XchainNetwork; stablecoin: string; refundAddress: string } {
  if (!xchainRequest.network) throw invalidRequest('parameter_missing', '`network` is required for crypto_xchain.', 'network');
  if (!(XCHAIN_NETWORKS as readonly string[]).includes(xchainRequest.network)) {
    const what =
      xchainRequest.network === xchainRequest.nativeChain ? 'the service network itself (pay on crypto_native)' : xchainRequest.network;
    throw new DomainError(
      'conflict',
      'network_not_supported',
      `crypto_xchain does not take ${what}; networks: ${XCHAIN_NETWORKS.join(', ')}.`,
      { param: 'network', details: { networks: [...XCHAIN_NETWORKS] } },
    );
  }
  const stablecoin = xchainRequest.stablecoin ?? XCHAIN_STABLECOIN;
  if (stablecoin !== XCHAIN_STABLECOIN) throw invalidRequest('invalid_request', 'crypto_xchain accepts only USDC.', 'stablecoin');
  const refund = xchainRequest.refund_address;
  if (!refund) throw invalidRequest('parameter_missing', '`refund_address` is required for crypto_xchain.', 'refund_address');
  if (!EVM_ADDRESS.test(refund))
    throw invalidRequest('invalid_request', 'refund_address must match ^0x[0-9a-fA-F]{40}$.', 'refund_address');
  if (ZERO.test(refund)) throw invalidRequest('invalid_request', 'refund_address cannot be the zero address.', 'refund_address');
  if (xchainRequest.forbiddenAddresses.some((a) => a.toLowerCase() === refund.toLowerCase())) {
    throw invalidRequest('invalid_request', 'refund_address cannot be a service or merchant settlement address.', 'refund_address');
  }
  return { network: xchainRequest.network as XchainNetwork, stablecoin, refundAddress: refund };
}

/**
 * Validates a `crypto_transfer` payer request (spec 4.1): `source_chain` required and equal to
 * the native chain (else `409 conflict` `network_not_supported` param `source_chain`; a source
 * chain needing a bridge is `crypto_xchain`'s); `source_asset` required and USDC (`400
 * invalid_request` param `source_asset`); `source_address` optional, an EVM address when given
 * (`400` param `source_address`). Missing fields are `400 parameter_missing`.
 */
export function validateTransferRequest(input: {
  source_chain?: string;
  source_asset?: string;
  source_address?: string;
  nativeChain: string;
}): { sourceChain: string; sourceAddress: string | null } {
  if (!input.source_chain) throw invalidRequest('parameter_missing', '`source_chain` is required for crypto_transfer.', 'source_chain');
  if (!input.source_asset) throw invalidRequest('parameter_missing', '`source_asset` is required for crypto_transfer.', 'source_asset');
  if (input.source_chain !== input.nativeChain) {
    throw new DomainError(
      'conflict',
      'network_not_supported',
      `crypto_transfer takes transfers on ${input.nativeChain}; from another network pay on crypto_xchain.`,
      { param: 'source_chain', details: { networks: [input.nativeChain] } },
    );
  }
  if (input.source_asset !== XCHAIN_STABLECOIN)
    throw invalidRequest('invalid_request', 'crypto_transfer accepts only USDC.', 'source_asset');
  if (input.source_address !== undefined && (!EVM_ADDRESS.test(input.source_address) || ZERO.test(input.source_address))) {
    throw invalidRequest('invalid_request', 'source_address must be a non-zero ^0x[0-9a-fA-F]{40}$ address.', 'source_address');
  }
  return { sourceChain: input.source_chain, sourceAddress: input.source_address ?? null };
}

/**
 * Gross-up of a bridge quote (spec 2.1 `amount`, `amount_out`, `bridge_fee`, `gross_up`): the
 * payer sends `amountIn = amountOut + fee` so that `amountOut` (the total due) arrives on the
 * native chain. Throws RangeError on a non-positive amountOut or a negative fee.
 */
export function grossUp(amountOut: bigint, fee: bigint): { amountIn: bigint; amountOut: bigint; fee: bigint } {
  if (amountOut <= 0n) throw new RangeError('amountOut must be positive');
  if (fee < 0n) throw new RangeError('fee must not be negative');
  return { amountIn: amountOut + fee, amountOut, fee };
}

/**
 * USDC on each source network (spec 2.1 `chain_id`, `token_address`: the authoritative send
 * target): the EVM chain id and the token contract, as published by the token's issuer.
 */
export const XCHAIN_USDC: Readonly<Record<XchainNetwork, { chainId: number; tokenAddress: string }>> = Object.freeze({
  base: { chainId: 8453, tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
  ethereum: { chainId: 1, tokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  polygon: { chainId: 137, tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
  arbitrum: { chainId: 42161, tokenAddress: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
  optimism: { chainId: 10, tokenAddress: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85' },
});
