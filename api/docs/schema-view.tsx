/**
 * A JSON Schema (OpenAPI 3.1, JSON Schema 2020-12) drawn as server-rendered HTML for the API
 * reference (api/docs/reference.tsx, docs/decisions/0093): each property on its own line with its
 * type, `required`, its description and constraints (enum values, pattern, lengths, bounds, format,
 * default, example); nested objects and array items below it, folded in a `<details>` past the first
 * level (opens without JavaScript); `anyOf` / `oneOf` as numbered options, a `null` option shown as
 * `null` in the type. Local `$ref`s (`#/...`) are followed, a cycle is shown by name; a property
 * whose `$ref` the caller drawn elsewhere links there instead (`link`). Every text is
 * escaped by preact; descriptions show their backtick-quoted parts as code.
 */
import type { ComponentChildren } from 'preact';
import { Breakable } from './breakable';

/** A schema node (or any OpenAPI object) as JSON. */
export type Json = Record<string, any>;

/** How deep nested schemas are drawn before the rest is left out (a guard; the documents nest less). */
const MAX_DEPTH = 12;
/** Enum values shown before "and N more". */
const MAX_ENUM = 40;

/** `text` with its backtick-quoted parts as `<code>` (long identifiers breakable: {@link Breakable}). */
export function Inline(props: { text: string }) {
  return (
    <>
      {props.text.split('`').map((part, i) =>
        i % 2 === 1 ? (
          <code>
            <Breakable text={part} code />
          </code>
        ) : (
          <Breakable text={part} />
        ),
      )}
    </>
  );
}

/** The object a local `$ref` (`#/components/schemas/X`) names in `doc`, or undefined. */
export function resolveRef(doc: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Json)[key];
  }
  return at && typeof at === 'object' ? (at as Json) : undefined;
}

/**
 * What drawing a schema needs: the whole document (for `$ref`s), the refs being drawn (cycles), and
 * optionally where a `$ref` is drawn instead of inline (`link`: its anchor, or null to inline it).
 */
interface Ctx {
  doc: Json;
  seen: readonly string[];
  depth: number;
  link?: (ref: string) => string | null;
}

/** `s` with its `$ref` followed (siblings of the `$ref` kept over the target's). */
function deref(s: Json, ctx: Ctx): { s: Json; ctx: Ctx; cycle: string | null } {
  if (typeof s.$ref !== 'string') return { s, ctx, cycle: null };
  const name = s.$ref.split('/').pop() ?? s.$ref;
  if (ctx.seen.includes(s.$ref)) return { s: {}, ctx, cycle: name };
  const target = resolveRef(ctx.doc, s.$ref) ?? {};
  const { $ref: _r, ...rest } = s;
  return deref({ ...target, ...rest }, { ...ctx, seen: [...ctx.seen, s.$ref] });
}

const isNullSchema = (s: Json) => s.type === 'null' || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null);

/** The non-null options of `anyOf` / `oneOf`, and whether a null option was among them. */
function options(s: Json): { alts: Json[]; nullable: boolean; kind: 'anyOf' | 'oneOf' | null } {
  const kind = Array.isArray(s.oneOf) ? 'oneOf' : Array.isArray(s.anyOf) ? 'anyOf' : null;
  if (!kind) return { alts: [], nullable: false, kind };
  const all = s[kind] as Json[];
  return { alts: all.filter((a) => !isNullSchema(a)), nullable: all.some(isNullSchema), kind };
}

/** The schema's types without `null`, and whether `null` is allowed. */
function typesOf(s: Json): { types: string[]; nullable: boolean } {
  const raw: string[] = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
  const o = options(s);
  return {
    types: raw.filter((t) => t !== 'null'),
    nullable: raw.includes('null') || o.nullable || (Array.isArray(s.enum) && s.enum.includes(null)),
  };
}

/** A short label of the schema's type: `string`, `string (date-time)`, `array of object`, `one of 3`, `"list"`. */
export function typeLabel(s0: Json, ctx: Ctx): string {
  const { s, cycle } = deref(s0, ctx);
  if (cycle) return cycle;
  if (s.const !== undefined) return JSON.stringify(s.const);
  const { types, nullable } = typesOf(s);
  const o = options(s);
  let base: string;
  if (types.length === 0 && o.alts.length === 1) base = typeLabel(o.alts[0], { ...ctx, depth: ctx.depth + 1 });
  else if (types.length === 0 && o.alts.length > 1) base = `one of ${o.alts.length}`;
  else if (types.length === 0) base = s.properties ? 'object' : 'any';
  else
    base = types
      .map((t) =>
        t === 'array' && s.items && ctx.depth < MAX_DEPTH ? `array of ${typeLabel(s.items, { ...ctx, depth: ctx.depth + 1 })}` : t,
      )
      .join(' or ');
  if (s.format) base += ` (${s.format})`;
  return nullable ? `${base} or null` : base;
}

