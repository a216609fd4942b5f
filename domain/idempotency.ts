/**
 * Idempotency-Key rules (spec part 1 rule 3, 7 `idempotency_key_invalid`, 8): key shape,
 * retention, and the canonical JSON a request body is hashed from (same key with a
 * different canonical body is `409 idempotency_error`).
 *
 * Pure: no I/O, no crypto (the caller hashes `canonicalJson(body)`).
 */

/** 16 to 128 characters of `[A-Za-z0-9_-]` (spec 8). */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** Replay window: a stored response is replayed for 24 hours, then forgotten (spec 8), in seconds. */
export const IDEMPOTENCY_TTL_SECONDS = 86400;

/** True while a record `ageSeconds` old is replayed (spec 8: within 24 hours; forgotten after). */
export function isReplayable(ageSeconds: number): boolean {
  return ageSeconds <= IDEMPOTENCY_TTL_SECONDS;
}

/** True when `k` is a string matching IDEMPOTENCY_KEY_PATTERN (else the API answers `400 idempotency_key_invalid`). */
export function isValidIdempotencyKey(key: unknown): boolean {
  return typeof key === 'string' && IDEMPOTENCY_KEY_PATTERN.test(key);
}

/**
 * Deterministic JSON: object keys sorted by UTF-16 code unit order at every depth, arrays
 * in order, no whitespace. Otherwise it follows JSON.stringify: `toJSON` is honoured,
 * `undefined` / functions / symbols are dropped from objects and become `null` in arrays,
 * non-finite numbers become `null`, and a top-level `undefined` gives `"null"`.
 * Equal JSON values give equal strings whatever their key order.
 * Throws TypeError on a bigint or a circular structure.
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const enc = (v: unknown, inArray: boolean): string | undefined => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: () => unknown }).toJSON();
    }
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'number':
        return Number.isFinite(v) ? JSON.stringify(v) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        throw new TypeError('canonicalJson: bigint is not JSON; convert amounts to strings first');
      case 'undefined':
      case 'function':
      case 'symbol':
        return inArray ? 'null' : undefined;
      default:
        break;
    }
    if (v === null) return 'null';
    const obj = v as object;
    if (seen.has(obj)) throw new TypeError('canonicalJson: circular structure');
    seen.add(obj);
    let out: string;
    if (Array.isArray(obj)) {
      out = '[' + obj.map((x) => enc(x, true) as string).join(',') + ']';
    } else {
      const rec = obj as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(rec).sort()) {
        const e = enc(rec[k], false);
        if (e !== undefined) parts.push(JSON.stringify(k) + ':' + e);
      }
      out = '{' + parts.join(',') + '}';
    }
    seen.delete(obj);
    return out;
  };
  return enc(value, false) ?? 'null';
}
