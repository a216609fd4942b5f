/**
 * The API references (docs/decisions/0093), server-rendered inside the
 * docs' frame (api/docs/frame.tsx: the same header, navigation and typography as the guides and the
 * error reference), no script, from the served documents themselves:
 * - `GET /docs`: the /v1 reference's index: the version a client pins, the base path, how to
 *   authenticate, then every area (the document's tags) with each operation's method, path and
 *   one-line summary, and the webhook events; each links to its section;
 * - `GET /docs/reference/<tag>`: every operation of one area in full (api/docs/operation-view.tsx):
 *   parameters, request body, answers, errors; an operation's section is `#<operationId>`;
 * - `GET /docs/webhooks`: every event the document's top-level `webhooks` names, with its envelope;
 * - `GET /sim/docs` (simulator on only): the simulator's document on one page, its description
 *   (the sandbox's values table) rendered as Markdown.
 * The pages are HTML from the first byte: the first operation shows without waiting for a script
 * or for the 1.3 MB JSON document (bench/docs.ts measures it).
 */
import type Router from '@koa/router';
import type { ComponentChildren } from 'preact';
import { loadConfig } from '../../lib/config';
import type { AppState } from '../context';
import { openApiDocument } from '../openapi';
import { sendNotFound, sendPage } from '../pages/render';
import { buildSimOpenApi } from '../sim-openapi';
import { Breakable } from './breakable';
import { DocsPage } from './frame';
import { renderMarkdownFragment } from './markdown';
import { DottedCode, METHODS, OperationRow, OperationView, operationsOf, type OperationEntry } from './operation-view';
import { Inline, SchemaView, type Json } from './schema-view';

/** The path of the /v1 reference's index. */
export const REFERENCE_PATH = '/docs';
/** The path of one area's page. */
export const areaPath = (tag: string) => `/docs/reference/${encodeURIComponent(tag)}`;
/** The path of the webhooks' page. */
export const WEBHOOKS_PATH = '/docs/webhooks';
/** The path of the simulator's reference. */
export const SIM_REFERENCE_PATH = '/sim/docs';

