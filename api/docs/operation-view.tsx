/**
 * One operation of an OpenAPI document drawn as server-rendered HTML for the API reference
 * (api/docs/reference.tsx, docs/decisions/0093): its one-line summary as the heading (the element's
 * id is the operationId, so `/docs/reference/<tag>#<operationId>` lands on it), method and full path,
 * description, who may call it (security, `x-scope`, `x-callers`, `x-roles`, `x-test-mode`), its
 * parameters, request body (schema and examples), success answers (headers, schema, examples) and
 * error statuses (each the error envelope: a link to the error reference). Also the one-line row
 * an operation is listed by (`OperationRow`), shared by the index and each area's contents.
 */
import { Breakable } from './breakable';
import { Inline, ParameterList, resolveRef, SchemaView, type Json } from './schema-view';

/** HTTP methods in the order a path's operations are listed. */
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** One operation with where it lives. */
export interface OperationEntry {
  method: string;
  path: string;
  op: Json;
}

/** Every operation of `paths` (a document's `paths` or `webhooks`), in document order. */
export function operationsOf(paths: Json | undefined): OperationEntry[] {
  return Object.entries(paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ method, path, op: (item as Json)[method] as Json })),
  );
}

/** The path a client calls: the document's first server URL (`/v1`) joined with `path`. */
export function fullPath(doc: Json, path: string): string {
  const base = String((doc.servers as Json[] | undefined)?.[0]?.url ?? '').replace(/\/+$/, '');
  return `${base}${path}`;
}

/** A path in `<code>` that may wrap after each `/` (never inside a segment). */
export function PathCode(props: { path: string }) {
  const parts = props.path.split('/');
  return (
    <code class="path">
      {parts.map((s, i) =>
        i === 0 ? (
          s
        ) : (
          <>
            /<wbr />
            {s}
          </>
        ),
      )}
    </code>
  );
}

/** A dotted name (`payroll_run.funding_instructions_requested`) in `<code>`, which may wrap after each `.` or `_`. */
export function DottedCode(props: { name: string; class?: string }) {
  return (
    <code class={props.class}>
      <Breakable text={props.name} code />
    </code>
  );
}

/** The method as a coloured label (`GET`, `POST`, ...). */
export function Method(props: { method: string }) {
  return <span class={`method method-${props.method}`}>{props.method.toUpperCase()}</span>;
}

/** The row an operation is listed by: method, path and its summary, linking to its section. */
export function OperationRow(props: { entry: OperationEntry; doc: Json; href: string }) {
  const { op, method, path } = props.entry;
  return (
    <li>
      <a href={props.href}>
        <span class="op-row-line">
          <Method method={method} /> <PathCode path={fullPath(props.doc, path)} />
        </span>
        <span class="op-row-summary">{String(op.summary ?? op.operationId ?? '')}</span>
      </a>
    </li>
  );
}

/** A heading's text with `name` (an event type) in it drawn as a {@link DottedCode}, so it wraps after a dot. */
function Title(p: { text: string; name?: string }) {
  const at = p.name ? p.text.indexOf(p.name) : -1;
  if (!p.name || at < 0) return <>{p.text}</>;
  return (
    <>
      {p.text.slice(0, at)}
      <DottedCode name={p.name} />
      {p.text.slice(at + p.name.length)}
    </>
  );
}

/** The credentials an operation accepts: the header each security scheme is sent in. */
function Security(p: { op: Json; doc: Json }) {
  const requirements = (p.op.security ?? p.doc.security ?? []) as Json[];
  if (requirements.length === 0) return <>None: the token in the path is the capability.</>;
  const schemes = (p.doc.components?.securitySchemes ?? {}) as Json;
  const names = [...new Set(requirements.flatMap((r) => Object.keys(r)))];
  const label = (n: string) => {
    const s = (schemes[n] ?? {}) as Json;
    if (s.type === 'apiKey')
      return (
        <>
          <code>{String(s.name)}</code> {String(s.in ?? 'header')}
        </>
      );
    if (s.type === 'http') return <code>Authorization: {String(s.scheme ?? '').replace(/^bearer$/i, 'Bearer')}</code>;
    return <code>{n}</code>;
  };
  return (
    <>
      {names.map((n, i) => (
        <>
          {i ? ' or ' : ''}
          {label(n)}
        </>
      ))}
    </>
  );
}

/** Examples of a media type (`example`, `examples`), each as formatted JSON. */
function Examples(p: { media: Json; label: string }) {
  const list: { title: string; value: unknown }[] = [];
  if (p.media.example !== undefined) list.push({ title: p.label, value: p.media.example });
  for (const [name, e] of Object.entries((p.media.examples ?? {}) as Json))
    list.push({ title: `${p.label}: ${(e as Json).summary ?? name}`, value: (e as Json).value });
  const schemaExamples = p.media.schema?.examples;
  if (list.length === 0 && Array.isArray(schemaExamples))
    schemaExamples.forEach((v: unknown, i: number) =>
      list.push({ title: schemaExamples.length > 1 ? `${p.label} ${i + 1}` : p.label, value: v }),
    );
  return (
    <>
      {list.map((x) => (
        <figure class="example">
          <figcaption>{x.title}</figcaption>
          <pre tabIndex={0}>
            <code class="language-json">{typeof x.value === 'string' ? x.value : JSON.stringify(x.value, null, 2)}</code>
          </pre>
        </figure>
      ))}
    </>
  );
}

