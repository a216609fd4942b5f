/**
 * Send intents out of the holder's wallet (spec 2.5, 4.5, part 6 `send_intent.*`): the
 * routes a wallet can send on, the intent's statuses and transition table, and the check that
 * the transaction the holder signed is the one the intent built; and the statuses and transition
 * table of a payout's prepared service-wallet send (`wallet_sends`, below).
 *
 * Lifecycle: `created` (built, waiting for the holder's signature; `source_tx` records the hash)
 * -> `source_submitted` (the signed transaction is on chain and matches) -> `bridging_started`
 * (cross-chain routes: the bridge carries it) -> `settled`; `created` -> `expired` (never
 * signed before `expires_at`); `created` | `source_submitted` | `bridging_started` -> `failed`
 * with a typed `failure_reason`. Amounts are bigint minor units of the stablecoin (6 decimals).
 *
 * Pure: no I/O.
 */
import { transitionTable } from './transitions';
import { XCHAIN_NETWORKS } from './xchain';

export const SEND_INTENT_STATUSES = Object.freeze([
  'created',
  'source_submitted',
  'bridging_started',
  'settled',
  'failed',
  'expired',
] as const);
export type SendIntentStatus = (typeof SEND_INTENT_STATUSES)[number];

/** Transition table of a send intent (409 `send_intent_state_changed`). */
export const sendIntentTransitions = transitionTable<SendIntentStatus>('send_intent', {
  created: ['source_submitted', 'failed', 'expired'],
  source_submitted: ['bridging_started', 'settled', 'failed'],
  bridging_started: ['settled', 'failed'],
  settled: [],
  failed: [],
  expired: [],
});

/**
 * Why a send intent failed: the signed transaction was never seen on chain, or differs from the
 * built one (token, amount, sender, recipient, chain), or the bridge failed (the undelivered
 * funds return to the wallet).
 */
export const SEND_FAILURE_REASONS = Object.freeze([
  'source_tx_not_found',
  'token_mismatch',
  'amount_mismatch',
  'sender_mismatch',
  'recipient_mismatch',
  'chain_mismatch',
  'bridge_failed',
] as const);
export type SendFailureReason = (typeof SEND_FAILURE_REASONS)[number];

/** How long a built intent waits for the holder's signature (seconds). */
export const SEND_INTENT_TTL_SECONDS = 30 * 60;
/** How long a recorded hash may stay unseen on chain before the intent fails `source_tx_not_found` (seconds). */
export const SOURCE_TX_SEARCH_SECONDS = 60 * 60;
/** Smallest send (minor units of the stablecoin): 0.01. */
export const MIN_SEND_MINOR = 10_000n;

/** A route: `direct` on the wallet's own chain, or `bridge` to another network (the bridge keeps its fee). */
export interface SendRoute {
  destination_chain: string;
  kind: 'direct' | 'bridge';
}

/** Every route a wallet on `nativeChain` can send on: its own chain first, then the bridged networks. */
export function sendRoutes(nativeChain: string): SendRoute[] {
  return [
    { destination_chain: nativeChain, kind: 'direct' },
    ...XCHAIN_NETWORKS.map((n) => ({ destination_chain: n, kind: 'bridge' as const })),
  ];
}

/** The route to `destinationChain` (lower-case name), or null when the wallet cannot send there. */
export function sendRouteTo(nativeChain: string, destinationChain: string): SendRoute | null {
  return sendRoutes(nativeChain).find((r) => r.destination_chain === destinationChain) ?? null;
}

/** What the intent expects on chain. */
export interface ExpectedSource {
  chain: string;
  asset: string;
  from: string;
  to: string;
  amount: bigint;
}
/** What the chain reports for the recorded hash. */
export interface ObservedSource {
  chain: string;
  asset: string;
  from: string | null;
  to: string;
  amount: bigint;
}

/**
 * Compares the signed transaction with the built one; null when it matches, else the first
 * mismatch in the order chain, token, sender, recipient, amount. Addresses compare case-insensitively.
 */
export function sourceMismatch(expected: ExpectedSource, seen: ObservedSource): SendFailureReason | null {
  const same = (a: string | null, b: string) => (a ?? '').toLowerCase() === b.toLowerCase();
  if (seen.chain !== expected.chain) return 'chain_mismatch';
  if (seen.asset !== expected.asset) return 'token_mismatch';
  if (!same(seen.from, expected.from)) return 'sender_mismatch';
  if (!same(seen.to, expected.to)) return 'recipient_mismatch';
  if (seen.amount !== expected.amount) return 'amount_mismatch';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Prepared service-wallet sends of a payout (`wallet_sends` rows; spec 2.5, 4.3 cancel rules)
// ---------------------------------------------------------------------------------------------

/**
 * Status of a prepared wallet send: `signable` (the holder may sign it until `signable_until`),
 * `signed` (money left the wallet), `expired` (never signed in time; may still be closed),
 * `closed` (the wallet provider closed it: it can never be signed).
 */
export const WALLET_SEND_STATUSES = Object.freeze(['signable', 'signed', 'expired', 'closed'] as const);
export type WalletSendStatus = (typeof WALLET_SEND_STATUSES)[number];

/**
 * Transition table of a prepared wallet send: `signable` -> `signed` (the holder signed),
 * `expired` (the funding window's signing time passed) or `closed` (the payout was cancelled);
 * `expired` -> `closed`. `signed` and `closed` are final. Open set: `signable`, `expired` (a send
 * that still blocks a payout's cancel, domain/payouts/deadlines.ts). A refused move answers
 * `409 payout_state_changed` (the send is part of its payout's funding; no code of its own).
 */
export const walletSendTransitions = transitionTable<WalletSendStatus>(
  'wallet_send',
  {
    signable: ['signed', 'expired', 'closed'],
    signed: [],
    expired: ['closed'],
    closed: [],
  },
  'payout_state_changed',
);
