/**
 * List pagination (spec 2.1 list envelope, 4 conventions, 8 "Page size"): the `limit` rule
 * and the opaque keyset cursor `(created_at, id)` of newest-first lists.
 * base64url and UTF-8 are implemented here in plain string code (no Buffer, no TextEncoder),
 * so the module stays importable from Temporal workflows.
 *
 * Pure: no I/O.
 */

/** Default page size (spec 8). */
export const DEFAULT_LIMIT = 25;
/** Largest page size; larger requests are capped to it (spec 8). */
export const MAX_LIMIT = 100;

/**
 * The page size to use for a raw `limit` query value (spec 8: out-of-range is never rejected).
 * - a positive integer (number, bigint, or a string of ASCII digits after trimming spaces,
 *   e.g. "10", " 10 ", "010") -> itself, capped to 100;
 * - absent, empty, 0, negative, fractional ("1.5", "10.0"), non-numeric ("abc", "1e2", "+5",
 *   "0x10"), NaN / Infinity, arrays (a repeated parameter), objects, booleans -> 25.
 * Never throws.
 */
export function parseLimit(raw: unknown): number {
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw) || raw < 1) return DEFAULT_LIMIT;
    return Math.min(raw, MAX_LIMIT);
  }
  if (typeof raw === 'bigint') {
    if (raw < 1n) return DEFAULT_LIMIT;
    return raw > BigInt(MAX_LIMIT) ? MAX_LIMIT : Number(raw);
  }
  if (typeof raw !== 'string') return DEFAULT_LIMIT;
  const s = raw.trim();
  if (!/^[0-9]+$/.test(s)) return DEFAULT_LIMIT;
  const digits = s.replace(/^0+/, '');
  if (digits.length === 0) return DEFAULT_LIMIT; // "0", "000"
  if (digits.length > 3) return MAX_LIMIT;
  const n = Number(digits);
  return n > MAX_LIMIT ? MAX_LIMIT : n;
}

// ---------------------------------------------------------------------------------------
// UTF-8 and base64url (RFC 4648 section 5, unpadded)

/** UTF-8 bytes of `s`; a lone surrogate is encoded as U+FFFD (as TextEncoder does). */
export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    let cp = ch.codePointAt(0) as number;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return Uint8Array.from(out);
}

/** Strict UTF-8 decode; null on any malformed, overlong, surrogate or out-of-range sequence. */
export function utf8Decode(bytes: Uint8Array): string | null {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i];
    let cp: number;
    let need: number;
    let min: number;
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      cp = b0 & 0x1f;
      need = 1;
      min = 0x80;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      cp = b0 & 0x0f;
      need = 2;
      min = 0x800;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      cp = b0 & 0x07;
      need = 3;
      min = 0x10000;
    } else return null;
    if (i + need >= bytes.length) return null; // truncated sequence
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Unpadded base64url (RFC 4648 section 5) of `bytes`. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64URL[(n >> 18) & 63] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63] + B64URL[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += B64URL[(n >> 18) & 63] + B64URL[(n >> 12) & 63];
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += B64URL[(n >> 18) & 63] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63];
  }
  return out;
}

/**
 * Decode unpadded, canonical base64url; null on any other character (including `=`, `+`,
 * `/`), an impossible length, or non-zero unused trailing bits. Never throws.
 */
export function base64UrlDecode(text: string): Uint8Array | null {
  if (typeof text !== 'string' || text.length % 4 === 1) return null;
  const vals: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const v = B64URL.indexOf(text[i]);
    if (v < 0) return null;
    vals.push(v);
  }
  const out: number[] = [];
  let i = 0;
  for (; i + 3 < vals.length; i += 4) {
    const n = (vals[i] << 18) | (vals[i + 1] << 12) | (vals[i + 2] << 6) | vals[i + 3];
    out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
  }
  const rest = vals.length - i;
  if (rest === 2) {
    if ((vals[i + 1] & 0x0f) !== 0) return null;
    out.push(((vals[i] << 2) | (vals[i + 1] >> 4)) & 255);
  } else if (rest === 3) {
    if ((vals[i + 2] & 0x03) !== 0) return null;
    const n = (vals[i] << 18) | (vals[i + 1] << 12) | (vals[i + 2] << 6);
    out.push((n >> 16) & 255, (n >> 8) & 255);
  }
  return Uint8Array.from(out);
}

// ---------------------------------------------------------------------------------------
// Cursor

/** Keyset position of a newest-first list: the last row's `created_at` and `id`. */
export interface Cursor {
  /** ISO-8601 timestamp, e.g. `2026-09-04T10:00:00.123Z` (up to 9 fractional digits; `T` or space; `Z` or an offset). */
  t: string;
  /** The last row's id, e.g. `pl_...` (letters, digits, `_`; 1..255 characters). */
  id: string;
}

/** Longest cursor string `decodeCursor` looks at; longer input is garbage. */
export const MAX_CURSOR_LENGTH = 1024;

const CURSOR_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;
const CURSOR_ID = /^[A-Za-z0-9_]{1,255}$/;

const CURSOR_OFFSET = /([+-])(\d{2})(?::?(\d{2}))?$/;

/**
 * True for a timestamp PostgreSQL `timestamptz` accepts as written: a real calendar day (no
 * 31 February) of year 1 or later, and a UTC offset of at most 15:59 (PostgreSQL's limit).
 */
function validTime(t: unknown): t is string {
  if (typeof t !== 'string') return false;
  const m = CURSOR_TIME.exec(t);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return false;
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  if (d > daysInMonth) return false;
  const off = t.endsWith('Z') ? null : CURSOR_OFFSET.exec(t);
  return !off || (Number(off[2]) <= 15 && Number(off[3] ?? 0) <= 59);
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Largest value of a PostgreSQL `bigint` (outbox sequence numbers). */
export const MAX_BIGINT = 9223372036854775807n;

/** True for a decimal string of a non-negative integer a PostgreSQL `bigint` holds (1 to 19 digits). */
export function isBigintDigits(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT;
}

/**
 * Opaque cursor for `{ t, id }`: unpadded base64url of the JSON `{"t":..,"id":..}`.
 * Throws RangeError when `t` is not an ISO-8601 timestamp or `id` not 1..255 of `[A-Za-z0-9_]`
 * (so that every cursor handed out decodes again).
 */
export function encodeCursor(cursor: Cursor): string {
  if (!validTime(cursor?.t)) throw new RangeError('cursor t must be an ISO-8601 timestamp');
  if (typeof cursor.id !== 'string' || !CURSOR_ID.test(cursor.id)) throw new RangeError('cursor id must be 1..255 of [A-Za-z0-9_]');
  return base64UrlEncode(utf8Encode(JSON.stringify({ t: cursor.t, id: cursor.id })));
}

/**
 * Decode a cursor made by `encodeCursor`; null on anything else (wrong type, empty, too
 * long, not base64url, not UTF-8 JSON, missing or malformed `t` / `id`, extra keys). Never throws.
 */
export function decodeCursor(input: string): Cursor | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_CURSOR_LENGTH) return null;
  const bytes = base64UrlDecode(input);
  if (!bytes) return null;
  const text = utf8Decode(bytes);
  if (text === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length !== 2 || !validTime(o.t) || typeof o.id !== 'string' || !CURSOR_ID.test(o.id)) return null;
  return { t: o.t, id: o.id };
}
