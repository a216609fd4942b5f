/**
 * Screening (spec 2.9, 4.8): the networks an address can be screened on, what a
 * result claims (coverage: the sources the provider checked; confidence), and the report rules
 * (a report spends one credit unless an equivalent one exists within 30 days; spec 2.11 credits).
 *
 * Pure: no I/O.
 */
import { CHAIN_NAMES, resolveChain, type ChainName } from './addresses';
import { DomainError } from './errors';

/** Networks of spec 4.8: every address-book chain but the service's own sandbox chain. */
export const SCREENING_CHAINS: readonly ChainName[] = Object.freeze(CHAIN_NAMES.filter((c) => c !== 'tempo'));

/** `chain` by id or name, case-insensitive; 409 `network_not_supported` (param `chain`) otherwise. */
export function screeningChain(input: unknown): ChainName {
  const c = resolveChain(input);
  if (!c || !SCREENING_CHAINS.includes(c)) {
    throw new DomainError('conflict', 'network_not_supported', `Screening covers ${SCREENING_CHAINS.join(', ')} (by name or chain id).`, {
      param: 'chain',
    });
  }
  return c;
}

/** Confidence of a result: `high` when the provider holds intelligence on the address, `medium` for a model score only. */
export function screeningConfidence(hasIntelligence: boolean): 'high' | 'medium' {
  return hasIntelligence ? 'high' : 'medium';
}

/** An equivalent report within this many days is served from cache, free (spec 4.8). */
export const REPORT_CACHE_DAYS = 30;

/** The oldest creation time of a report still served from cache at `nowMs` (exclusive): REPORT_CACHE_DAYS before it (spec 4.8, 8). */
export function reportCacheSince(nowMs: number): Date {
  return new Date(nowMs - REPORT_CACHE_DAYS * 86_400_000);
}
/** A screening of the same address within this many seconds reuses the provider's answer (`cached: true`). */
export const SCREENING_CACHE_SECONDS = 15 * 60;

/** Trace bounds (`POST /traces`). */
export const MAX_TRACE_DEPTH = 5;
export const MAX_TRACE_EDGES = 200;
export type TraceDirection = 'incoming' | 'outgoing' | 'both';

/** Risk levels of a screening, lowest first (spec 2.9 `risk_level`). */
export const SCREENING_RISK_LEVELS = Object.freeze(['low', 'medium', 'high', 'severe'] as const);

/**
 * The events a new screening writes (spec 6): always `screening.completed`, and
 * `screening.risk_elevated` when the account screened the same address before (`previous`, its
 * latest earlier screening's `risk_level`, null when none) at a strictly lower level. An unknown
 * level never counts as elevated.
 */
export function screeningEvents(previous: string | null, current: string): string[] {
  const rank = (l: string | null) => (l === null ? -1 : (SCREENING_RISK_LEVELS as readonly string[]).indexOf(l));
  const elevated = previous !== null && rank(previous) >= 0 && rank(current) > rank(previous);
  return elevated ? ['screening.completed', 'screening.risk_elevated'] : ['screening.completed'];
}
