/**
 * The chaos harness's report: per fault, the requests sent (attempts, retries included), the
 * answers by status, the recovery times, the journeys completed and failed, the fault's own notes
 * and the invariant results; then a summary line per fault.
 */
import type { CheckResult } from './checks';
import type { MixResult } from './mix';
import type { ProgressVerdict } from './progress';
import type { Attempt } from './traffic';

/** Everything measured around one fault. */
export interface FaultReport {
  name: string;
  title: string;
  attempts: Attempt[];
  /** ms epoch: the load started, the fault was injected, lifted, the load stopped. */
  loadStart: number;
  faultStart: number;
  liftedAt: number;
  loadEnd: number;
  /** ms from the fault's start to the first 2xx answer ending after it; from the lift to the first 2xx. */
  firstSuccessMs: number | null;
  recoveryMs: number | null;
  /** ms from the lift to the first workflow-written event (a payment, payout, send, off-ramp or run moving on). */
  workflowRecoveryMs: number | null;
  mix: MixResult;
  notes: string[];
  faultOk: boolean;
  /** Journeys in play at the fault, completed against the floor (bench/chaos/progress.ts). */
  progress: ProgressVerdict;
  checks: CheckResult[];
  findings: string[];
  durationMs: number;
}

const ms = (v: number | null) => (v === null ? 'none' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);
const counts = (r: Record<string, number>) =>
  Object.entries(r)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/** Answers by status over `attempts`: `{ '2xx': n, '503': n, conn: n, ... }` (every non-2xx status on its own). */
export function byStatus(attempts: Attempt[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of attempts) {
    const k = a.awaited
      ? `${a.status} expected`
      : typeof a.status === 'number' && a.status >= 200 && a.status < 300
        ? '2xx'
        : String(a.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** The lines of one fault's section. */
export function faultSection(faultReport: FaultReport): string[] {
  const statuses = byStatus(faultReport.attempts);
  const { '2xx': good = 0, ...errors } = statuses;
  const no503Retry = faultReport.attempts.filter((a) => a.status === 503 && !a.retryAfter).length;
  const passed = faultReport.checks.filter((c) => c.ok).length;
  const lines = [
    '',
    `Fault ${faultReport.name}: ${faultReport.title}`,
    `  requests sent ${faultReport.attempts.length} (2xx ${good}); errors by status: ${counts(errors)}${no503Retry ? `; 503 without Retry-After ${no503Retry}` : ''}`,
    `  first success after the fault ${ms(faultReport.firstSuccessMs)}; recovery (first success after the lift) ${ms(faultReport.recoveryMs)}; first workflow progress after the lift ${ms(faultReport.workflowRecoveryMs)}`,
    `  journeys completed: ${counts(faultReport.mix.completed)}; failed: ${counts(faultReport.mix.failed)}`,
    ...faultReport.notes.map((n) => `  ${n}`),
    ...faultReport.mix.samples.map((s) => `  failed journey: ${s}`),
    ...faultReport.findings.map((f) => `  finding: ${f}`),
    `  invariants ${passed}/${faultReport.checks.length} hold:`,
    ...faultReport.checks.map((c) => `    ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`),
    `  (${(faultReport.durationMs / 1000).toFixed(0)} s)`,
  ];
  return lines;
}

/** One line per fault: requests, 500s, journeys completed against the floor and failed, invariants, the fault's own verdict. */
export function summary(reports: FaultReport[], totalMs: number, short: boolean): string[] {
  const out = [
    '',
    `Summary (${short ? 'short' : 'full'} mode, ${(totalMs / 1000).toFixed(0)} s of faults; ${process.uptime().toFixed(0)} s with the stack's start):`,
    '| fault | requests | non-2xx | 500s | journeys done/in play (floor) | failed (tolerated) | recovery | invariants | fault verdict |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of reports) {
    const s = byStatus(r.attempts);
    const p = r.progress;
    const awaited = Object.entries(s)
      .filter(([k]) => k.endsWith('expected'))
      .reduce((a, [, v]) => a + v, 0);
    out.push(
      `| ${r.name} | ${r.attempts.length} | ${r.attempts.length - (s['2xx'] ?? 0) - awaited} | ${s['500'] ?? 0} | ${p.completed}/${p.inPlay} (${p.floor}) | ${p.failed}${p.tolerated ? ` (${p.tolerated})` : ''} | ${ms(r.recoveryMs)} | ${r.checks.filter((c) => c.ok).length}/${r.checks.length} | ${r.faultOk ? 'ok' : 'FAIL'} |`,
    );
  }
  return out;
}
