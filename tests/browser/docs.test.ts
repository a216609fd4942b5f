/**
 * The docs in a real browser (api/docs/, issue 23 part 1; tests/api/docs-site.test.ts covers the same
 * pages over plain HTTP):
 * - `/docs`: Swagger UI (served by the product) draws the /v1 operations and, when the document has
 *   them, its OpenAPI 3.1 `webhooks`, under the page's CSP with no violation nor any other console
 *   error; `/sim/docs` draws the simulator's routes.
 * - Accessibility: our own markup around the renderer (skip link, navigation, banner) has no serious
 *   or critical axe violation; the renderer's own markup (`#swagger-ui`, a third-party component we
 *   do not write) is checked and its findings printed, not failed on
 *   (docs/decisions/0059-the-docs-the-product-serves.md).
 * - `/`, `/docs/guides` and a guide: our own pages, fully checked by `snapshot` (axe, no sideways
 *   scroll at 360 and 1280 px, screenshots).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { API } from '../helpers/api';
import { checkA11y, collectConsoleErrors, newPage, openBrowser, screenshotDir, snapshot } from '../helpers/browser';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const window: any;
declare const document: any;

let browser: Browser;
beforeAll(async () => { browser = await openBrowser(); });
afterAll(async () => { await browser?.close(); });

const DRAWN_MS = 60_000;

/** axe-core on the document without `exclude` (our own markup around a third-party renderer). */
async function axeOutside(page: Page, exclude: string): Promise<{ id: string; impact: string | null; targets: string[] }[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async (sel: string) => {
    const r = await window.axe.run({ exclude: [[sel]] }, { resultTypes: ['violations'] });
    return (r.violations as any[]).map((v) => ({ id: String(v.id), impact: (v.impact ?? null) as string | null, targets: (v.nodes as any[]).map((n) => (n.target as unknown[]).map(String).join(' ')) }));
  }, exclude);
}

