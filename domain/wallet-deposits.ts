/**
 * Wallet deposits from another chain and stablecoin conversions (spec 2.5, 4.5, 6):
 * the deposit intent and conversion transition tables, the event each status emits, the
 * conversion pairs and their pricing, and the checks of a body's Money. Amounts are bigint minor
 * units (every asset here has 6 decimals).
 *
 * Pure: no I/O. Safe to import from workflows.
 */
import { invalidRequest } from './errors';
import { assertStorableMinor } from './money';
import { transitionTable } from './transitions';
import { XCHAIN_NETWORKS, XCHAIN_STABLECOIN, type XchainNetwork } from './xchain';

/** Source networks a deposit into the wallet may come from (the cross-network rail's, spec 4.1). */
export const DEPOSIT_SOURCE_CHAINS: readonly XchainNetwork[] = XCHAIN_NETWORKS;

/** The asset a deposit is sent in on its source chain. */
export const DEPOSIT_SOURCE_ASSET = XCHAIN_STABLECOIN;

/** Every asset of this slice has 6 decimals. */
export const WALLET_ASSET_DECIMALS = 6;

/**
 * Deposit intent statuses (spec 3 "not shown"; ours): `awaiting_funds` (created, the deposit
 * address is live) -> `source_detected` (USDC seen on the source chain) -> `bridging` (the bridge
 * moves it) -> `settled` (USDC delivered to the wallet). A failed bridge holding funds goes
 * `recovering` (returned to the refund address) -> `failed`, or `manual_recovery_required` when
 * there is no address to return to. `expired`: the window closed with nothing received.
 */
export type DepositIntentStatus =
  'awaiting_funds' | 'source_detected' | 'bridging' | 'settled' | 'failed' | 'expired' | 'recovering' | 'manual_recovery_required';

/** The deposit intent transition table (409 `deposit_intent_state_changed` on an illegal move). */
export const depositIntentTransitions = transitionTable<DepositIntentStatus>('deposit_intent', {
  awaiting_funds: ['source_detected', 'expired', 'failed'],
  source_detected: ['bridging', 'failed', 'recovering', 'manual_recovery_required'],
  bridging: ['settled', 'failed', 'recovering', 'manual_recovery_required'],
  recovering: ['failed', 'manual_recovery_required'],
  settled: [],
  failed: [],
  expired: [],
  manual_recovery_required: [],
});

/** The catalogued event (spec 6 `deposit_intent.*`) a deposit intent emits on entering each status. */
export const DEPOSIT_INTENT_EVENTS: Readonly<Record<DepositIntentStatus, string>> = Object.freeze({
  awaiting_funds: 'deposit_intent.created',
  source_detected: 'deposit_intent.source_detected',
  bridging: 'deposit_intent.bridging_started',
  settled: 'deposit_intent.settled',
  failed: 'deposit_intent.failed',
  expired: 'deposit_intent.expired',
  recovering: 'deposit_intent.recovery_started',
  manual_recovery_required: 'deposit_intent.manual_recovery_required',
});

/** How long a deposit intent's address waits for the first source transfer. */
export const DEPOSIT_INTENT_TTL_MS = 60 * 60 * 1000;

/** Conversion statuses (spec 4.5 issue text): `built` -> `submitted` -> `settled` | `failed`; `built` may fail (expired). */
export type ConversionStatus = 'built' | 'submitted' | 'settled' | 'failed';

/** The conversion transition table (409 `conversion_state_changed`). */
export const conversionTransitions = transitionTable<ConversionStatus>('conversion', {
  built: ['submitted', 'failed'],
  submitted: ['settled', 'failed'],
  settled: [],
  failed: [],
});

/** The catalogued event (spec 6 `conversion.*`) a conversion emits on entering each status. */
export const CONVERSION_EVENTS: Readonly<Record<ConversionStatus, string>> = Object.freeze({
  built: 'conversion.built',
  submitted: 'conversion.submitted',
  settled: 'conversion.settled',
  failed: 'conversion.failed',
});

/** Why a conversion failed. */
export type ConversionFailureReason = 'expired' | 'source_tx_not_found' | 'source_tx_mismatch';

/** How long a built conversion may be signed, and how long a submitted hash may take to appear on chain. */
export const CONVERSION_SIGNABLE_MS = 15 * 60 * 1000;
export const CONVERSION_CONFIRM_MS = 30 * 60 * 1000;

/** The second stablecoin of the native chain the wallet can convert to and from (sandbox). */
export const CONVERSION_OTHER_ASSET = 'USDT0';

/** Conversion fee in basis points of the amount in (floored), kept by the router. */
export const CONVERSION_FEE_BPS = 5n;

/** A conversion pair of the native chain (both directions are listed). */
export interface ConversionPair {
  from: string;
  to: string;
  feeBps: bigint;
}

/** The conversion pairs for a network whose settlement stablecoin is `stablecoin`. */
export function conversionPairs(stablecoin: string): ConversionPair[] {
  return [
    { from: stablecoin, to: CONVERSION_OTHER_ASSET, feeBps: CONVERSION_FEE_BPS },
    { from: CONVERSION_OTHER_ASSET, to: stablecoin, feeBps: CONVERSION_FEE_BPS },
  ];
}

/** Prices a conversion at 1:1 less the pair's fee (floored). Throws RangeError on a non-positive amount. */
export function priceConversion(pair: ConversionPair, amountIn: bigint): { amountIn: bigint; fee: bigint; amountOut: bigint } {
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  const fee = (amountIn * pair.feeBps) / 10_000n;
  return { amountIn, fee, amountOut: amountIn - fee };
}

/**
 * The minor amount of a body Money in one of `currencies` with WALLET_ASSET_DECIMALS (spec 2.1):
 * another currency is `400 currency_invalid`, another scale `400 amount_invalid`, both with `param`.
 */
export function assetAmount(
  input: { amount: string; currency: string; decimals: number },
  currencies: readonly string[],
  param = 'amount',
): bigint {
  if (!currencies.includes(input.currency))
    throw invalidRequest('currency_invalid', `\`${param}.currency\` must be ${currencies.join(' or ')}.`, `${param}.currency`);
  if (input.decimals !== WALLET_ASSET_DECIMALS)
    throw invalidRequest(
      'amount_invalid',
      `\`${param}.decimals\` must be ${WALLET_ASSET_DECIMALS} for ${input.currency}.`,
      `${param}.decimals`,
    );
  const v = BigInt(input.amount);
  if (v <= 0n) throw invalidRequest('amount_invalid', `\`${param}\` must be strictly positive.`, param);
  return assertStorableMinor(v, param);
}
