/**
 * The docs in a real browser (api/docs/; issue 23, issue 38 points 5 and 6; tests/api/docs-site.test.ts
 * covers the same pages over plain HTTP):
 * - `/docs` lists every operation of the served `/v1/openapi.json` by its one-line summary, with the
 *   version a client pins and no licence, in the HTML the server sends: it shows with JavaScript off,
 *   so its first render waits for no script and no JSON document (bench/docs.ts prints the time);
 * - an area's page (`/docs/reference/<tag>`) draws each operation in full, the link of its row lands
 *   on it; `/docs/webhooks` every event; `/sim/docs` every simulator route with the examples of its
 *   request and answer, the sandbox values' table scrolling inside its own box;
 * - one look: `/docs`, `/docs/errors`, `/docs/guides` and `/sim/docs` share the header, the
 *   navigation and the typography;
 * - every docs page at 360, 390 and 1280 px: no sideways scroll, no word broken across lines,
 *   axe (no serious or critical finding), no console error or CSP violation, nothing fetched from
 *   elsewhere; screenshots at 390 and 1280 px (`docs-*-390.png`, `docs-*-1280.png`; a page taller
 *   than 8,000 px is photographed from its top).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { API } from '../helpers/api';
import { checkA11y, newPage, noBrokenWords, noHorizontalScroll, openBrowser, screenshotDir } from '../helpers/browser';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const window: any;
declare const document: any;

let browser: Browser;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Op = { operationId: string; summary: string; tags: string[] };
type Doc = { info: { version: string; license?: unknown }; paths: Record<string, Record<string, Op>>; webhooks?: Record<string, unknown> };

const guides = fs
  .readdirSync(path.resolve(__dirname, '../../docs/guides'))
  .filter((f) => /^[A-Za-z0-9][A-Za-z0-9_-]*\.md$/.test(f))
  .sort();

/**
 * Every docs page, the name of its screenshots, and whether axe runs on it: on all but the events'
 * page, whose 118 sections are the area pages' markup again (axe takes over a minute on it).
 */
const PAGES: { path: string; name: string; axe: boolean }[] = [
  { path: '/', name: 'docs-root', axe: true },
  { path: '/docs', name: 'docs-reference', axe: true },
  // An area's page: the same markup on every area; a small one (5 operations) keeps axe and the
  // per-word check inside a loaded CI's time (payment_links' 14 took 82 s on a quiet machine).
  { path: '/docs/reference/clients', name: 'docs-reference-clients', axe: true },
  { path: '/docs/webhooks', name: 'docs-webhooks', axe: false },
  { path: '/docs/errors', name: 'docs-errors', axe: true },
  { path: '/docs/guides', name: 'docs-guides', axe: true },
  { path: `/docs/guides/${guides[0].slice(0, -3)}`, name: 'docs-guide', axe: true },
  { path: '/sim/docs', name: 'docs-sim-reference', axe: true },
];

/**
 * Every failed response the page saw and every request to another origin (console errors, CSP
 * violations and uncaught exceptions fail every test through the page guard, tests/helpers/page-guard.ts).
 */
function pageProblems(page: Page): () => string[] {
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(API()) && !r.url().startsWith('data:')) failed.push(`outside: ${r.url()}`);
  });
  return () => failed;
}

async function served(): Promise<Doc> {
  return (await (await fetch(`${API()}/v1/openapi.json`)).json()) as Doc;
}

