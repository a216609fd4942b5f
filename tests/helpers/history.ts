/**
 * Reading a workflow history in tests: the calls of an activity, remote (ActivityTaskScheduled) or
 * local (a `core_local_activity` marker, whose details name the activity type), so a test that
 * counts what a workflow did holds whichever form the run used (issue 36: database steps run as
 * local activities past `local-database-steps`, workflows/convention.ts).
 */
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity type a local-activity marker records, or null for another marker. */
export function localActivityType(historyEvent: HistoryEvent): string | null {
  const m = historyEvent.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return null;
  for (const p of m.details?.data?.payloads ?? []) {
    try {
      const d = JSON.parse(Buffer.from(p.data ?? new Uint8Array()).toString('utf8')) as { activity_type?: string; activityType?: string };
      const type = d.activity_type ?? d.activityType;
      if (type) return type;
    } catch {
      /* not JSON */
    }
  }
  return null;
}

/** How many times `events` called activity `name`, as a remote or a local activity. */
export function activityCalls(events: HistoryEvent[] | null | undefined, name: string): number {
  return (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name || localActivityType(e) === name)
    .length;
}
