/**
 * Address screening provider (ARCHITECTURE.md "providers/"; spec 2.9 fields, 4.8): risk of a
 * crypto address on a chain. Used by the address book (create and `recheck`, spec 4.10). A result
 * is a signal, never a block (spec 2.9): `verdict` is coarser than `risk_level`, `action` only a
 * suggestion.
 *
 * Sandbox: deterministic. An address the simulator gave a signal to
 * (`POST /sim/providers/screening/signals`) reports that score and those flags, or fails as an
 * outage when the signal says `unavailable`; any other address scores low (below
 * SANDBOX_SCREENING_DEFAULT_SCORE_BELOW) from a hash of (chain, address key).
 */
import crypto from 'node:crypto';
import { db } from '../lib/db';
import { SANDBOX_SCREENING_DEFAULT_SCORE_BELOW, SCREENING_RISK_BANDS } from './sandbox-values';
import { instrumentProvider } from '../lib/metrics';

export interface AddressScreeningResult {
  /** 0..100. */
  risk_score: number;
  risk_level: 'low' | 'medium' | 'high' | 'severe';
  verdict: 'clear' | 'review' | 'high_risk';
  action: 'proceed' | 'review' | 'avoid';
  flags: string[];
  provider_version: string;
  screened_at: Date;
  /** True when the provider holds intelligence on the address (not a model score only). */
  intelligence: boolean;
  /** The sources the provider checked (spec 2.9 `coverage`). */
  coverage: string[];
}

/** The provider could not answer (outage, timeout): callers keep the previous result. */
export class ScreeningUnavailableError extends Error {
  override readonly name = 'ScreeningUnavailableError';
}

export interface AddressScreeningProvider {
  /** Screens `address` (verbatim) on `chain`; `addressKey` is its case-normalized form. Throws ScreeningUnavailableError. */
  screenAddress(q: { chain: string; address: string; addressKey: string }): Promise<AddressScreeningResult>;
}

/** Level, verdict and suggested action of a 0..100 score (25-point bands, providers/sandbox-values.ts). */
export function classifyRisk(score: number): Pick<AddressScreeningResult, 'risk_level' | 'verdict' | 'action'> {
  const band = SCREENING_RISK_BANDS.find((b) => score < b.below) ?? SCREENING_RISK_BANDS[SCREENING_RISK_BANDS.length - 1];
  return { risk_level: band.risk_level, verdict: band.verdict, action: band.action };
}

const SANDBOX_VERSION = 'sandbox-screening-2026.09';
/** The sources the sandbox provider checks. */
const SANDBOX_COVERAGE = ['sanctions_lists', 'darknet_markets', 'mixers', 'scam_reports', 'exchange_attribution'];

/** Sandbox implementation backed by `sandbox_screening_signals`. */
export class SandboxAddressScreeningProvider implements AddressScreeningProvider {
  async screenAddress(input: { chain: string; address: string; addressKey: string }): Promise<AddressScreeningResult> {
    const rows: Array<{ risk_score: number; flags: string[]; unavailable: boolean }> = await db().query(
      'SELECT risk_score, flags, unavailable FROM sandbox_screening_signals WHERE chain = $1 AND address_key = $2',
      [input.chain, input.addressKey],
    );
    const signal = rows[0];
    if (signal?.unavailable) throw new ScreeningUnavailableError('sandbox screening provider unavailable for this address');
    const score = signal
      ? signal.risk_score
      : crypto.createHash('sha256').update(`${input.chain}:${input.addressKey}`).digest()[0] % SANDBOX_SCREENING_DEFAULT_SCORE_BELOW;
    return {
      risk_score: score,
      ...classifyRisk(score),
      flags: signal ? [...signal.flags] : [],
      provider_version: SANDBOX_VERSION,
      screened_at: new Date(),
      intelligence: Boolean(signal),
      coverage: [...SANDBOX_COVERAGE],
    };
  }

  /** Simulator: what the provider will report for (chain, address key) from now on. */
  async setSignal(chain: string, addressKey: string, input: { risk_score: number; flags: string[]; unavailable: boolean }): Promise<void> {
    await db().query(
      `INSERT INTO sandbox_screening_signals(chain, address_key, risk_score, flags, unavailable) VALUES ($1,$2,$3,$4,$5)
       ON CONFLICT (chain, address_key) DO UPDATE SET risk_score = EXCLUDED.risk_score, flags = EXCLUDED.flags,
         unavailable = EXCLUDED.unavailable, updated_at = now()`,
      [chain, addressKey, input.risk_score, input.flags, input.unavailable],
    );
  }
}

let provider: SandboxAddressScreeningProvider | null = null;

/** The process's address screening provider (the sandbox on every environment this build supports). */
export function addressScreeningProvider(): SandboxAddressScreeningProvider {
  if (!provider) provider = instrumentProvider('address_screening', new SandboxAddressScreeningProvider());
  return provider;
}
