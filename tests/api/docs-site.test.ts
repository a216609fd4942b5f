/**
 * The docs the product serves (api/docs/, issue 23 part 1) over HTTP against the shared stack:
 * - `GET /docs`, `GET /docs/reference/<tag>`, `GET /docs/webhooks` and `GET /sim/docs`: server-rendered
 *   HTML (every operation of the served documents in the page itself), whose every stylesheet and
 *   script is a same-origin URL carrying the response's CSP nonce; the docs' asset answers 200 with
 *   its content type (gzipped when asked), nothing else is reachable under /docs/assets/; the CSP
 *   names no other origin.
 * - `GET /`: an HTML page and, for `Accept: application/json`, JSON, both linking the docs.
 * - `GET /docs/guides[/<name>]`: the repository's `docs/guides/*.md` listed by first heading and
 *   rendered; raw HTML in a guide is text (a fixture rendered in-process, and over HTTP through a
 *   temporary guide only when the folder holds none).
 */
import fs from 'node:fs';
import path from 'node:path';
import { renderToString } from 'preact-render-to-string';
import { API } from '../helpers/api';
import { rawRequest } from '../helpers/raw-http';
import { renderMarkdown } from '../../api/docs/markdown';
import { documentOfThisBuild } from '../../api/openapi-cli';

interface Page {
  status: number;
  html: string;
  headers: Headers;
}

async function get(p: string, headers: Record<string, string> = {}): Promise<Page> {
  const r = await fetch(`${API()}${p}`, { headers: { 'accept-language': 'en-US', ...headers }, redirect: 'manual' });
  return { status: r.status, html: await r.text(), headers: r.headers };
}

/** Every stylesheet `<link href>` and `<script src>` of a page, with the tag's nonce. */
function resources(html: string): { tag: string; url: string; nonce: string | null }[] {
  const out: { tag: string; url: string; nonce: string | null }[] = [];
  for (const m of html.matchAll(/<(link|script)\b[^>]*>/g)) {
    if (m[1] === 'link' && !/\srel="stylesheet"/.test(m[0])) continue;
    const url = /\s(?:href|src)="([^"]*)"/.exec(m[0])?.[1];
    if (url === undefined) continue;
    out.push({ tag: m[1], url: url.replace(/&amp;/g, '&'), nonce: /\snonce="([^"]*)"/.exec(m[0])?.[1] ?? null });
  }
  return out;
}

/** The CSP's origins: every source expression that is a scheme or host (not a keyword, nonce, `'self'`, `data:`). */
function foreignSources(csp: string): string[] {
  return csp
    .split(';')
    .flatMap((d) => d.trim().split(/\s+/).slice(1))
    .filter((s) => !/^'/.test(s) && s !== 'data:');
}

const guidesDir = path.resolve(__dirname, '../../docs/guides');

/** Text of escaped HTML (preact escapes `&`, `<`, `"`). */
const decode = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
/** A Markdown heading's text: links to their text, code and emphasis marks dropped. */
const plain = (md: string) =>
  md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](.+?)[*_](?=\W|$)/g, '$1$2')
    .replace(/\\(.)/g, '$1')
    .trim();

