/**
 * Generators and exact-arithmetic helpers shared by the money properties (docs/testing/properties.md).
 * Amounts are bigint minor units. The generators mix small amounts (where rounding shows), amounts
 * that do not divide by 10, 100 or 10,000 (where rounding modes disagree), round amounts (where they
 * agree) and huge ones (NUMERIC(38)-sized), so a wrong rounding direction cannot hide behind fixtures
 * that every mode gets right. Runs per property: `PROPERTY_RUNS` (default 200; set it high for a deep
 * local search). A failure prints fast-check's seed and path; replay with `{ seed, path }` in `fc.assert`.
 */
import fc from 'fast-check';
import { FIAT_DECIMALS, STABLECOIN_DECIMALS } from '../../../domain/money';

/** Runs per property: `PROPERTY_RUNS` from the environment, else 200 (the suite stays within a few seconds). */
export const RUNS = Number(process.env.PROPERTY_RUNS ?? '') > 0 ? Number(process.env.PROPERTY_RUNS) : 200;

/** fast-check parameters of every property here. */
export const params = { numRuns: RUNS };

/** A strictly positive amount in minor units up to `max`, biased to small, uneven and round values. */
export function positiveMinor(max = 10n ** 18n): fc.Arbitrary<bigint> {
  const cap = (v: bigint) => (v > max ? max : v);
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt(1n, cap(10_000n)) },
    { weight: 3, arbitrary: fc.bigInt(1n, cap(10n ** 9n)) },
    { weight: 2, arbitrary: fc.bigInt(1n, max) },
    { weight: 1, arbitrary: fc.bigInt(1n, cap(10n ** 7n)).map((v) => cap(v * 10_000n)) },
    { weight: 1, arbitrary: fc.constantFrom(1n, 99n, 101n, 9_999n, 10_001n, 199n, 1_999_999n).map(cap) },
  );
}

/** A non-negative amount in minor units up to `max` (zero included). */
export function nonNegativeMinor(max = 10n ** 18n): fc.Arbitrary<bigint> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant(0n) }, { weight: 9, arbitrary: positiveMinor(max) });
}

/** Any signed amount (negative only on signed ledger rows, spec 2.1), up to 38 digits. */
export const signedMinor: fc.Arbitrary<bigint> = fc.oneof(fc.bigInt(-(10n ** 38n) + 1n, 10n ** 38n - 1n), fc.bigInt(-100_000n, 100_000n));

/** Every currency of the registry: the supported fiat (ISO 4217 scales 0, 2, 3) and the stablecoins (6). */
export const currency: fc.Arbitrary<string> = fc.constantFrom(...Object.keys(FIAT_DECIMALS), ...Object.keys(STABLECOIN_DECIMALS));

/** Scales the spec names (0 zero-decimal fiat, 2 default fiat, 3 KWD..., 6 USDC, 18 quote fractions and ETH) and any other 0..36. */
export const scale: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0, 2, 3, 6, 18), fc.integer({ min: 0, max: 36 }));

/** Basis points: the spec's values (100 payer and payout fee, 5 = 0.05% buffer and tolerance, 10, 1) and any 0..9999. */
export const bps: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0, 1, 5, 10, 50, 100, 9_999), fc.integer({ min: 0, max: 9_999 }));

/** Exact floor of numerator / denominator (denominator > 0), written without the product's helpers. */
export function exactFloor(numerator: bigint, denominator: bigint): bigint {
  const q = numerator / denominator;
  return q * denominator > numerator ? q - 1n : q;
}

/** Exact ceiling of numerator / denominator (denominator > 0), written without the product's helpers. */
export function exactCeil(numerator: bigint, denominator: bigint): bigint {
  const q = numerator / denominator;
  return q * denominator < numerator ? q + 1n : q;
}
