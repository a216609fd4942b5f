/**
 * Payout time windows (spec 4.3, 8; decisions): how long a funding address waits for USDC, how long
 * a prepared service-wallet send stays signable, and the hold after it during which cancel is
 * refused (`walletSendCancelBlock`). Seconds or milliseconds as each name says. Pure.
 */

/** Seconds a funding address waits for USDC before the payout expires (decision: 24 hours). */
export const FUNDING_WINDOW_SECONDS = 24 * 3600;
/** Seconds a prepared service-wallet send stays signable (decision: 15 minutes). */
export const WALLET_SEND_SIGNABLE_SECONDS = 15 * 60;

/** Hold after a prepared wallet send stops being signable during which cancel is refused (spec 4.3, 8: 30 minutes). */
export const WALLET_FUNDING_CANCEL_HOLD_MS = 30 * 60 * 1000;

/**
 * Whether a prepared wallet send blocks cancel at `nowMs` (spec 4.3): while signable and for 30
 * minutes after it expires. Returns the time cancel is allowed again (ms), or null when not blocking.
 */
export function walletSendCancelBlock(send: { status: string; signableUntilMs: number }, nowMs: number): number | null {
  if (send.status !== 'signable' && send.status !== 'expired') return null;
  const until = send.signableUntilMs + WALLET_FUNDING_CANCEL_HOLD_MS;
  return nowMs < until ? until : null;
}
