/**
 * Screening commands (spec 2.9, 4.8, 2.11 credits): screen an address (free,
 * unmetered) and buy a report on a screening (one credit of the account owner's balance, free
 * when an equivalent report for the address exists within 30 days). Nothing is stored for an
 * address impossible on its network. Commands take `(scope, input)` (activities/scope.ts); rows of
 * the scope's account and mode are read through the scoped finder (lib/scoped.ts).
 */
import crypto from 'node:crypto';
import { checkAddress } from '../../domain/addresses';
import { DomainError, temporarilyUnavailable } from '../../domain/errors';
import { reportCacheSince, SCREENING_CACHE_SECONDS, screeningChain, screeningConfidence, screeningEvents } from '../../domain/screening';
import { Screening, ScreeningReport, type ReportFigures } from '../../entities';
import { db, transaction } from '../../lib/db';
import { loadConfig } from '../../lib/config';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { addressScreeningProvider, ScreeningUnavailableError } from '../../providers/screening';
import { screeningView } from '../../views/screening';
import { consumeCheck } from '../credits/commands';
import type { Scope } from '../scope';
import { getScreening } from './queries';

/**
 * `POST /screenings`: `chain` by id or name (409 `network_not_supported` param `chain`),
 * `address` valid on that network with its checksum (409 `network_not_supported` param
 * `address`; nothing stored). A screening of the same address within SCREENING_CACHE_SECONDS
 * reuses that answer (`cached: true`); else the provider answers (503 `screening_unavailable`
 * when it cannot). The new `scr_` row is saved with its events in one transaction (spec 6,
 * catalogued: shipped by `events.ship.screening`): `screening.completed`, and
 * `screening.risk_elevated` when the account's latest earlier screening of the address had a lower
 * `risk_level` (domain/screening.ts `screeningEvents`).
 */
export async function createScreening(scope: Scope, input: { chain: unknown; address: string }): Promise<Screening> {
  const chain = screeningChain(input.chain);
  const check = checkAddress(chain, input.address, loadConfig().network);
  if (!check.ok)
    throw new DomainError('conflict', 'network_not_supported', `That address is impossible on ${chain}: ${check.reason}.`, {
      param: 'address',
    });
  const earlier = () =>
    scoped(scope)
      .query(Screening, 's')
      .andWhere('s.chain = :c AND s.address_key = :k', { c: chain, k: check.key })
      .orderBy('s.screened_at', 'DESC');
  const recent = await earlier().andWhere(`s.screened_at > now() - make_interval(secs => :ttl)`, { ttl: SCREENING_CACHE_SECONDS }).getOne();
  // The account's latest earlier screening of the address (the recent one when there is one): what `risk_elevated` compares with.
  const latest = recent ?? (await earlier().getOne());
  const base = {
    id: newId('scr_'),
    account_id: scope.accountId,
    livemode: scope.livemode,
    chain,
    address: check.address,
    address_key: check.key,
  };
  let answer: Pick<
    Screening,
    'risk_score' | 'risk_level' | 'verdict' | 'action' | 'flags' | 'confidence' | 'coverage' | 'provider_version' | 'cached' | 'screened_at'
  >;
  if (recent) {
    answer = {
      risk_score: recent.risk_score,
      risk_level: recent.risk_level,
      verdict: recent.verdict,
      action: recent.action,
      flags: [...recent.flags],
      confidence: recent.confidence,
      coverage: [...recent.coverage],
      provider_version: recent.provider_version,
      cached: true,
      screened_at: recent.screened_at,
    };
  } else {
    let r;
    try {
      r = await addressScreeningProvider().screenAddress({ chain, address: check.address, addressKey: check.key });
    } catch (e) {
      if (e instanceof ScreeningUnavailableError)
        throw temporarilyUnavailable(
          'screening_unavailable',
          'The screening provider cannot answer for this address right now. Retry later.',
          { retry_after_seconds: 30 },
        );
      throw e;
    }
    answer = {
      risk_score: r.risk_score,
      risk_level: r.risk_level,
      verdict: r.verdict,
      action: r.action,
      flags: r.flags,
      confidence: screeningConfidence(r.intelligence),
      coverage: r.coverage,
      provider_version: r.provider_version,
      cached: false,
      screened_at: r.screened_at,
    };
  }
  return transaction(async (m) => {
    const saved = await m.save(m.create(Screening, { ...base, ...answer }));
    for (const type of screeningEvents(latest?.risk_level ?? null, saved.risk_level)) {
      await emitEvent(m, {
        accountId: scope.accountId,
        livemode: scope.livemode,
        type,
        objectType: 'screening',
        objectId: saved.id,
        object: screeningView(saved),
        request: scope.request,
      });
    }
    return saved;
  });
}