/** The constraints of a schema, each a short phrase. */
function constraints(s: Json): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  if (Array.isArray(s.enum)) {
    const values = s.enum.filter((v: unknown) => v !== null);
    const shown = values.slice(0, MAX_ENUM);
    out.push(
      <>
        One of:{' '}
        {shown.map((v: unknown, i: number) => (
          <>
            {i ? ', ' : ''}
            <code>
              <Breakable text={typeof v === 'string' ? v : JSON.stringify(v)} code />
            </code>
          </>
        ))}
        {values.length > shown.length ? `, and ${values.length - shown.length} more` : ''}
      </>,
    );
  }
  const len = (min: unknown, max: unknown, unit: string) => {
    if (typeof min === 'number' && typeof max === 'number') out.push(min === max ? `exactly ${min} ${unit}` : `${min} to ${max} ${unit}`);
    else if (typeof min === 'number' && min > 0) out.push(`at least ${min} ${unit}`);
    else if (typeof max === 'number') out.push(`at most ${max} ${unit}`);
  };
  len(s.minLength, s.maxLength, 'characters');
  len(s.minItems, s.maxItems, 'items');
  len(s.minProperties, s.maxProperties, 'keys');
  if (typeof s.minimum === 'number') out.push(`minimum ${s.minimum}`);
  if (typeof s.exclusiveMinimum === 'number') out.push(`above ${s.exclusiveMinimum}`);
  if (typeof s.maximum === 'number') out.push(`maximum ${s.maximum}`);
  if (typeof s.exclusiveMaximum === 'number') out.push(`below ${s.exclusiveMaximum}`);
  if (s.uniqueItems === true) out.push('unique items');
  // A long pattern scrolls inside its own box (focusable, so a keyboard scrolls it too).
  if (typeof s.pattern === 'string')
    out.push(
      <>
        pattern{' '}
        {s.pattern.length > 40 ? (
          <code class="pattern" tabIndex={0}>
            {s.pattern}
          </code>
        ) : (
          <code>
            <Breakable text={s.pattern} code />
          </code>
        )}
      </>,
    );
  if (s.default !== undefined)
    out.push(
      <>
        default{' '}
        <code>
          <Breakable text={JSON.stringify(s.default)} code />
        </code>
      </>,
    );
  const example = Array.isArray(s.examples) ? s.examples[0] : s.example;
  if (example !== undefined && (typeof example !== 'object' || example === null))
    out.push(
      <>
        example{' '}
        <code>
          <Breakable text={JSON.stringify(example)} code />
        </code>
      </>,
    );
  if (s.readOnly) out.push('read only');
  if (s.writeOnly) out.push('write only');
  if (s.deprecated) out.push('deprecated');
  return out;
}

/** What sits under a schema: its properties, its items' properties, or its options. */
function Children(p: { s: Json; ctx: Ctx }) {
  const { s, ctx } = p;
  if (ctx.depth >= MAX_DEPTH) return null;
  const next = { ...ctx, depth: ctx.depth + 1 };
  const o = options(s);
  const parts: ComponentChildren[] = [];
  if (s.properties && typeof s.properties === 'object')
    parts.push(<PropList props={s.properties} required={s.required ?? []} ctx={next} />);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    parts.push(
      <p class="schema-note">
        Any other key: <span class="prop-type">{typeLabel(s.additionalProperties, next)}</span>
      </p>,
    );
    parts.push(<Children s={deref(s.additionalProperties, next).s} ctx={deref(s.additionalProperties, next).ctx} />);
  }
  if (s.items && typeof s.items === 'object') {
    const items = deref(s.items, next);
    if (items.s.properties || options(items.s).alts.length > 1) parts.push(<Children s={items.s} ctx={items.ctx} />);
  }
  if (o.alts.length > 1) {
    parts.push(<p class="schema-note">{o.kind === 'oneOf' ? 'Exactly one of these options:' : 'Any of these options:'}</p>);
    parts.push(
      <ol class="schema-options">
        {o.alts.map((a, i) => {
          const d = deref(a, next);
          return (
            <li>
              <span class="option-label">Option {i + 1}: </span>
              <span class="prop-type">
                {d.s.title ? `${d.s.title}, ` : ''}
                {typeLabel(a, next)}
              </span>
              {d.s.description ? (
                <p class="prop-desc">
                  <Inline text={String(d.s.description)} />
                </p>
              ) : null}
              <Constraints s={d.s} />
              <Children s={d.s} ctx={d.ctx} />
            </li>
          );
        })}
      </ol>,
    );
  } else if (o.alts.length === 1 && !s.properties) {
    const d = deref(o.alts[0], next);
    parts.push(<Constraints s={d.s} />, <Children s={d.s} ctx={d.ctx} />);
  }
  for (const key of ['allOf'] as const) {
    if (Array.isArray(s[key]))
      for (const a of s[key] as Json[]) {
        const d = deref(a, next);
        parts.push(<Children s={d.s} ctx={d.ctx} />);
      }
  }
  return parts.length ? <>{parts}</> : null;
}

function Constraints(p: { s: Json }) {
  const c = constraints(p.s);
  return c.length ? (
    <p class="schema-constraints">
      {c.map((x, i) => (
        <>
          {i ? '; ' : ''}
          {x}
        </>
      ))}
    </p>
  ) : null;
}