/** A tag as a heading: `payment_links` -> `Payment links`, `api_keys` -> `API keys`. */
export function areaTitle(tag: string): string {
  const words = tag.split('_').map((w) => (w === 'api' ? 'API' : w));
  const first = words[0] ?? tag;
  return [first === 'API' ? first : first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/** The operations of `doc` grouped by their first tag, in the order of the document's `tags`. */
export function operationsByTag(doc: Json): { tag: string; description: string; entries: OperationEntry[] }[] {
  const groups = new Map<string, OperationEntry[]>();
  for (const e of operationsOf(doc.paths)) {
    const tag = String((e.op.tags as string[] | undefined)?.[0] ?? 'other');
    groups.set(tag, [...(groups.get(tag) ?? []), e]);
  }
  const declared = ((doc.tags ?? []) as Json[]).map((t) => String(t.name));
  const order = [...declared.filter((t) => groups.has(t)), ...[...groups.keys()].filter((t) => !declared.includes(t)).sort()];
  const descriptionOf = (t: string) => String(((doc.tags ?? []) as Json[]).find((x) => x.name === t)?.description ?? '');
  return order.map((tag) => ({ tag, description: descriptionOf(tag), entries: groups.get(tag)! }));
}

/** The facts at the top of a reference: version, base path, the document itself. */
function Facts(p: { doc: Json; documentUrl: string }) {
  const base = String((p.doc.servers as Json[] | undefined)?.[0]?.url ?? '/');
  const schemes = Object.entries((p.doc.components?.securitySchemes ?? {}) as Json);
  return (
    <dl class="ref-facts">
      <dt>Version</dt>
      <dd>
        <code class="version">{String(p.doc.info?.version ?? '')}</code>
      </dd>
      <dt>Base path</dt>
      <dd>
        <code>{base}</code>
      </dd>
      {schemes.length ? (
        <>
          <dt>Authentication</dt>
          <dd>
            <ul>
              {schemes.map(([name, s]) => (
                <li>
                  <code>
                    {(s as Json).type === 'apiKey'
                      ? String((s as Json).name)
                      : `Authorization: ${String((s as Json).scheme ?? name).replace(/^bearer$/, 'Bearer')} ...`}
                  </code>
                  : <Inline text={String((s as Json).description ?? name)} />
                </li>
              ))}
            </ul>
          </dd>
        </>
      ) : null}
      <dt>OpenAPI document</dt>
      <dd>
        <a href={p.documentUrl}>
          <Breakable text={p.documentUrl} />
        </a>{' '}
        (OpenAPI {String(p.doc.openapi ?? '')}, for code generators and tools)
      </dd>
    </dl>
  );
}

/** The index of `/docs`: facts, then every area's operations by their summary, then the webhook events. */
function ReferenceIndex(p: { doc: Json }) {
  const groups = operationsByTag(p.doc);
  const events = Object.entries((p.doc.webhooks ?? {}) as Json);
  const count = groups.reduce((n, g) => n + g.entries.length, 0);
  return (
    <article class="reference">
      <h1>API reference</h1>
      {p.doc.info?.description ? <div class="ref-lead">{renderMarkdownFragment(String(p.doc.info.description))}</div> : null}
      <Facts doc={p.doc} documentUrl="/v1/openapi.json" />
      <nav class="ref-areas" aria-label="Areas">
        <h2 id="areas">Areas</h2>
        <ul>
          {groups.map((g) => (
            <li>
              <a href={`#area-${g.tag}`}>{areaTitle(g.tag)}</a>
            </li>
          ))}
          {events.length ? (
            <li>
              <a href="#webhooks">Webhook events</a>
            </li>
          ) : null}
        </ul>
      </nav>
      <h2 id="operations">Operations ({count})</h2>
      {groups.map((g) => (
        <section id={`area-${g.tag}`} aria-labelledby={`area-${g.tag}-title`}>
          <h3 id={`area-${g.tag}-title`}>
            <a href={areaPath(g.tag)}>{areaTitle(g.tag)}</a>
          </h3>
          <ul class="op-list">
            {g.entries.map((e) => (
              <OperationRow entry={e} doc={p.doc} href={`${areaPath(g.tag)}#${String(e.op.operationId)}`} />
            ))}
          </ul>
        </section>
      ))}
      {events.length ? (
        <section id="webhooks" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">
            <a href={WEBHOOKS_PATH}>Webhook events ({events.length})</a>
          </h2>
          <p>What the service POSTs to your webhook endpoints, one event type each.</p>
          <ul class="op-list events">
            {events.map(([name]) => (
              <li>
                <a href={`${WEBHOOKS_PATH}#${name}`}>
                  <DottedCode name={name} />
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  );
}

/** One area's page: its contents, then every operation in full. */
function AreaPage(p: { doc: Json; tag: string; description: string; entries: OperationEntry[] }) {
  return (
    <article class="reference">
      <p class="crumbs">
        <a href={REFERENCE_PATH}>API reference</a> / {areaTitle(p.tag)}
      </p>
      <h1>{areaTitle(p.tag)}</h1>
      {p.description ? (
        <p>
          <Inline text={p.description} />
        </p>
      ) : null}
      <ul class="op-list">
        {p.entries.map((e) => (
          <OperationRow entry={e} doc={p.doc} href={`#${String(e.op.operationId)}`} />
        ))}
      </ul>
      {p.entries.map((e) => (
        <OperationView entry={e} doc={p.doc} />
      ))}
    </article>
  );
}

/**
 * The webhooks' page: every event with its envelope; the objects events carry (the document's
 * component schemas, but the error envelope) are drawn once at the end and linked from each event.
 */
function WebhooksPage(p: { doc: Json }) {
  const objects = Object.entries((p.doc.components?.schemas ?? {}) as Json).filter(([name]) => name !== 'ErrorEnvelope');
  const drawn = new Set(objects.map(([name]) => `#/components/schemas/${name}`));
  const link = (ref: string) => (drawn.has(ref) ? `#schema-${ref.split('/').pop()}` : null);
  const entries = Object.entries((p.doc.webhooks ?? {}) as Json).flatMap(([name, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ name, entry: { method, path: name, op: (item as Json)[method] as Json } })),
  );
  return (
    <article class="reference">
      <p class="crumbs">
        <a href={REFERENCE_PATH}>API reference</a> / Webhook events
      </p>
      <h1>Webhook events</h1>
      <p>
        The service sends each event as a <code>POST</code> to every enabled webhook endpoint subscribed to its type (or to every type),
        signed with the endpoint's secret. Answer any 2xx to acknowledge it.
      </p>
      <ul class="op-list events">
        {entries.map((x) => (
          <li>
            <a href={`#${x.name}`}>
              <DottedCode name={x.name} />
            </a>
          </li>
        ))}
      </ul>
      {entries.map((x) => (
        <OperationView entry={x.entry} doc={p.doc} anchor={x.name} pathLabel="your endpoint's url" link={link} />
      ))}
      <h2 id="objects">Event objects</h2>
      <p>
        The <code>data.object</code> of the events, each drawn once.
      </p>
      {objects.map(([name, schema]) => (
        <section class="op" id={`schema-${name}`} aria-labelledby={`schema-${name}-title`}>
          <h3 id={`schema-${name}-title`}>
            <Breakable text={name} />
          </h3>
          <SchemaView schema={schema as Json} doc={p.doc} />
        </section>
      ))}
    </article>
  );
}

/** The simulator's reference on one page. */
function SimulatorPage(p: { doc: Json }) {
  const entries = operationsOf(p.doc.paths);
  return (
    <article class="reference">
      <h1>Simulator reference</h1>
      {p.doc.info?.description ? <div class="ref-lead guide">{renderMarkdownFragment(String(p.doc.info.description))}</div> : null}
      <Facts doc={p.doc} documentUrl="/sim/openapi.json" />
      <h2 id="operations">Routes ({entries.length})</h2>
      <ul class="op-list">
        {entries.map((e) => (
          <OperationRow entry={e} doc={p.doc} href={`#${String(e.op.operationId)}`} />
        ))}
      </ul>
      {entries.map((e) => (
        <OperationView entry={e} doc={p.doc} />
      ))}
    </article>
  );
}

/** The /v1 document as JSON (the same object `GET /v1/openapi.json` answers). */
const v1Document = () => openApiDocument() as Json;

let simDoc: Json | null = null;
/** The simulator's document, built once (it depends only on the code). */
const simDocument = () => (simDoc ??= buildSimOpenApi() as Json);

/** The page around a reference's content (the docs' frame; `current` marks the navigation). */
function page(ctx: Parameters<typeof sendPage>[0], title: string, current: string, simulator: boolean, body: ComponentChildren) {
  sendPage(
    ctx,
    <DocsPage ctx={ctx} title={title} current={current} simulator={simulator}>
      {body}
    </DocsPage>,
  );
}

/** Mounts `GET /docs`, `GET /docs/reference/:tag`, `GET /docs/webhooks` and, with the simulator on, `GET /sim/docs`. */
export function mountReferences(router: Router<AppState>, opts: { simulator?: boolean } = {}): void {
  const simulator = () => opts.simulator ?? loadConfig().simulatorEnabled;
  router.get(REFERENCE_PATH, (ctx) => page(ctx, 'API reference', REFERENCE_PATH, simulator(), <ReferenceIndex doc={v1Document()} />));
  router.get('/docs/reference/:tag', (ctx) => {
    const doc = v1Document();
    const group = operationsByTag(doc).find((g) => g.tag === ctx.params.tag);
    if (!group) return sendNotFound(ctx);
    page(ctx, `${areaTitle(group.tag)} · API reference`, REFERENCE_PATH, simulator(), <AreaPage doc={doc} {...group} />);
  });
  router.get(WEBHOOKS_PATH, (ctx) =>
    page(ctx, 'Webhook events · API reference', REFERENCE_PATH, simulator(), <WebhooksPage doc={v1Document()} />),
  );
  if (opts.simulator)
    router.get(SIM_REFERENCE_PATH, (ctx) =>
      page(ctx, 'Simulator reference', SIM_REFERENCE_PATH, true, <SimulatorPage doc={simDocument()} />),
    );
}
