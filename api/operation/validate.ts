/**
 * Request validation with joi (spec 7, 8): the query (converted from strings, unknown keys ignored)
 * and the body (unknown key `400 parameter_unknown`; strict JSON types: a value joi would convert is
 * `400 parameter_invalid` naming its dotted path, cut to 200 characters). joi errors are mapped to
 * the error envelope by api/middleware/errors.ts `fromJoi`.
 */
import type Joi from 'joi';
import { DomainError } from '../../domain/errors';
import { fromJoi } from '../middleware/errors';

/**
 * Validates `value` against `schema`; unknown keys are 400 naming the key (`parameter_unknown`).
 * Query values arrive as strings and are converted (numbers, booleans, dates); a body is strict
 * about JSON types: a value joi would turn into another type (a string into a number, boolean,
 * object or array, a number into a date) is `400 parameter_invalid` naming it (`coercedPath`).
 * String normalisations (trim, case) and ISO date strings still apply to bodies.
 */
export function validate<T>(schema: Joi.ObjectSchema | undefined, value: unknown, where: 'body' | 'query'): T {
  if (!schema) {
    if (where === 'body' && value && typeof value === 'object' && Object.keys(value as object).length > 0) {
      const first = Object.keys(value as object)[0];
      throw new DomainError('invalid_request', 'parameter_unknown', `Unknown body parameter: \`${first}\`.`, { param: first });
    }
    return (value ?? {}) as T;
  }
  const { value: v, error } = schema.validate(value ?? {}, {
    abortEarly: true,
    convert: true,
    allowUnknown: where === 'query',
    stripUnknown: where === 'query' ? { objects: false } : false,
  });
  if (error) throw fromJoi(error, where, schema);
  if (where === 'body') {
    const coerced = coercedPath(value ?? {}, v);
    if (coerced !== null) {
      const shown = coerced.length > 200 ? `${coerced.slice(0, 200)}…` : coerced;
      throw new DomainError(
        'invalid_request',
        'parameter_invalid',
        `\`${shown}\` has the wrong JSON type (${jsonType(valueAt(value, coerced))} given; no conversion is made in a body).`,
        { param: shown },
      );
    }
  }
  return v as T;
}

/** JSON type name of `v` (`null`, `array`, `object`, `string`, `number`, `boolean`). */
function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function valueAt(v: unknown, path: string): unknown {
  let x = v;
  for (const k of path.split('.')) x = x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined;
  return x;
}

/**
 * Dotted path of the first value of the request body `input` whose JSON type differs in joi's
 * output `output` (a conversion), or null. A string parsed into a Date is not a conversion of
 * type (ISO date-time fields). Keys absent from the output (stripped) are skipped. Iterative.
 */
export function coercedPath(input: unknown, output: unknown): string | null {
  const stack: Array<[unknown, unknown, string]> = [[input, output, '']];
  while (stack.length) {
    const [i, o, at] = stack.pop()!;
    if (o instanceof Date) {
      if (typeof i !== 'string') return at;
      continue;
    }
    if (jsonType(i) !== jsonType(o)) return at;
    if (i === null || typeof i !== 'object') continue;
    const keys = Object.keys(i);
    for (let n = keys.length - 1; n >= 0; n--) {
      const k = keys[n];
      if (!Object.hasOwn(o as object, k)) continue;
      stack.push([(i as Record<string, unknown>)[k], (o as Record<string, unknown>)[k], at ? `${at}.${k}` : k]);
    }
  }
  return null;
}