/** A media type's schema and examples. */
function Body(p: { content: Json | undefined; doc: Json; exampleLabel: string; link?: (ref: string) => string | null }) {
  const entries = Object.entries(p.content ?? {});
  return (
    <>
      {entries.map(([type, media]) => (
        <>
          {entries.length > 1 || type !== 'application/json' ? (
            <p class="media-type">
              <code>{type}</code>
            </p>
          ) : null}
          {(media as Json).schema ? <SchemaView schema={(media as Json).schema} doc={p.doc} link={p.link} /> : null}
          <Examples media={media as Json} label={p.exampleLabel} />
        </>
      ))}
    </>
  );
}

/**
 * The full section of one operation. Its anchor is `anchor`, else the operationId. A webhook event
 * (`pathLabel`: where it is sent) shows no authentication; `link` draws some `$ref`s as links.
 */
export function OperationView(props: {
  entry: OperationEntry;
  doc: Json;
  anchor?: string;
  pathLabel?: string;
  link?: (ref: string) => string | null;
}) {
  const { op, method, path } = props.entry;
  const id = String(props.anchor ?? op.operationId ?? `${method}-${path}`);
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody ? ((resolveRef(props.doc, String(op.requestBody.$ref ?? '')) ?? op.requestBody) as Json) : null;
  const responses = Object.entries((op.responses ?? {}) as Json).map(([status, r]) => ({
    status,
    r: (typeof (r as Json).$ref === 'string' ? (resolveRef(props.doc, (r as Json).$ref) ?? r) : r) as Json,
  }));
  const ok = responses.filter((x) => /^[123]/.test(x.status));
  const errors = responses.filter((x) => !/^[123]/.test(x.status));
  return (
    <section class="op" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <Title text={String(op.summary ?? id)} name={props.anchor} />
      </h2>
      <p class="op-line">
        <Method method={method} /> <PathCode path={props.pathLabel ?? fullPath(props.doc, path)} />
      </p>
      {op.description ? (
        <p>
          <Inline text={String(op.description)} />
        </p>
      ) : null}
      <dl class="op-facts">
        {op.operationId ? (
          <>
            <dt>Operation id</dt>
            <dd>
              <DottedCode name={String(op.operationId)} />
            </dd>
          </>
        ) : null}
        {!props.pathLabel && (op.security !== undefined || props.doc.security) ? (
          <>
            <dt>Authentication</dt>
            <dd>
              <Security op={op} doc={props.doc} />
            </dd>
          </>
        ) : null}
        {op['x-scope'] ? (
          <>
            <dt>Scope</dt>
            <dd>
              <code>{String(op['x-scope'])}</code>
            </dd>
          </>
        ) : null}
        {Array.isArray(op['x-callers']) ? (
          <>
            <dt>Callers</dt>
            <dd>
              {(op['x-callers'] as string[]).map((c, i) => (
                <>
                  {i ? ', ' : ''}
                  <code>{c}</code>
                </>
              ))}
            </dd>
          </>
        ) : null}
        {Array.isArray(op['x-roles']) ? (
          <>
            <dt>Roles</dt>
            <dd>
              {(op['x-roles'] as string[]).map((c, i) => (
                <>
                  {i ? ', ' : ''}
                  <code>{c}</code>
                </>
              ))}
            </dd>
          </>
        ) : null}
        {op['x-test-mode'] ? (
          <>
            <dt>Test mode</dt>
            <dd>
              <code>{String(op['x-test-mode'])}</code>
            </dd>
          </>
        ) : null}
        {op.deprecated ? (
          <>
            <dt>Deprecated</dt>
            <dd>Yes</dd>
          </>
        ) : null}
      </dl>
      {params.length ? (
        <>
          <h3>Parameters</h3>
          <ParameterList params={params} doc={props.doc} />
        </>
      ) : null}
      {body ? (
        <>
          <h3>Request body{body.required ? '' : ' (optional)'}</h3>
          {body.description ? (
            <p>
              <Inline text={String(body.description)} />
            </p>
          ) : null}
          <Body
            content={body.content}
            doc={props.doc}
            exampleLabel={props.pathLabel ? 'Example event' : 'Example request'}
            link={props.link}
          />
        </>
      ) : null}
      <h3>Responses</h3>
      {ok.map(({ status, r }) => (
        <div class="response">
          <h4>
            <span class="status">{status}</span> <Inline text={String(r.description ?? '')} />
          </h4>
          {r.headers ? (
            <p class="schema-note">
              Headers:{' '}
              {Object.keys(r.headers as Json).map((h, i) => (
                <>
                  {i ? ', ' : ''}
                  <code>{h}</code>
                </>
              ))}
            </p>
          ) : null}
          <Body content={r.content} doc={props.doc} exampleLabel="Example response" />
        </div>
      ))}
      {errors.length ? (
        <>
          {props.pathLabel ? (
            <p>Any other answer:</p>
          ) : (
            <p>
              Errors answer the <a href="/docs/errors">error envelope</a>:
            </p>
          )}
          <ul class="errors">
            {errors.map(({ status, r }) => (
              <li>
                <span class="status">{status}</span> <Inline text={String(r.description ?? '')} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
