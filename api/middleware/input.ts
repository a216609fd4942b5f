/**
 * Input hygiene before routing: PostgreSQL text cannot hold U+0000, so a NUL character anywhere
 * in the request would fail deep in a query as a 500. Refused up front instead (spec 7):
 * - in a path segment: `404 not_found` (no object id contains it);
 * - in a query or JSON body key or string value: `400 invalid_request` code `parameter_invalid`
 *   naming the parameter (dotted path for body fields, e.g. `items.0.name`).
 */
import type Koa from 'koa';
import { DomainError } from '../../domain/errors';
import type { AppState } from '../context';

const NUL = '\u0000';
const MAX_DEPTH = 32;

/** Dotted path of the first key or string containing NUL in `v`, '' for the root itself, null when clean. */
export function findNul(v: unknown, at = '', depth = 0): string | null {
  if (typeof v === 'string') return v.includes(NUL) ? at : null;
  if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) return null;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const here = at ? `${at}.${k}` : k;
    if (k.includes(NUL)) return here;
    const found = findNul(x, here, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

function nulInPath(path: string): boolean {
  return path.includes(NUL) || /%00/i.test(path);
}

/** `s` with NUL characters shown as `\\0` (for messages and `param`). */
const shown = (s: string) => s.split(NUL).join('\\0');

/** Koa middleware: refuses NUL characters in the path, query and JSON body (see module doc). */
export function rejectNulCharacters(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (nulInPath(ctx.path)) throw new DomainError('not_found', 'not_found', 'No such object.');
    for (const found of [findNul(ctx.query), findNul((ctx.request as unknown as { body?: unknown }).body)]) {
      if (found === null) continue;
      const param = shown(found);
      throw new DomainError('invalid_request', 'parameter_invalid', param ? `\`${param}\` must not contain a NUL character.` : 'The request must not contain NUL characters.', param ? { param } : {});
    }
    await next();
  };
}
