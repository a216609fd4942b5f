/**
 * The chaos harness's progress verdict, pure: a fault passes only if the load made progress through
 * it. Journeys in play at the fault are those not ended before it started (in flight then, or
 * started during or after it); every one of them must complete, except failures the fault's stated
 * tolerance allows (matched by message, at most `max`, with a reason), and a journey failing
 * before the fault fails the run as well. The floor of journeys
 * completed during or after the fault is therefore the journeys in play less the tolerated
 * failures, and never below the load's concurrency (each journey slot finished at least one).
 * One journey per fault that only missed the client's wait is allowed (LATE_JOURNEY).
 */

/** How one journey of the load ended; times are ms epoch. */
export interface JourneyEnd {
  kind: string;
  ok: boolean;
  startedAt: number;
  endedAt: number;
  /** The failure's message (failed journeys). */
  error?: string;
}

/** Failures a fault may cause without failing the run: those whose message matches, at most `max`, and why. */
export interface Tolerance {
  match: RegExp;
  max: number;
  reason: string;
}

/** The verdict and its figures. */
export interface ProgressVerdict {
  ok: boolean;
  /** Journeys not ended before the fault started. */
  inPlay: number;
  /** Of those, completed (during or after the fault); failed: every failure of the window. */
  completed: number;
  failed: number;
  tolerated: number;
  floor: number;
  /** One line for the report. */
  detail: string;
}

/**
 * Every fault may leave one journey that missed the load client's wait (`not within N s`): on a
 * shared 2-core machine a step after a killed process (an activity's 30 s start-to-close timeout,
 * then its retry) can outlast the wait. Such a journey is not given up on: its object is still
 * checked by the invariants after the fault (terminal or explainable, closed by its deadline plus
 * the slack, a funded payout or off-ramp moving on within 90 s), which fail the run if it is stuck.
 */
export const LATE_JOURNEY: Tolerance = {
  match: /: not within \d+ s$/,
  max: 1,
  reason: "missed the client's wait; its object is checked by the invariants",
};

/** The verdict for one fault (module doc); `concurrency` is the load's number of journey slots. */
export function progressVerdict(ends: JourneyEnd[], faultStart: number, concurrency: number, tolerance?: Tolerance): ProgressVerdict {
  const inPlay = ends.filter((e) => e.endedAt >= faultStart);
  const completed = inPlay.filter((e) => e.ok).length;
  // A failure before the fault started fails the run too (the floor counts only journeys in play).
  const failures = ends.filter((e) => !e.ok);
  const matching = tolerance ? failures.filter((e) => tolerance.match.test(e.error ?? '')).length : 0;
  const faultTolerated = Math.min(matching, tolerance?.max ?? 0);
  const late = Math.min(
    failures.filter((e) => !tolerance?.match.test(e.error ?? '') && LATE_JOURNEY.match.test(e.error ?? '')).length,
    LATE_JOURNEY.max,
  );
  const tolerated = faultTolerated + late;
  const floor = Math.max(concurrency, inPlay.length - (tolerance?.max ?? 0) - late);
  const untolerated = failures.length - tolerated;
  const ok = completed >= floor && untolerated === 0;
  const why = [
    completed < floor ? `completed ${completed} < floor ${floor}` : null,
    untolerated ? `${untolerated} failed outside the tolerance` : null,
  ].filter(Boolean);
  return {
    ok,
    inPlay: inPlay.length,
    completed,
    failed: failures.length,
    tolerated,
    floor,
    detail:
      `${completed} of ${inPlay.length} journeys in play completed (floor ${floor}); ${failures.length} failed` +
      (faultTolerated && tolerance ? `, ${faultTolerated} tolerated (${tolerance.reason})` : '') +
      (late ? `, ${late} late (${LATE_JOURNEY.reason})` : '') +
      (why.length ? `: ${why.join('; ')}` : ''),
  };
}

/**
 * Journeys a fault that cuts requests mid-flight (an API process killed, PostgreSQL gone) may fail:
 * a request cut after it may have taken effect leaves its idempotency claim failed, so the retry
 * answers `409 idempotency_failed` (spec 7: reconcile, then retry under a new key), and the load's
 * client gives the journey up rather than reconcile; and a call the outside world makes once (a
 * bank credit, a wallet signature: not idempotent there) cut by the fault, or refused 503 during
 * it, is not sent again. At most two per fault (the most seen in recorded runs).
 */
export const CUT_REQUESTS: Tolerance = {
  match: /409 .*idempotency_failed|\(not retried: the call may have landed\)|\/sim\/(bank\/credits|wallet\/sign): 503 /,
  max: 2,
  reason: 'a request cut after it may have taken effect: 409 idempotency_failed (spec 7), or a bank credit or signature sent once',
};