describe('API reference', () => {
  test('/docs lists every operation by its summary, the version a client pins, no licence; all of it without JavaScript', async () => {
    const doc = await served();
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const page = await newPage(browser, { javaScriptEnabled: false });
    const res = await page.goto(`${API()}/docs`);
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline|https?:/);
    // The first operation is on screen as the server sent it.
    await page.locator('.op-list a').first().waitFor({ state: 'visible', timeout: 10_000 });
    const rows: { href: string; summary: string; line: string }[] = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#operations ~ section[id^="area-"] .op-list a') as any[]).map((a: any) => ({
        href: a.getAttribute('href'),
        summary: a.querySelector('.op-row-summary').textContent,
        line: a.querySelector('.op-row-line').textContent,
      })),
    );
    expect(rows.length).toBe(ops.length);
    const byHref = new Map(rows.map((r) => [r.href, r]));
    for (const op of ops) {
      const row = byHref.get(`/docs/reference/${op.tags[0]}#${op.operationId}`);
      expect([op.operationId, row?.summary]).toEqual([op.operationId, op.summary]);
      expect(row!.summary).not.toContain(op.operationId);
    }
    expect(await page.locator('.ref-facts .version').innerText()).toBe(doc.info.version);
    expect(doc.info.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(doc.info.license).toBeUndefined();
    expect(await page.locator('body').innerText()).not.toMatch(/UNLICENSED/i);
    expect(await page.locator('.docs-nav a[aria-current="page"]').getAttribute('href')).toBe('/docs');
    await page.context().close();
  });

  test("an operation's row leads to its section on the area's page: summary, path, parameters, body, answers, examples", async () => {
    const page = await newPage(browser);
    const problems = pageProblems(page);
    await page.goto(`${API()}/docs`);
    await page.locator('a[href="/docs/reference/payment_links#payment_links.create"]').click();
    await page.waitForURL(/\/docs\/reference\/payment_links#payment_links\.create$/);
    const op = page.locator('section.op[id="payment_links.create"]');
    await op.waitFor({ state: 'visible' });
    expect(await op.locator('h2').innerText()).toBe('Create a draft payment link');
    expect(await op.locator('.op-line').innerText()).toMatch(/^POST\s+\/v1\/payment_links$/);
    // Scrolled to it: its heading is inside the viewport.
    const box = await op.locator('h2').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(900);
    const text = await op.innerText();
    for (const part of ['Parameters', 'Idempotency-Key', 'Request body', 'amount', 'Responses', '201', 'payment_links.write'])
      expect([part, text.includes(part)]).toEqual([part, true]);
    expect(await op.locator('a[href="/docs/errors"]').count()).toBe(1);
    expect(problems()).toEqual([]);
    await page.context().close();
  });

  test('/docs/webhooks draws every event of the document, each linking the object it carries', async () => {
    const doc = await served();
    const page = await newPage(browser);
    await page.goto(`${API()}/docs/webhooks`);
    const events = Object.keys(doc.webhooks ?? {});
    expect(events.length).toBeGreaterThan(50);
    expect(await page.locator('article > section.op:not([id^="schema-"])').count()).toBe(events.length);
    const first = page.locator(`section.op[id="${events[0]}"]`);
    expect(await first.innerText()).toContain(events[0]);
    const link = first.locator('a.prop-type[href^="#schema-"]').first();
    const target = (await link.getAttribute('href'))!;
    expect(await page.locator(`section[id="${target.slice(1)}"]`).count()).toBe(1);
    await page.context().close();
  });

  test('/sim/docs: every simulator route with its summary and the examples of its request and answer', async () => {
    const doc = (await (await fetch(`${API()}/sim/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Op & { responses: Record<string, any> }>>;
    };
    const page = await newPage(browser);
    const problems = pageProblems(page);
    await page.goto(`${API()}/sim/docs`);
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        const section = page.locator(`section.op[id="${op.operationId}"]`);
        expect([p, await section.locator('h2').innerText()]).toEqual([p, op.summary]);
        expect([p, await section.locator('figure.example figcaption', { hasText: 'Example response' }).count()]).toEqual([p, 1]);
      }
    }
    expect(await page.locator('.docs-nav a[aria-current="page"]').getAttribute('href')).toBe('/sim/docs');
    expect(problems()).toEqual([]);
    await page.context().close();
  });
});

describe('one look', () => {
  test('/docs, /docs/errors, /docs/guides and /sim/docs share the header, the navigation and the typography', async () => {
    const page = await newPage(browser);
    const looks: Record<string, unknown>[] = [];
    for (const p of ['/docs', '/docs/errors', '/docs/guides', '/sim/docs']) {
      await page.goto(`${API()}${p}`);
      looks.push(
        await page.evaluate(() => {
          const style = (sel: string, props: string[]) => {
            const el = document.querySelector(sel);
            if (!el) return null;
            const cs = window.getComputedStyle(el);
            return Object.fromEntries(props.map((k) => [k, cs.getPropertyValue(k)]));
          };
          return {
            nav: Array.from(document.querySelectorAll('main > nav.docs-nav a') as any[]).map(
              (a: any) => `${a.textContent} ${a.getAttribute('href')}`,
            ),
            body: style('body', ['font-family', 'font-size', 'line-height', 'color', 'background-color']),
            main: style('main', ['max-width', 'padding-left']),
            h1: style('h1', ['font-size', 'font-weight', 'color']),
            navLink: style('nav.docs-nav a:not(.brand):not([aria-current])', ['color', 'font-size']),
            banner: Boolean(document.querySelector('.sandbox-banner')),
            stylesheets: Array.from(document.querySelectorAll('link[rel="stylesheet"]') as any[]).map((l: any) =>
              l.getAttribute('href').replace(/\?v=.*$/, ''),
            ),
          };
        }),
      );
    }
    expect(looks[0].nav).toEqual(
      expect.arrayContaining(['API reference /docs', 'Guides /docs/guides', 'Errors /docs/errors', 'Simulator /sim/docs']),
    );
    for (const l of looks.slice(1)) expect(l).toEqual(looks[0]);
    await page.context().close();
  });
});

/**
 * Pages this tall or less are photographed whole; a taller one (an area's operations, the events)
 * its top this high: an 8,000 px shot of an area's page outlasted 30 s on a loaded CI machine.
 */
const SHOT_MAX_HEIGHT = 3000;

/** Screenshots `page` at its current width into `<name>-<width>.png` (whole, or its top {@link SHOT_MAX_HEIGHT} px). */
async function shoot(page: Page, name: string): Promise<string> {
  const width = page.viewportSize()!.width;
  const height: number = await page.evaluate(() => document.documentElement.scrollHeight);
  const file = path.join(screenshotDir(), `${name}-${width}.png`);
  await page.screenshot({
    path: file,
    fullPage: true,
    clip: { x: 0, y: 0, width, height: Math.min(height, SHOT_MAX_HEIGHT) },
    timeout: 90_000,
  });
  return file;
}

describe('every docs page', () => {
  test.each(PAGES)(
    '$path: no sideways scroll and no broken word at 360, 390 and 1280 px; axe; no console error; screenshots at 390 and 1280 px',
    async ({ path: p, name, axe }) => {
      const page = await newPage(browser);
      const problems = pageProblems(page);
      const res = await page.goto(`${API()}${p}`);
      expect([p, res!.status()]).toEqual([p, 200]);
      const failures: string[] = [];
      for (const width of [360, 390, 1280]) {
        await page.setViewportSize({ width, height: width < 480 ? 740 : 900 });
        const label = `${p} at ${width}px`;
        const checks = [() => noHorizontalScroll(page, label), () => noBrokenWords(page, label)];
        if (width !== 360) {
          const file = await shoot(page, name);
          expect(fs.statSync(file).size).toBeGreaterThan(10_000);
          if (axe)
            checks.push(async () => {
              await checkA11y(page, label);
            });
        }
        for (const check of checks) {
          try {
            await check();
          } catch (e) {
            failures.push(e instanceof Error ? e.message : String(e));
          }
        }
      }
      expect(failures).toEqual([]);
      expect(problems()).toEqual([]);
      await page.context().close();
    },
    300_000,
  );
});