describe('API reference', () => {
  test('GET /docs: server-rendered HTML listing every operation by its summary; same-origin stylesheets with the nonce; a strict CSP', async () => {
    const r = await get('/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    // The icon is inline (`data:,`): no request for /favicon.ico, no other link.
    expect([...r.html.matchAll(/<link\b[^>]*>/g)].filter((m) => !/\srel="stylesheet"/.test(m[0])).map((m) => m[0])).toEqual([
      '<link rel="icon" href="data:,"/>',
    ]);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline/);
    expect(foreignSources(csp)).toEqual([]);
    const res = resources(r.html);
    expect(res.map((x) => x.url.replace(/\?v=[0-9a-f]+$/, '')).sort()).toEqual([
      '/assets/pages.css',
      '/assets/pages.js',
      '/docs/assets/docs.css',
    ]);
    for (const x of res) {
      expect(x.url).toMatch(/^\/(?!\/)/); // a path on this origin, never `//host` or `https://`
      expect(x.nonce).not.toBeNull();
      expect(csp).toContain(`'nonce-${x.nonce}'`);
    }
    // No inline script: every <script> has a src.
    expect((r.html.match(/<script\b/g) ?? []).length).toBe(res.filter((x) => x.tag === 'script').length);
    // Every operation of the served document is in the HTML itself, by its summary, linking its section.
    const doc = (await (await fetch(`${API()}/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; summary: string; tags: string[] }>>;
    };
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const op of Object.values(doc.paths).flatMap((p) => Object.values(p))) {
      const href = `/docs/reference/${op.tags[0]}#${op.operationId}`;
      expect([op.operationId, r.html.includes(`href="${href}"`)]).toEqual([op.operationId, true]);
    }
    expect(r.html).toContain('href="/v1/openapi.json"');
  });

  test("GET /docs/reference/<tag> draws each operation of the area (its id the anchor); an unknown area is the pages' 404", async () => {
    const r = await get('/docs/reference/payment_links');
    expect(r.status).toBe(200);
    expect(r.html).toContain('<section class="op" id="payment_links.create"');
    expect(r.html).toContain('Create a draft payment link');
    for (const p of ['/docs/reference/no_such_area', '/docs/reference/..%2Fguides']) {
      const x = await get(p);
      expect([p, x.status]).toEqual([p, 404]);
      expect(x.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect((await get('/docs/webhooks')).status).toBe(200);
  });

  test('the served document is the offline one: every operation the server serves, the public routers included (issue 25)', async () => {
    const served = (await (await fetch(`${API()}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const offline = documentOfThisBuild() as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = (d: typeof served) =>
      Object.values(d.paths)
        .flatMap((p) => Object.values(p).map((o) => o.operationId))
        .sort();
    expect(ids(offline)).toEqual(ids(served));
    expect(ids(offline)).toEqual(
      expect.arrayContaining([
        'eligibility.get',
        'payroll_recipient_sessions.get',
        'payroll_recipient_sessions.destination',
        'payment_sessions.get',
      ]),
    );
    expect(JSON.stringify(offline.paths)).toBe(JSON.stringify(served.paths));
  });

  test('the docs assets answer 200 with their content types, versioned and cached; gzip when accepted; nothing else is served', async () => {
    const page = await get('/docs');
    const own = resources(page.html).filter((x) => x.url.startsWith('/docs/assets/'));
    expect(own.length).toBe(1);
    for (const { url } of own) {
      const r = await fetch(`${API()}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      const body = await r.text(); // fetch decodes the gzip
      expect([url, r.status]).toEqual([url, 200]);
      expect(r.headers.get('content-type')).toBe(url.includes('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(r.headers.get('content-encoding')).toBe('gzip');
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(body.length).toBeGreaterThan(100);
      // Unversioned: revalidated; the same bytes without gzip when not accepted.
      const bare = await fetch(`${API()}${url.replace(/\?v=.*$/, '')}`, { headers: { 'accept-encoding': 'identity' } });
      expect(bare.headers.get('cache-control')).toBe('no-cache');
      expect(bare.headers.get('content-encoding')).toBeNull();
      expect(await bare.text()).toBe(body);
      // The ETag answers 304 (raw HTTP: fetch adds `Cache-Control: no-cache` to a conditional request).
      const again = await rawRequest('GET', url, { 'if-none-match': r.headers.get('etag')! });
      expect([url, again.status]).toEqual([url, 304]);
    }
    for (const p of [
      '/docs/assets/package.json',
      '/docs/assets/index.html',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/..%2F..%2Fpackage.json',
      '/docs/assets/reference.js',
    ]) {
      const r = await get(p);
      expect([p, r.status]).toEqual([p, 404]);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  test("GET /sim/docs draws the simulator's document (simulator on in the test stack)", async () => {
    const r = await get('/sim/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const doc = (await (await fetch(`${API()}/sim/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    for (const op of Object.values(doc.paths).flatMap((p) => Object.values(p)))
      expect([op.operationId, r.html.includes(`id="${op.operationId}"`)]).toEqual([op.operationId, true]);
    for (const { url } of resources(r.html)) expect(url).toMatch(/^\/(docs\/)?assets\//);
  });

  test('the docs are public and GET only: no key needed, other methods 405 with Allow', async () => {
    for (const p of ['/', '/docs', '/docs/guides', '/sim/docs']) {
      const r = await fetch(`${API()}${p}`, { method: 'POST' });
      expect([p, r.status]).toEqual([p, 405]);
      expect(r.headers.get('allow')).toContain('GET');
    }
  });
});

describe('the root', () => {
  const wanted = ['/docs', '/docs/guides', '/docs/errors', '/v1/openapi.json', '/sim/docs', '/sim/openapi.json'];

  test('GET / is an HTML page linking every doc', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const hrefs = [...r.html.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((m) => m[1]);
    for (const w of wanted) expect(hrefs).toContain(w);
    // Every link answers (the error reference included: api/docs/errors.tsx, mounted by the docs router).
    for (const href of new Set(hrefs)) {
      const l = await fetch(`${API()}${href}`);
      expect([href, l.status]).toEqual([href, 200]);
    }
    expect(r.headers.get('content-security-policy')).toContain("'nonce-");
    expect(r.headers.get('vary')).toMatch(/accept/i);
  });

  test('GET / with Accept: application/json answers the same links as JSON', async () => {
    const r = await get('/', { accept: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(r.html) as { object: string; links: Record<string, string> };
    expect(body.object).toBe('api_root');
    expect(body.links).toEqual({
      reference: '/docs',
      guides: '/docs/guides',
      errors: '/docs/errors',
      openapi: '/v1/openapi.json',
      simulator_reference: '/sim/docs',
      simulator_openapi: '/sim/openapi.json',
    });
  });
});

describe('guides', () => {
  const RAW = '<script>alert("guide")</script>';
  const FIXTURE = `# Temporary guide of docs-site.test\n\nA first paragraph with ${RAW} and <img src=x onerror=alert(1)>.\n\n<div onclick="alert(2)">raw block</div>\n\n[bad](javascript:alert(3)) and [a sibling](./other-guide.md#part)\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n\`\`\`bash\ncurl /v1/payment_links\n\`\`\`\n`;
  let temporary: string | null = null;

  beforeAll(() => {
    const existing = fs.existsSync(guidesDir) ? fs.readdirSync(guidesDir).filter((f) => f.endsWith('.md')) : [];
    if (existing.length === 0) {
      fs.mkdirSync(guidesDir, { recursive: true });
      temporary = path.join(guidesDir, 'zz-docs-site-test.md');
      fs.writeFileSync(temporary, FIXTURE);
    }
  });
  afterAll(() => {
    if (temporary) {
      fs.rmSync(temporary, { force: true });
      try {
        fs.rmdirSync(guidesDir);
      } catch {
        /* other guides arrived meanwhile: keep the folder */
      }
    }
  });

  /** The guides on disk with their first heading (`# Title`, outside code fences), as the index must show them. */
  function onDisk(): { name: string; title: string }[] {
    return fs
      .readdirSync(guidesDir)
      .filter((f) => /^[A-Za-z0-9][A-Za-z0-9_-]*\.md$/.test(f))
      .sort()
      .map((f) => {
        const text = fs.readFileSync(path.join(guidesDir, f), 'utf8').replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
        const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1];
        return { name: f.slice(0, -3), title: heading ?? f.slice(0, -3) };
      });
  }

  test('GET /docs/guides lists every guide by its first heading, linking its page', async () => {
    const r = await get('/docs/guides');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const guides = onDisk();
    expect(guides.length).toBeGreaterThan(0);
    for (const g of guides) {
      const link = new RegExp(`<a href="/docs/guides/${g.name}">([^<]*)</a>`).exec(r.html);
      expect([g.name, link && decode(link[1])]).toEqual([g.name, plain(g.title)]);
    }
    // Inside the pages' Layout: one h1, the pages' stylesheet and the docs' (both same-origin, with the nonce).
    expect((r.html.match(/<h1[\s>]/g) ?? []).length).toBe(1);
    expect(resources(r.html).map((x) => x.url.replace(/\?v=.*$/, ''))).toEqual(
      expect.arrayContaining(['/assets/pages.css', '/docs/assets/docs.css']),
    );
  });

  test("every guide renders; no script but the pages' own, and raw HTML is text", async () => {
    for (const g of onDisk()) {
      const r = await get(`/docs/guides/${g.name}`);
      expect([g.name, r.status]).toEqual([g.name, 200]);
      expect(r.html).toContain('<article class="guide">');
      const scripts = [...r.html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBe(1);
      expect(scripts[0]).toMatch(/src="\/assets\/pages\.js\?v=[0-9a-f]+" nonce="[^"]+"/);
      expect(r.html).not.toMatch(/\son[a-z]+=/i);
      expect(r.html).not.toMatch(/href="javascript:/i);
    }
    if (temporary) {
      const r = await get('/docs/guides/zz-docs-site-test');
      expect(r.html).toContain('&lt;script>alert(&quot;guide&quot;)&lt;/script>');
      expect(r.html).toContain('&lt;div onclick=&quot;alert(2)&quot;>raw block&lt;/div>');
      expect(r.html).toContain('<a href="/docs/guides/other-guide#part">a sibling</a>');
    }
  });

  test('raw HTML in Markdown is escaped, javascript: links are not links, alignment is a class (the renderer the guides use)', () => {
    const { title, lead, body } = renderMarkdown(FIXTURE);
    expect(title).toBe('Temporary guide of docs-site.test');
    expect(lead).toContain(RAW);
    // Long runs of text are drawn in pieces that wrap on a phone (api/docs/breakable.tsx): read the text whole.
    const html = renderToString(body).replace(/<wbr\/>|<\/?span[^>]*>/g, '');
    expect(html).not.toMatch(/<script|<div|<img/);
    expect(html).toContain('&lt;script>alert(&quot;guide&quot;)&lt;/script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)>');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('[bad](javascript:alert(3))');
    expect(html).toContain('<a href="/docs/guides/other-guide#part">a sibling</a>');
    expect(html).toContain('<th class="align-right">b</th>');
    expect(html).not.toContain('style=');
    expect(html).toContain('<pre tabindex="0"><code class="language-bash">curl /v1/payment_links\n</code></pre>');
    expect(html).toContain('<h1 id="temporary-guide-of-docs-sitetest">');
  });

  test("an unknown or malformed guide name is the pages' 404", async () => {
    for (const p of ['/docs/guides/no-such-guide', '/docs/guides/..%2F..%2FREADME', '/docs/guides/.hidden', '/docs/guides/README.md']) {
      const r = await get(p);
      expect([p, r.status]).toEqual([p, 404]);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });
});
