/**
 * The guides: the repository's `docs/guides/*.md`, rendered to HTML inside the pages'
 * Layout (api/docs/markdown.tsx: markdown-it, raw HTML off, escaped by preact).
 * - `GET /docs/guides`: the index, one entry per file, titled by its first heading (the file name
 *   when it has none), in file-name order (a numeric prefix orders them);
 * - `GET /docs/guides/<name>`: the guide `docs/guides/<name>.md`; any other name is the pages' 404.
 * Files are read when asked for (a guide edited or added shows without a restart); a rendering is
 * reused while the file's size and modification time stay the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { AppState } from '../context';
import { sendNotFound, sendPage } from '../pages/render';
import { Breakable } from './breakable';
import { DocsPage } from './frame';
import { renderMarkdown, summarizeMarkdown, type RenderedMarkdown } from './markdown';

/** A guide's file name without `.md`; anything else (dots, slashes, a leading dash) is never a guide. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * The guides' folder, `docs/guides/` at the repository's root: two levels above this file in the
 * sources (api/docs/), three from dist/ (dist/api/docs/), told apart by the root's package.json.
 */
export function guidesDir(): string {
  const fromSources = path.resolve(__dirname, '../..');
  const root = fs.existsSync(path.join(fromSources, 'package.json')) ? fromSources : path.resolve(__dirname, '../../..');
  return path.join(root, 'docs', 'guides');
}

/** How much of a guide's first paragraph the index shows. */
const LEAD_CHARS = 200;

/** `text` cut at a word boundary to at most `max` characters, with an ellipsis when cut. */
function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** One guide of the index. */
export interface GuideEntry {
  name: string;
  title: string;
  lead: string | null;
}

const rendered = new Map<string, { stamp: string; page: RenderedMarkdown }>();

function stampOf(file: string): string | null {
  try {
    const s = fs.statSync(file);
    return s.isFile() ? `${s.size}:${s.mtimeMs}` : null;
  } catch {
    return null;
  }
}

/** The guide `name` rendered, or null when no such file exists. */
function loadGuide(name: string): RenderedMarkdown | null {
  if (!NAME.test(name)) return null;
  const file = path.join(guidesDir(), `${name}.md`);
  const stamp = stampOf(file);
  if (!stamp) return null;
  const hit = rendered.get(name);
  if (hit && hit.stamp === stamp) return hit.page;
  const page = renderMarkdown(fs.readFileSync(file, 'utf8'));
  rendered.set(name, { stamp, page });
  return page;
}

/** Every guide in `docs/guides/` (none when the folder does not exist), in file-name order. */
export function listGuides(): GuideEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync(guidesDir());
  } catch {
    return [];
  }
  return names
    .filter((f) => f.endsWith('.md') && NAME.test(f.slice(0, -3)))
    .sort()
    .flatMap((f) => {
      const name = f.slice(0, -3);
      const file = path.join(guidesDir(), f);
      if (!stampOf(file)) return [];
      const s = summarizeMarkdown(fs.readFileSync(file, 'utf8'));
      return [{ name, title: s.title ?? name, lead: s.lead && shorten(s.lead, LEAD_CHARS) }];
    });
}

/** Mounts `GET /docs/guides` and `GET /docs/guides/:name`. */
export function mountGuides(router: Router<AppState>, opts: { simulator: boolean }): void {
  router.get('/docs/guides', (ctx) => {
    const guides = listGuides();
    sendPage(
      ctx,
      <DocsPage ctx={ctx} title="Guides" current="/docs/guides" simulator={opts.simulator}>
        <h1>Guides</h1>
        {guides.length === 0 ? (
          <p class="muted">
            No guides yet. The <a href="/docs">API reference</a> describes every operation.
          </p>
        ) : (
          <ul class="guide-list">
            {guides.map((g) => (
              <li>
                <a href={`/docs/guides/${g.name}`}>{g.title}</a>
                {g.lead ? (
                  <p class="muted">
                    <Breakable text={g.lead} />
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </DocsPage>,
    );
  });

  router.get('/docs/guides/:name', (ctx) => {
    const guide = loadGuide(ctx.params.name);
    if (!guide) return sendNotFound(ctx);
    sendPage(
      ctx,
      <DocsPage ctx={ctx} title={guide.title ?? ctx.params.name} current="/docs/guides" simulator={opts.simulator}>
        {guide.body}
      </DocsPage>,
    );
  });
}
