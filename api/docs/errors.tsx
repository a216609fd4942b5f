/**
 * The error reference (spec 7): `GET /docs/errors`, an HTML page drawn from the
 * error registry (domain/error-codes.ts). It lists the error types (status, what to do, their
 * codes), then every code grouped by its usual type, each in an element `id="<code>"` so an error
 * envelope's `doc_url` (`<DOCS_BASE_URL>/errors#<code>`) lands on it: its statuses, when it
 * happens, what `param` names, its `details` members, `Retry-After`, and what to do.
 * Server-rendered, no script, escaped by preact; the words are in ./copy.ts. Public (no key).
 */
import type Router from '@koa/router';
import { errorCodesByType, RECOVERY_BY_TYPE, type ErrorCodeEntry } from '../../domain/error-codes';
import { STATUS_BY_TYPE, type ErrorType } from '../../domain/errors';
import { loadConfig } from '../../lib/config';
import type { AppState } from '../context';
import { sendPage } from '../pages/render';
import { Breakable } from './breakable';
import { ERRORS_COPY as C } from './copy';
import { DocsPage } from './frame';

/** The path of the page. */
export const ERROR_REFERENCE_PATH = '/docs/errors';

/** `text` with its backtick-quoted parts as `<code>`, long identifiers breakable between their parts. */
function Inline(p: { text: string }) {
  return (
    <>
      {p.text.split('`').map((part, i) =>
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

/** Anchor of a type's section: prefixed, since some codes are named like their type (`not_found`). */
const typeAnchor = (t: ErrorType) => `type-${t}`;

/** Statuses a type answers with: its default and those of its single-type codes. */
function typeStatuses(type: ErrorType, entries: readonly ErrorCodeEntry[]): number[] {
  const s = new Set<number>([STATUS_BY_TYPE[type]]);
  for (const e of entries) if (e.types.length === 1) e.statuses.forEach((x) => s.add(x));
  return [...s].sort((a, b) => a - b);
}

/** The types' table; it scrolls sideways inside its own box on a phone (focusable: keyboard scrolling). */
function TypesTable(p: { groups: ReturnType<typeof errorCodesByType> }) {
  return (
    <table tabIndex={0}>
      <thead>
        <tr>
          <th scope="col">{C.typeColumn}</th>
          <th scope="col">{C.statusColumn}</th>
          <th scope="col">{C.recoveryColumn}</th>
          <th scope="col">{C.codesColumn}</th>
        </tr>
      </thead>
      <tbody>
        {p.groups.map((g) => (
          <tr>
            <th scope="row">
              <a href={`#${typeAnchor(g.type)}`}>
                <code>{g.type}</code>
              </a>
            </th>
            <td>{typeStatuses(g.type, g.entries).join(' / ')}</td>
            <td>
              <Inline text={RECOVERY_BY_TYPE[g.type]} />
            </td>
            <td>{g.entries.length}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One code's entry: the element `doc_url` points at. */
function CodeEntry(p: { e: ErrorCodeEntry }) {
  const e = p.e;
  const others = e.types.slice(1);
  return (
    <section id={e.code} class="error-code" aria-labelledby={`${e.code}-title`}>
      <h3 id={`${e.code}-title`}>
        <a href={`#${e.code}`}>
          <code>
            <Breakable text={e.code} code />
          </code>
        </a>
      </h3>
      {e.surface === 'simulator' ? (
        <p class="muted">
          <Inline text={C.simulatorOnly} />
        </p>
      ) : null}
      {e.reserved ? (
        <p class="muted">
          <Inline text={C.reserved} />
        </p>
      ) : null}
      <dl>
        <dt>{C.statusLabel}</dt>
        <dd>{e.statuses.join(' / ')}</dd>
        <dt>{C.typeLabel}</dt>
        <dd>
          <code>{e.types[0]}</code>
          {others.length ? (
            <>
              {C.alsoTypes}
              {others.map((t, i) => (
                <>
                  {i ? ', ' : ''}
                  <a href={`#${typeAnchor(t)}`}>
                    <code>{t}</code>
                  </a>
                </>
              ))}
            </>
          ) : null}
        </dd>
        <dt>{C.whenLabel}</dt>
        <dd>
          <Inline text={e.when} />
        </dd>
        {e.param ? (
          <>
            <dt>
              <Inline text={C.paramLabel} />
            </dt>
            <dd>
              <Inline text={e.param} />
            </dd>
          </>
        ) : null}
        {e.details ? (
          <>
            <dt>
              <Inline text={C.detailsLabel} />
            </dt>
            <dd>
              <ul>
                {Object.entries(e.details).map(([k, v]) => (
                  <li>
                    <code>{k}</code>: <Inline text={v} />
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        {e.retryAfter ? (
          <>
            <dt>
              <Inline text={C.retryAfterLabel} />
            </dt>
            <dd>{C.retryAfterValue}</dd>
          </>
        ) : null}
        <dt>{C.recoveryLabel}</dt>
        <dd>
          <Inline text={e.recovery} />
        </dd>
      </dl>
    </section>
  );
}

/** The whole page's content (inside the docs frame). */
export function ErrorReference() {
  const groups = errorCodesByType();
  const total = groups.reduce((n, g) => n + g.entries.length, 0);
  return (
    <article class="guide error-reference">
      <h1 id="top">{C.title}</h1>
      <p>
        <Inline text={C.lead} />
      </p>
      <ul>
        {C.rules.map((r) => (
          <li>
            <Inline text={r} />
          </li>
        ))}
      </ul>
      <h2 id="types">{C.typesHeading}</h2>
      <p>{C.typesIntro}</p>
      <TypesTable groups={groups} />
      <h2 id="codes">{C.codesHeading(total)}</h2>
      {groups.map((g) => (
        <section id={typeAnchor(g.type)} aria-labelledby={`${typeAnchor(g.type)}-title`}>
          <h2 id={`${typeAnchor(g.type)}-title`}>
            <code>{g.type}</code> ({typeStatuses(g.type, g.entries).join(' / ')})
          </h2>
          <p>
            <Inline text={RECOVERY_BY_TYPE[g.type]} />
          </p>
          {g.entries.map((e) => (
            <CodeEntry e={e} />
          ))}
          <p>
            <a href="#types">{C.backToTop}</a>
          </p>
        </section>
      ))}
    </article>
  );
}

/**
 * Mounts `GET /docs/errors` on `r` (the docs router, api/docs/index.ts). `opts.simulator` only
 * shows the simulator in the docs navigation; default: the process's SIMULATOR_ENABLED.
 */
export function mountErrorReference(router: Router<AppState>, opts: { simulator?: boolean } = {}): void {
  router.get(ERROR_REFERENCE_PATH, (ctx) => {
    const simulator = opts.simulator ?? loadConfig().simulatorEnabled;
    sendPage(
      ctx,
      <DocsPage ctx={ctx} title={C.title} current={ERROR_REFERENCE_PATH} simulator={simulator}>
        <ErrorReference />
      </DocsPage>,
    );
  });
}
