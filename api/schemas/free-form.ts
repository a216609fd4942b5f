/**
 * Bounded free-form JSON objects in request bodies (docs/decisions/0027-hostile-input.md):
 * any keys and JSON values, within a nesting depth, a total number of entries and a serialized
 * size, stated in the OpenAPI document (`maxProperties` for the top level via `x-maxProperties`, `x-max-depth`,
 * `x-max-entries`, `x-max-bytes` and the description).
 */
import Joi from 'joi';

/** Bounds of a free-form object: `depth` levels (the object itself is 1), `entries` keys and array items in all, `bytes` of compact UTF-8 JSON. */
export interface FreeFormBounds {
  depth: number;
  entries: number;
  bytes: number;
}

/** The bounds of `PATCH /account` `dashboard_preferences`. */
export const DASHBOARD_PREFERENCES_BOUNDS: FreeFormBounds = { depth: 5, entries: 100, bytes: 16 * 1024 };

/** Depth (levels of objects and arrays, `{}` is 1, a scalar 0) and entries (keys and items, all levels) of `v`. Iterative. */
export function measure(value: unknown): { depth: number; entries: number } {
  let depth = 0;
  let entries = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    depth = Math.max(depth, d);
    const children = Object.values(x);
    entries += children.length;
    for (const c of children) stack.push([c, d + 1]);
  }
  return { depth, entries };
}

/**
 * joi schema of a free-form object within `b`; a value beyond a bound is refused with
 * `object.depth`, `object.entries` or `object.bytes` (400 `parameter_invalid` naming the field).
 */
export function boundedFreeForm(freeFormBounds: FreeFormBounds): Joi.ObjectSchema {
  return Joi.object()
    .unknown(true)
    .max(freeFormBounds.entries)
    .custom((value: unknown, helpers) => {
      const m = measure(value);
      if (m.depth > freeFormBounds.depth) return helpers.error('object.depth', { limit: freeFormBounds.depth });
      if (m.entries > freeFormBounds.entries) return helpers.error('object.entries', { limit: freeFormBounds.entries });
      if (Buffer.byteLength(JSON.stringify(value), 'utf8') > freeFormBounds.bytes)
        return helpers.error('object.bytes', { limit: freeFormBounds.bytes });
      return value;
    }, 'free-form bounds')
    .messages({
      'object.depth': '{{#label}} must not nest deeper than {{#limit}} levels',
      'object.entries': '{{#label}} must not hold more than {{#limit}} keys and array items in all',
      'object.bytes': '{{#label}} must not exceed {{#limit}} bytes of JSON',
    })
    .description(
      `Free-form JSON object: at most ${freeFormBounds.depth} levels of nesting (the object itself is 1), ${freeFormBounds.entries} keys and array items in all, ${freeFormBounds.bytes} bytes as compact UTF-8 JSON.`,
    )
    .meta({
      'x-maxProperties': freeFormBounds.entries,
      'x-max-depth': freeFormBounds.depth,
      'x-max-entries': freeFormBounds.entries,
      'x-max-bytes': freeFormBounds.bytes,
    });
}