/** The renderer's axe findings, printed (not failed on): a third-party component's markup. */
async function reportRendererA11y(page: Page, label: string): Promise<void> {
  try {
    const all = await checkA11y(page, label);
    if (all.length) console.log(`[docs a11y] ${label}: ${all.length} minor or moderate axe finding(s): ${all.map((v) => `${v.id} (${v.impact}, ${v.targets.length})`).join(', ')}`);
  } catch (e) {
    console.log(`[docs a11y] ${label}: the renderer's markup (reported, not failed on):\n${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Waits until Swagger UI has drawn the operations, then narrows them to tag `tag` with the
 * reference's filter box (Swagger UI draws the operations list virtualized: only what is near the
 * viewport is in the DOM) and waits for the tag's own path `/<tag>`.
 */
async function showTag(page: Page, tag: string): Promise<void> {
  await page.locator('#swagger-ui .opblock-tag').first().waitFor({ state: 'visible', timeout: DRAWN_MS });
  await page.locator('#swagger-ui input.operation-filter-input').fill(tag);
  await page.locator(`.opblock-summary-path[data-path="/${tag}"]`).first().waitFor({ state: 'visible', timeout: DRAWN_MS });
}

async function openReference(page: Page, url: string): Promise<void> {
  const res = await page.goto(url);
  expect(res!.status()).toBe(200);
  const csp = res!.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toMatch(/unsafe-eval|https?:/);
}

describe('API reference', () => {
  test('/docs: the operations and webhooks are drawn under the CSP, no console error, our markup passes axe', async () => {
    const doc = await (await fetch(`${API()}/v1/openapi.json`)).json() as { paths: Record<string, unknown>; webhooks?: Record<string, Record<string, { operationId?: string }>> };
    expect(doc.paths['/payment_links']).toBeDefined();
    const page = await newPage(browser);
    const errors = collectConsoleErrors(page);
    const outside: string[] = [];
    page.on('request', (r) => { if (!r.url().startsWith(API()) && !r.url().startsWith('data:')) outside.push(r.url()); });
    await openReference(page, `${API()}/docs`);
    // Swagger UI has fetched /v1/openapi.json and drawn the operations (paths are relative to the /v1 server).
    await showTag(page, 'payment_links');
    expect(await page.locator('#swagger-ui .info .title').innerText()).not.toBe('');
    // The OpenAPI 3.1 top-level `webhooks` (one per event type, once the document has them) are drawn too.
    const webhooks = Object.keys(doc.webhooks ?? {});
    if (webhooks.length) {
      const section = page.locator('#swagger-ui .webhooks');
      await section.waitFor({ state: 'visible', timeout: DRAWN_MS });
      const drawn = await section.locator('.opblock').count();
      expect(drawn).toBe(webhooks.reduce((n, w) => n + Object.keys(doc.webhooks![w]).length, 0));
      expect(await section.innerText()).toContain(webhooks[0]);
    } else {
      console.log('[docs] /v1/openapi.json has no top-level webhooks yet: their drawing is not checked');
    }
    // Expanding an operation draws its parameters and answers, still inside the CSP.
    await page.locator('.opblock-summary-path[data-path="/payment_links"]').first().click();
    await page.locator('.opblock.is-open .responses-wrapper').first().waitFor({ state: 'visible', timeout: DRAWN_MS });
    expect(await page.locator('.try-out__btn').count()).toBe(0); // reading only: no "Try it out"
    const file = path.join(screenshotDir(), 'docs-reference-1280.png');
    await page.screenshot({ path: file });
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    const ours = (await axeOutside(page, '#swagger-ui')).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(ours).toEqual([]);
    await reportRendererA11y(page, '/docs');
    await page.context().close();
  });

  test('/docs at a phone width: drawn, screenshot', async () => {
    const page = await newPage(browser, { width: 360 });
    const errors = collectConsoleErrors(page);
    await openReference(page, `${API()}/docs`);
    await showTag(page, 'payment_links');
    await page.screenshot({ path: path.join(screenshotDir(), 'docs-reference-360.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('/sim/docs draws the simulator\'s routes', async () => {
    const doc = await (await fetch(`${API()}/sim/openapi.json`)).json() as { paths: Record<string, unknown> };
    const first = Object.keys(doc.paths).sort()[0];
    const page = await newPage(browser);
    const errors = collectConsoleErrors(page);
    await openReference(page, `${API()}/sim/docs`);
    await page.locator(`.opblock-summary-path[data-path="${first}"]`).first().waitFor({ state: 'visible', timeout: DRAWN_MS });
    expect(await page.locator('#swagger-ui .info .title').innerText()).toContain('simulator');
    await page.screenshot({ path: path.join(screenshotDir(), 'docs-sim-reference-1280.png') });
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => document.querySelector('.docs-nav a[aria-current="page"]')?.getAttribute('href'))).toBe('/sim/docs');
    await page.context().close();
  });

  test('/docs with JavaScript off says where the document is', async () => {
    const page = await newPage(browser, { javaScriptEnabled: false });
    await page.goto(`${API()}/docs`);
    expect(await page.locator('#main a[href="/v1/openapi.json"]').isVisible()).toBe(true);
    await page.context().close();
  });
});

/**
 * Console errors but the favicon's 404 (the pages' Layout names no icon, so Chromium asks for
 * `/favicon.ico`, a request the page's own events do not show), and every failed response the page saw.
 */
function pageProblems(page: Page): () => string[] {
  const errors = collectConsoleErrors(page);
  const failed: string[] = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  return () => [...failed, ...errors.filter((e) => !/^console\.error: Failed to load resource: the server responded with a status of 404/.test(e))];
}

describe('our own docs pages', () => {
  test('/: links to every doc; axe and no sideways scroll at 360 and 1280 px', async () => {
    const page = await newPage(browser);
    const problems = pageProblems(page);
    await page.goto(`${API()}/`);
    for (const href of ['/docs', '/docs/guides', '/docs/errors', '/v1/openapi.json', '/sim/docs', '/sim/openapi.json']) {
      expect([href, (await page.locator(`main a[href="${href}"]`).count()) > 0]).toEqual([href, true]);
    }
    await snapshot(page, 'docs-root');
    expect(problems()).toEqual([]);
    await page.context().close();
  });

  test('/docs/guides and the first guide: axe and no sideways scroll at 360 and 1280 px', async () => {
    const dir = path.resolve(__dirname, '../../docs/guides');
    const guides = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^[A-Za-z0-9][A-Za-z0-9_-]*\.md$/.test(f)).sort() : [];
    const page = await newPage(browser);
    const problems = pageProblems(page);
    await page.goto(`${API()}/docs/guides`);
    expect(await page.locator('h1').innerText()).toBe('Guides');
    await snapshot(page, 'docs-guides');
    if (guides.length) {
      await page.locator(`a[href="/docs/guides/${guides[0].slice(0, -3)}"]`).click();
      await page.waitForURL(/\/docs\/guides\/[^/]+$/);
      expect(await page.locator('article.guide').count()).toBe(1);
      await snapshot(page, 'docs-guide');
    } else {
      console.log('[docs] no guide in docs/guides yet: only the index is photographed');
    }
    expect(problems()).toEqual([]);
    await page.context().close();
  });
});
