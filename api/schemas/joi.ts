/**
 * The joi instance of request schemas (api/schemas/*, inline query/body schemas of api/routes/*).
 * It is joi with one difference: string lengths (`.min(n)`, `.max(n)`, `.length(n)`) count Unicode
 * code points, not UTF-16 code units, so 150 emoji pass a `.max(200)`. That is what the
 * OpenAPI document says: JSON Schema `minLength` / `maxLength` count code points, and joi-to-json
 * still emits `.max(n)` as `maxLength: n` (the rule keeps its name and arguments).
 *
 * Response schemas (views/) keep plain joi: they only document, they never refuse a caller.
 */
import BaseJoi from 'joi';

const Joi: typeof BaseJoi = BaseJoi.extend((joi) => ({ type: 'string', base: joi.string() }));

interface LengthRuleOptions {
  name: string;
  operator: '=' | '<=' | '>=';
  args: { limit: number; encoding?: string };
}

/** Number of Unicode code points of `s` (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

// joi's string `min`/`max`/`length` all delegate to its `length` rule; joi offers no public way to
// replace a built-in rule (extend refuses a rule of the same name), so the extended type's own
// copy of the rule table gets a `length` rule that counts code points. Plain joi is untouched.
type RuleTable = Record<string, { validate: (...a: any[]) => unknown }>;
const rules = (Joi.string() as unknown as { _definition: { rules: RuleTable } })._definition.rules;
if (rules === (BaseJoi.string() as unknown as { _definition: { rules: RuleTable } })._definition.rules) {
  throw new Error("api/schemas/joi: the extended string type shares joi's rule table; refusing to patch joi itself");
}
rules.length = {
  ...rules.length,
  validate(value: string, helpers: BaseJoi.CustomHelpers, { limit }: { limit: number }, { name, operator, args }: LengthRuleOptions) {
    const n = args.encoding ? Buffer.byteLength(value, args.encoding as BufferEncoding) : codePointLength(value);
    const ok = operator === '=' ? n === limit : operator === '<=' ? n <= limit : n >= limit;
    return ok ? value : helpers.error(`string.${name}`, { limit: args.limit, value, encoding: args.encoding });
  },
};

export default Joi;