/** The figures a report of `s` certifies. */
function figuresOf(s: Screening): ReportFigures {
  return {
    screening_id: s.id,
    chain: s.chain,
    address: s.address,
    risk_score: s.risk_score,
    risk_level: s.risk_level,
    verdict: s.verdict,
    action: s.action,
    flags: [...s.flags],
    confidence: s.confidence,
    coverage: [...s.coverage],
    provider_version: s.provider_version,
    screened_at: s.screened_at.toISOString(),
  };
}

/** The keys of ReportFigures in their canonical order (what `figuresSha256` hashes, in this order). */
const FIGURE_KEYS: ReadonlyArray<keyof ReportFigures> = [
  'screening_id',
  'chain',
  'address',
  'risk_score',
  'risk_level',
  'verdict',
  'action',
  'flags',
  'confidence',
  'coverage',
  'provider_version',
  'screened_at',
];

/**
 * SHA-256 (hex) of the figures' canonical JSON (keys in the order of ReportFigures), whatever the
 * key order of `f` (figures read back from the jsonb column come in jsonb's order).
 */
export function figuresSha256(reportFigures: ReportFigures): string {
  return crypto
    .createHash('sha256')
    .update(JSON.stringify(reportFigures, FIGURE_KEYS as string[]))
    .digest('hex');
}

/**
 * `POST /screenings/{id}/reports`: a report on screening `id` of the scope; 404 for an
 * unknown screening (param `id`). An equivalent report (same
 * network and address) of the account within REPORT_CACHE_DAYS is served free (`cached: true`,
 * ledger `cache_hit`); else one credit of the owner's balance (`consume_free`, then
 * `consume_paid`), or `402 quota_exhausted` (`insufficient` recorded). Concurrent requests on the
 * last credit: the balance row lock lets exactly one spend it.
 */
export async function createReport(scope: Scope, input: { id: string }): Promise<ScreeningReport> {
  const s = await getScreening(scope, { id: input.id });
  const equivalent = await scoped(scope)
    .query(ScreeningReport, 'r')
    .andWhere('r.chain = :c AND r.address_key = :k', { c: s.chain, k: s.address_key })
    .andWhere('r.created_at > :since', { since: reportCacheSince(Date.now()) })
    .orderBy('r.created_at', 'DESC')
    .getOne();
  const id = newId('srp_');
  const ledger = await consumeCheck(scope, { relatedObjectId: id, cached: Boolean(equivalent) });
  if (ledger.type === 'insufficient') {
    throw new DomainError(
      'quota_exhausted',
      'quota_exhausted',
      'No screening credit left: buy credits (POST /credit_checkouts) and retry.',
      { details: { credit_event_id: ledger.id } },
    );
  }
  const figures = equivalent ? { ...equivalent.figures, screening_id: s.id } : figuresOf(s);
  const repo = db().getRepository(ScreeningReport);
  return repo.save(
    repo.create({
      id,
      screening_id: s.id,
      account_id: scope.accountId,
      livemode: scope.livemode,
      chain: s.chain,
      address_key: s.address_key,
      cached: Boolean(equivalent),
      cached_from: equivalent?.id ?? null,
      credit_event_id: ledger.id,
      credit_event_type: ledger.type,
      figures,
      data_sha256: figuresSha256(figures),
    }),
  );
}
