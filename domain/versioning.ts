/**
 * API versioning (spec 9): dated versions, pinning by `Service-Version`, a key's default version,
 * and dates older than the oldest served echoed as the oldest.
 */
import { invalidRequest } from './errors';

/** Versions this server serves, oldest first (dates, `YYYY-MM-DD`). */
export const SERVED_VERSIONS = ['2026-09-04'] as const;
export const LATEST_VERSION = SERVED_VERSIONS[SERVED_VERSIONS.length - 1];
/** Contract version string of the latest version (spec 9 rule 1). */
export const CONTRACT_VERSION = '2026-09-04T00:00:00.000Z';

/**
 * Resolves the version to serve: the newest served version dated on or before `requested`
 * (the oldest when `requested` predates all), else the key default, else the latest.
 * Throws 400 `version_invalid` (param `Service-Version`) for a value that is not a date.
 */
export function resolveVersion(requested: string | undefined, keyDefault: string | null): string {
  const raw = requested?.trim() || keyDefault || LATEST_VERSION;
  const m = /^(\d{4}-\d{2}-\d{2})(T00:00:00(\.000)?Z)?$/.exec(raw);
  if (!m || Number.isNaN(Date.parse(m[1]))) {
    throw invalidRequest('version_invalid', `Service-Version must be a date like ${LATEST_VERSION}.`, 'Service-Version');
  }
  const date = m[1];
  let served: string = SERVED_VERSIONS[0];
  for (const v of SERVED_VERSIONS) if (v <= date) served = v;
  return served;
}