/** True when a schema has something drawn below its own line. */
function hasChildren(s: Json, ctx: Ctx): boolean {
  const d = deref(s, ctx).s;
  const items = d.items && typeof d.items === 'object' ? deref(d.items, ctx).s : null;
  return Boolean(
    d.properties ||
    options(d).alts.length > 1 ||
    (items && (items.properties || options(items).alts.length > 1)) ||
    (d.additionalProperties && typeof d.additionalProperties === 'object') ||
    Array.isArray(d.allOf) ||
    (options(d).alts.length === 1 && hasChildren(options(d).alts[0], ctx)),
  );
}

/** One property: name, type, required, description, constraints; what is inside it below (folded past the first level). */
function Prop(p: { name: string; schema: Json; required: boolean; ctx: Ctx }) {
  const linked = typeof p.schema.$ref === 'string' ? (p.ctx.link?.(p.schema.$ref) ?? null) : null;
  if (linked) {
    return (
      <li>
        <span class="prop-head">
          <code class="prop-name">
            <Breakable text={p.name} code />
          </code>{' '}
          <a class="prop-type" href={linked}>
            {String(p.schema.$ref).split('/').pop()}
          </a>
          {p.required ? (
            <>
              {' '}
              <span class="prop-req">required</span>
            </>
          ) : null}
        </span>
      </li>
    );
  }
  const d = deref(p.schema, p.ctx);
  const nested = hasChildren(p.schema, p.ctx);
  return (
    <li>
      <span class="prop-head">
        <code class="prop-name">
          <Breakable text={p.name} code />
        </code>{' '}
        <span class="prop-type">{typeLabel(p.schema, p.ctx)}</span>
        {p.required ? (
          <>
            {' '}
            <span class="prop-req">required</span>
          </>
        ) : null}
      </span>
      {d.s.description ? (
        <p class="prop-desc">
          <Inline text={String(d.s.description)} />
        </p>
      ) : null}
      <Constraints s={d.s} />
      {nested ? (
        p.ctx.depth <= 1 ? (
          <Children s={d.s} ctx={d.ctx} />
        ) : (
          <details class="schema-fold">
            <summary>
              Inside <code>{p.name}</code>
            </summary>
            <Children s={d.s} ctx={d.ctx} />
          </details>
        )
      ) : null}
    </li>
  );
}

/** The properties of an object, required ones first, each with {@link Prop}. */
function PropList(p: { props: Record<string, Json>; required: string[]; ctx: Ctx }) {
  const names = Object.keys(p.props);
  const req = new Set(p.required);
  const ordered = [...names.filter((n) => req.has(n)), ...names.filter((n) => !req.has(n))];
  return (
    <ul class="props">
      {ordered.map((n) => (
        <Prop name={n} schema={p.props[n]} required={req.has(n)} ctx={p.ctx} />
      ))}
    </ul>
  );
}

/**
 * A schema of `doc` drawn as a property list (an object), or its type line and what is inside it
 * (anything else: an array, a string, options).
 */
export function SchemaView(componentProps: { schema: Json; doc: Json; link?: (ref: string) => string | null }) {
  const ctx: Ctx = { doc: componentProps.doc, seen: [], depth: 0, link: componentProps.link };
  const d = deref(componentProps.schema, ctx);
  if (d.s.properties && !options(d.s).alts.length) {
    return (
      <div class="schema">
        <PropList props={d.s.properties} required={d.s.required ?? []} ctx={{ ...d.ctx, depth: 1 }} />
      </div>
    );
  }
  return (
    <div class="schema">
      <p class="schema-top">
        <span class="prop-type">{typeLabel(componentProps.schema, ctx)}</span>
      </p>
      {d.s.description ? (
        <p class="prop-desc">
          <Inline text={String(d.s.description)} />
        </p>
      ) : null}
      <Constraints s={d.s} />
      <Children s={d.s} ctx={{ ...d.ctx, depth: 1 }} />
    </div>
  );
}

/** A parameter list (path, query, header) drawn like properties: name, where, type, required, description. */
export function ParameterList(props: { params: Json[]; doc: Json }) {
  const ctx: Ctx = { doc: props.doc, seen: [], depth: 1 };
  return (
    <ul class="props">
      {props.params.map((raw) => {
        const param = deref(raw, ctx).s;
        const schema = (param.schema ?? {}) as Json;
        const d = deref(schema, ctx);
        return (
          <li>
            <span class="prop-head">
              <code class="prop-name">{String(param.name)}</code> <span class="prop-in">{String(param.in)}</span>{' '}
              <span class="prop-type">{typeLabel(schema, ctx)}</span>
              {param.required ? (
                <>
                  {' '}
                  <span class="prop-req">required</span>
                </>
              ) : null}
            </span>
            {param.description ? (
              <p class="prop-desc">
                <Inline text={String(param.description)} />
              </p>
            ) : null}
            <Constraints s={param.example !== undefined ? { ...d.s, example: param.example } : d.s} />
          </li>
        );
      })}
    </ul>
  );
}
