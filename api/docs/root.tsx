/**
 * The root of the API: `GET /` says where the documentation is. A small HTML page by
 * default (a person opening the API's address in a browser); JSON when the client prefers
 * `application/json`: `{ object: "api_root", name, links: { <rel>: <path> } }` (rels of
 * api/docs/frame.tsx `docsLinks`; the simulator's only with the simulator on).
 */
import type Router from '@koa/router';
import type { AppState } from '../context';
import { sendPage } from '../pages/render';
import { DocsPage, docsLinks } from './frame';

const NAME = 'Payments Platform API';

/** Mounts `GET /`. */
export function mountRoot(router: Router<AppState>, opts: { simulator: boolean }): void {
  router.get('/', (ctx) => {
    const links = docsLinks(opts.simulator);
    ctx.vary('Accept');
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.type = 'application/json';
      ctx.body = { object: 'api_root', name: NAME, links: Object.fromEntries(links.map((l) => [l.rel, l.href])) };
      return;
    }
    sendPage(
      ctx,
      <DocsPage ctx={ctx} title="Documentation" current="/" simulator={opts.simulator}>
        <h1>{NAME}</h1>
        <p>
          The REST API lives under <code>/v1</code>; every request but the public ones carries a business key. Start here:
        </p>
        <ul class="api-links">
          {links.map((l) => (
            <li>
              <a href={l.href}>{l.title}</a> <span class="muted">{l.description}</span>
            </li>
          ))}
        </ul>
      </DocsPage>,
    );
  });
}
