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
 * The `Service-Version` / `default_version` syntax, as stated in the OpenAPI document: a
 * `YYYY-MM-DD` date with month 01-12 and day 01-31. `isVersionDate` adds the calendar (day within
 * its month, 29 February only in leap years), i.e. JSON Schema `format: date`.
 */
export const VERSION_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$';
const VERSION_RE = new RegExp(VERSION_PATTERN);

/** True when `s` is a real calendar date `YYYY-MM-DD` (`2026-02-30`, `0000-00-00`: false). */
export function isVersionDate(text: string): boolean {
  if (!VERSION_RE.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/**
 * Resolves the version to serve: the newest served version dated on or before `requested`
 * (the oldest when `requested` predates all: spec 9 rule 2), else the key default, else the latest.
 * `requested` is the header value as sent: undefined when the header is absent; an empty or
 * blank value is a value, and invalid. Throws 400 `version_invalid` (param `Service-Version`)
 * unless the value is a real calendar date `YYYY-MM-DD` (`isVersionDate`).
 */
export function resolveVersion(requested: string | undefined, keyDefault: string | null): string {
  const raw = requested !== undefined ? requested.trim() : keyDefault || LATEST_VERSION;
  if (!isVersionDate(raw)) {
    throw invalidRequest(
      'version_invalid',
      `Service-Version must be a calendar date YYYY-MM-DD, like ${LATEST_VERSION}.`,
      'Service-Version',
    );
  }
  let served: string = SERVED_VERSIONS[0];
  for (const v of SERVED_VERSIONS) if (v <= raw) served = v;
  return served;
}
