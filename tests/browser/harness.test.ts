/**
 * The browser tier's harness (tests/helpers/browser.ts) against the running product: the one 404
 * page of the pages router (api/pages/render.tsx `sendNotFound`) opened in Chromium, its security
 * headers, no CSP complaint in the console, screenshots with axe and the overflow check at both
 * widths; and the same 404, byte for byte but the nonce, for an unknown, a malformed token and an
 * unknown short code (no oracle).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { collectConsoleErrors, newPage, openBrowser, PHONE, screenshotDir, snapshot } from '../helpers/browser';

const api = () => process.env.TEST_API_URL!;
const withoutNonce = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""');

let browser: Browser;
beforeAll(async () => { browser = await openBrowser(); });
afterAll(async () => { await browser?.close(); });

describe('browser harness', () => {
  test('the 404 page: headers, CSP honoured, screenshots, axe and no sideways scroll at 360 and 1280 px', async () => {
    const page = await newPage(browser);
    const errors = collectConsoleErrors(page);
    const res = await page.goto(`${api()}/pay/plk_doesnotexist`);
    expect(res).not.toBeNull();
    expect(res!.status()).toBe(404);
    expect(res!.headers()['content-type']).toMatch(/^text\/html/);
    const csp = res!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("'nonce-");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res!.headers()['referrer-policy']).toBe('no-referrer');
    expect(res!.headers()['cache-control']).toBe('no-store');
    await page.waitForLoadState('load');
    expect(await page.locator('h1').count()).toBe(1);
    const files = await snapshot(page, 'not-found');
    expect(files.map((f) => path.basename(f))).toEqual(['not-found-360.png', 'not-found-1280.png']);
    for (const f of files) {
      expect(path.dirname(f)).toBe(screenshotDir());
      expect(fs.statSync(f).size).toBeGreaterThan(1000);
    }
    // Chromium logs the 404 of the document itself ("Failed to load resource"); nothing else may
    // appear: a stylesheet or script refused by the CSP, an inline style, an uncaught exception.
    const unexpected = errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e));
    expect(unexpected).toEqual([]);
    await page.context().close();
  });

  test('the 404 page at a phone width with JavaScript off', async () => {
    const page = await newPage(browser, { ...PHONE, javaScriptEnabled: false });
    const res = await page.goto(`${api()}/pay/plk_doesnotexist`);
    expect(res!.status()).toBe(404);
    await snapshot(page, 'not-found-nojs');
    expect(page.viewportSize()).toEqual(PHONE);
    await page.context().close();
  });

  test('an unknown token, a malformed token and an unknown short code get the same 404, byte for byte but the nonce', async () => {
    const urls = ['/pay/plk_doesnotexist', '/pay/not-a-token!!', '/p/zzzzzzz'];
    const answers = await Promise.all(urls.map(async (u) => {
      const r = await fetch(`${api()}${u}`, { redirect: 'manual' });
      return { url: u, status: r.status, csp: r.headers.get('content-security-policy') ?? '', body: await r.text() };
    }));
    for (const a of answers) {
      expect({ url: a.url, status: a.status }).toEqual({ url: a.url, status: 404 });
      // The nonce in the body is this response's, and fresh per response.
      const nonces = [...a.body.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]);
      expect(nonces.length).toBeGreaterThan(0);
      for (const n of nonces) expect(a.csp).toContain(`'nonce-${n}'`);
    }
    expect(new Set(answers.map((a) => a.csp)).size).toBe(answers.length);
    const [first, ...rest] = answers.map((a) => withoutNonce(a.body));
    for (const b of rest) expect(b).toBe(first);
  });
});
