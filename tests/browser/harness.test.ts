/**
 * The browser tier's harness (tests/helpers/browser.ts) against the running product: the one 404
 * page of the pages router (api/pages/render.tsx `sendNotFound`) opened in Chromium, its security
 * headers, no CSP complaint in the console, screenshots at 390 and 1280 px with axe, the overflow
 * and broken-word checks at 360, 390 and 1280 px; the same 404, byte for byte but the nonce, for an
 * unknown, a malformed token and an unknown short code (no oracle); and the phone-width checks
 * themselves, on markup that breaks a word or scrolls sideways.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { newPage, noBrokenWords, noHorizontalScroll, openBrowser, PHONE, screenshotDir, snapshot } from '../helpers/browser';
import { allowConsoleError } from '../helpers/page-guard';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const document: any;

const api = () => process.env.TEST_API_URL!;
const withoutNonce = (html: string) => html.replace(/nonce="[^"]*"/g, 'nonce=""');
/** Chromium's console report of a document answered 404. */
const NOT_FOUND = /^Failed to load resource: the server responded with a status of 404/;

let browser: Browser;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('browser harness', () => {
  test('the 404 page: headers, CSP honoured, screenshots, axe, no sideways scroll and no broken word at phone and desktop widths', async () => {
    const page = await newPage(browser);
    allowConsoleError(page, NOT_FOUND, 'Chromium logs the 404 of the document itself: the page under test is the 404 page');
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
    const files = await snapshot(page, 'not-found', { wholeWords: true });
    expect(files.map((f) => path.basename(f))).toEqual(['not-found-390.png', 'not-found-1280.png']);
    for (const f of files) {
      expect(path.dirname(f)).toBe(screenshotDir());
      expect(fs.statSync(f).size).toBeGreaterThan(1000);
    }
    // Nothing else may appear (the guard checks after the test): a stylesheet or script refused by
    // the CSP, an inline style, an uncaught exception.
    await page.context().close();
  });

  test('the 404 page at a phone width with JavaScript off', async () => {
    const page = await newPage(browser, { ...PHONE, javaScriptEnabled: false });
    allowConsoleError(page, NOT_FOUND, 'Chromium logs the 404 of the document itself: the page under test is the 404 page');
    const res = await page.goto(`${api()}/pay/plk_doesnotexist`);
    expect(res!.status()).toBe(404);
    await snapshot(page, 'not-found-nojs', { wholeWords: true });
    expect(page.viewportSize()).toEqual(PHONE);
    await page.context().close();
  });

  test('an unknown token, a malformed token and an unknown short code get the same 404, byte for byte but the nonce', async () => {
    const urls = ['/pay/plk_doesnotexist', '/pay/not-a-token!!', '/p/zzzzzzz'];
    const answers = await Promise.all(
      urls.map(async (u) => {
        const r = await fetch(`${api()}${u}`, { redirect: 'manual' });
        return { url: u, status: r.status, csp: r.headers.get('content-security-policy') ?? '', body: await r.text() };
      }),
    );
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

  test('the phone-width checks catch a word broken inside a label, an identifier broken inside a group and a sideways scroll', async () => {
    const page = await newPage(browser, PHONE);
    const mount = (body: string) =>
      page.setContent(
        `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0">${body}</body></html>`,
      );
    const err = async (check: Promise<void>) =>
      check.then(
        () => '',
        (e: Error) => e.message,
      );
    // A label squeezed by its value, words allowed to break anywhere: "Transaction" in pieces.
    await mount(
      '<div style="display:flex;width:300px;overflow-wrap:anywhere"><span>Transaction</span><code style="word-break:break-all">0x5467266cc7b529183c7f84cf7086e86244fc0b7197b93c1ef0297c58cadfde19</code></div>',
    );
    expect(await err(noBrokenWords(page, 'squeezed'))).toMatch(/"Transaction" in span/);
    // An amount with a no-break space is one word: broken where words may break anywhere, whole where they may not.
    await mount('<p style="width:60px;overflow-wrap:anywhere">1.00\u00a0USDC</p>');
    expect(await err(noBrokenWords(page, 'narrow amount'))).toMatch(/"1\.00\u00a0USDC"/);
    await mount('<p style="width:60px;overflow-wrap:normal">1.00\u00a0USDC</p>');
    expect(await err(noBrokenWords(page, 'whole amount'))).toBe('');
    // An identifier in groups wraps between them only: no word broken, and no sideways scroll.
    await mount(
      `<code style="display:block;width:120px">${['0x5290', '8400', '0985', '2788', '6E0F', '7030', '0698', '57D2', 'E416', '9EE7'].map((g) => `<span style="white-space:nowrap">${g}</span>`).join('<wbr>')}</code>`,
    );
    expect(await err(noBrokenWords(page, 'grouped'))).toBe('');
    expect(await err(noHorizontalScroll(page, 'grouped'))).toBe('');
    expect(await page.evaluate(() => document.querySelector('code').getClientRects()[0].height)).toBeGreaterThan(30); // it did wrap
    // The same identifier in one piece pushes the page sideways.
    await mount('<code style="white-space:nowrap">0x52908400098527886E0F7030069857D2E4169EE70x52908400098527886E0F</code>');
    expect(await err(noHorizontalScroll(page, 'one piece'))).toMatch(/horizontal scroll on one piece/);
    await page.context().close();
  });
});
