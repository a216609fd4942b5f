/**
 * The browser tier's harness (tests/browser/, issue 22): Debian's Chromium driven by playwright-core
 * (no browser is ever downloaded), axe-core for accessibility, the layout checks of a phone's width
 * (no sideways scroll, no word broken across lines: issue 38), screenshots at a phone's and a
 * desktop's width into an artifacts folder, and on every page it opens no CSP violation, console
 * error or uncaught exception (tests/helpers/page-guard.ts, checked after each test).
 *
 *   const b = await openBrowser();
 *   const page = await newPage(b);
 *   await page.goto(url);
 *   await snapshot(page, 'payer-awaiting', { wholeWords: true });
 *   // <name>-390.png, <name>-1280.png with axe; no sideways scroll and no broken word at 360, 390 and 1280 px
 *   await b.close();
 *
 * A missing Chromium fails the test (never a silent skip): `.ci/run` installs it; by hand,
 * `apt-get install -y chromium`, or point `CHROMIUM_PATH` at another build.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { guardContext } from './page-guard';
import { decodeQrCodes, parseErc20TransferUri } from './qr';

const root = path.resolve(__dirname, '../..');

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const window: any;
declare const document: any;

/** A phone's viewport (isMobile, hasTouch) and the desktop default. */
export const PHONE = { width: 360, height: 740 } as const;
export const DESKTOP = { width: 1280, height: 900 } as const;
/** The phone widths every page is checked at: a small Android phone's and an iPhone's. */
export const PHONE_WIDTHS = [360, 390] as const;
/** The widths {@link snapshot} photographs (and runs axe at): a phone's and the desktop's. */
export const SCREENSHOT_WIDTHS = [390, DESKTOP.width] as const;
/** Viewports this narrow or narrower get a phone's emulation (isMobile, hasTouch). */
const PHONE_MAX_WIDTH = 480;

const isExecutable = (p: string): boolean => {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The Chromium executable: `CHROMIUM_PATH`, else `chromium` on PATH, else `/usr/bin/chromium`.
 * Throws an error saying how to install it when none exists.
 */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable file (unset it to use Debian's chromium from PATH)`);
  }
  try {
    const found = execFileSync('/bin/sh', ['-c', 'command -v chromium'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (found && isExecutable(found)) return found;
  } catch {
    /* not on PATH */
  }
  if (isExecutable('/usr/bin/chromium')) return '/usr/bin/chromium';
  throw new Error(
    "Chromium not found: the browser tests (tests/browser/) need Debian's chromium package. " +
      'Install it with `apt-get install -y chromium` (.ci/run does), or set CHROMIUM_PATH to a Chromium executable. ' +
      'playwright-core never downloads a browser.',
  );
}

/** Launches headless Chromium (`--no-sandbox`: CI runs as root). Close it with `browser.close()`. */
export async function openBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'], headless: true });
}

/** Options of {@link newPage}. */
export interface PageOptions {
  /** Viewport width in CSS pixels (default 1280); 480 or less emulates a phone (isMobile, hasTouch). */
  width?: number;
  /** Viewport height (default 740 on a phone, else 900). */
  height?: number;
  /** `navigator.language` and `Accept-Language` (default `en-US`). */
  locale?: string;
  /** False to load the page with scripts off (the pages work without JavaScript). Default true. */
  javaScriptEnabled?: boolean;
}

/** The settings of the contexts {@link newPage} made (checkA11y needs them for a page with JavaScript off). */
const contextSettings = new WeakMap<BrowserContext, { browser: Browser; isMobile: boolean; locale: string; javaScriptEnabled: boolean }>();

/**
 * A page in a fresh browser context (no shared cookies or cache): 1280x900 by default, `{ width: 360 }`
 * for a phone. The context closes with its last page. The page is guarded (tests/helpers/page-guard.ts):
 * a CSP violation, a console error or an uncaught exception on it fails the test.
 */
export async function newPage(browser: Browser, opts: PageOptions = {}): Promise<Page> {
  const width = opts.width ?? DESKTOP.width;
  const phone = width <= PHONE_MAX_WIDTH;
  const settings = { browser, isMobile: phone, locale: opts.locale ?? 'en-US', javaScriptEnabled: opts.javaScriptEnabled ?? true };
  const context = await browser.newContext({
    viewport: { width, height: opts.height ?? (phone ? PHONE.height : DESKTOP.height) },
    isMobile: phone,
    hasTouch: phone,
    locale: settings.locale,
    javaScriptEnabled: settings.javaScriptEnabled,
  });
  contextSettings.set(context, settings);
  await guardContext(context);
  context.on('page', (p) =>
    p.once('close', () => {
      if (context.pages().length === 0) void context.close().catch(() => undefined);
    }),
  );
  return context.newPage();
}

/** One axe-core violation as the harness reports it. */
export interface A11yViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  targets: string[];
}

let axeSource: string | null = null;
const AXE_TIMEOUT_MS = 30_000;

/** axe-core's violations on `page` (axe injected once per document). */
async function runAxe(page: Page): Promise<A11yViolation[]> {
  axeSource ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const run = page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return (r.violations as any[]).map((v) => ({
      id: String(v.id),
      impact: (v.impact ?? null) as string | null,
      help: String(v.help),
      helpUrl: String(v.helpUrl),
      targets: (v.nodes as any[]).map((n) => (n.target as unknown[]).map(String).join(' ')),
    }));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `axe-core did not finish within ${AXE_TIMEOUT_MS / 1000} s on ${page.url()} (JavaScript off in a page newPage did not make? axe needs promises and timers)`,
          ),
        ),
      AXE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * With JavaScript off Chromium runs no promise job or timer, so axe cannot run in the page itself:
 * its current DOM (form values included, `<script>` removed, `<noscript>` content unwrapped as the
 * no-script parser built it) is served at the same URL to a twin page with JavaScript on, the same
 * viewport and locale, which loads the same stylesheets; axe runs there.
 */
async function axeOnScriptingTwin(page: Page, settings: { browser: Browser; isMobile: boolean; locale: string }): Promise<A11yViolation[]> {
  const html = await page.evaluate(() => {
    const live = Array.from(document.querySelectorAll('input, textarea, select')) as any[];
    const root = document.documentElement.cloneNode(true);
    const copies = Array.from(root.querySelectorAll('input, textarea, select')) as any[];
    copies.forEach((el, i) => {
      const src = live[i];
      if (el.tagName === 'TEXTAREA') el.textContent = src.value;
      else if (el.tagName === 'SELECT')
        Array.from(el.options as any[]).forEach((o: any, k: number) => o.toggleAttribute('selected', src.options[k].selected));
      else if (el.type === 'checkbox' || el.type === 'radio') el.toggleAttribute('checked', src.checked);
      else if (el.type !== 'file' && el.type !== 'password') el.setAttribute('value', src.value);
    });
    root.querySelectorAll('script').forEach((n: any) => n.remove());
    root.querySelectorAll('noscript').forEach((n: any) => n.replaceWith(...Array.from(n.childNodes as any[])));
    return `<!doctype html>${root.outerHTML}`;
  });
  const url = page.url().replace(/#.*$/, '');
  const viewport = page.viewportSize() ?? DESKTOP;
  const context = await settings.browser.newContext({
    viewport,
    isMobile: settings.isMobile,
    hasTouch: settings.isMobile,
    locale: settings.locale,
  });
  try {
    const twin = await context.newPage();
    await twin.route(
      (u) => u.href.replace(/#.*$/, '') === url,
      (r) => r.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }),
    );
    await twin.goto(url, { waitUntil: 'load' });
    return await runAxe(twin);
  } finally {
    await context.close();
  }
}

/**
 * Runs axe-core on the page and throws, listing id, impact, help and the offending elements, when
 * any violation is `serious` or `critical`; returns every violation (minor and moderate included).
 * axe is injected with `page.evaluate(source)`, which the pages' CSP (nonces, no 'unsafe-inline')
 * does not block, unlike a `<script>` tag. A page with JavaScript off (newPage's option) is checked
 * through a twin with it on that renders the same DOM (see axeOnScriptingTwin).
 */
export async function checkA11y(page: Page, label: string): Promise<A11yViolation[]> {
  const settings = contextSettings.get(page.context());
  const violations = settings && !settings.javaScriptEnabled ? await axeOnScriptingTwin(page, settings) : await runAxe(page);
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (blocking.length) {
    const list = blocking.map(
      (v) =>
        `  - ${v.id} (${v.impact}): ${v.help}\n      ${v.targets.slice(0, 5).join('\n      ')}${v.targets.length > 5 ? `\n      ... and ${v.targets.length - 5} more` : ''}\n      ${v.helpUrl}`,
    );
    throw new Error(
      `accessibility: ${blocking.length} serious or critical axe violation(s) on ${label} (${page.url()}):\n${list.join('\n')}`,
    );
  }
  return violations;
}

/**
 * Asserts the page does not scroll sideways: `document.documentElement.scrollWidth` is at most
 * `window.innerWidth` and the layout viewport's width (`clientWidth`: with phone emulation Chromium
 * widens `innerWidth` to fit overflowing content, which would hide it). The error names the widest elements.
 */
export async function noHorizontalScroll(page: Page, label = page.url()): Promise<void> {
  const r = await page.evaluate(() => {
    const de = document.documentElement;
    const limit = Math.min(window.innerWidth, de.clientWidth);
    const wide: string[] = [];
    if (de.scrollWidth > limit) {
      for (const el of Array.from(document.body.querySelectorAll('*')) as any[]) {
        const right = el.getBoundingClientRect().right + window.scrollX;
        if (right > limit + 0.5) {
          const id = el.id ? `#${el.id}` : '';
          const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
          wide.push(`${el.tagName.toLowerCase()}${id}${cls} (right edge ${Math.round(right)}px)`);
          if (wide.length >= 8) break;
        }
      }
    }
    return { scrollWidth: de.scrollWidth, innerWidth: window.innerWidth, clientWidth: de.clientWidth, limit, wide };
  });
  if (r.scrollWidth > r.limit) {
    throw new Error(
      `horizontal scroll on ${label}: scrollWidth ${r.scrollWidth}px > viewport ${r.limit}px (innerWidth ${r.innerWidth}, clientWidth ${r.clientWidth}); elements past the edge:\n  ${r.wide.join('\n  ') || '(none found; a pseudo-element or margin?)'}`,
    );
  }
}

/**
 * Asserts no word of the page's visible text is broken across lines: every run of characters
 * between spaces of every text node (a no-break space belongs to the run, so "1.00 USDC" is one;
 * a hyphen before a letter ends one, where a line may break) lays out on one line, measured with a
 * Range's client rects. Labels, amounts and buttons are
 * covered so; a long identifier is drawn in groups of its own (api/pages/layout.tsx `Ident`), each
 * a run, so this also asserts it wraps only between groups. The error names the broken words.
 */
export async function noBrokenWords(page: Page, label = page.url()): Promise<void> {
  const broken: string[] = await page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
    const range = document.createRange();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!parent || parent.closest('script, style, noscript, svg, select, textarea')) continue;
      // Words: runs between spaces, a hyphen before a letter ending one ("non-zero" may wrap as "non-" "zero").
      for (const m of (n.data as string).matchAll(/[^ \t\n\r\f]+?(?:-(?=\p{L})|(?=[ \t\n\r\f]|$))/gu)) {
        const at = m.index ?? 0;
        range.setStart(n, at);
        range.setEnd(n, at + m[0].length);
        const rects = (Array.from(range.getClientRects()) as any[]).filter((r) => r.width > 0 && r.height > 0);
        if (rects.length < 2) continue;
        const tops = rects.map((r) => r.top);
        if (Math.max(...tops) - Math.min(...tops) < Math.min(...rects.map((r) => r.height)) / 2) continue;
        const where = `${parent.tagName.toLowerCase()}${parent.id ? `#${parent.id}` : ''}${parent.className && typeof parent.className === 'string' ? `.${parent.className.trim().split(/\s+/).join('.')}` : ''}`;
        out.push(`"${m[0]}" in ${where} (${rects.length} pieces)`);
        if (out.length >= 12) return out;
      }
    }
    return out;
  });
  if (broken.length) throw new Error(`words broken across lines on ${label}:\n  ${broken.join('\n  ')}`);
}

/**
 * Asserts every QR code on the page (`svg.qr`) decodes, as photographed at the current width, to an
 * EIP-681 ERC-20 transfer (tests/helpers/qr.ts) and to the URI printed under it (`[data-eip681]` in
 * its figure). Comparing it with the payment is the test's (qr.ts `expectQrPays`).
 */
async function qrCodesReadAsShown(page: Page, label: string): Promise<void> {
  const decoded = await decodeQrCodes(page);
  const printed: (string | null)[] = await page
    .locator('svg.qr')
    .evaluateAll((els: any[]) => els.map((e) => e.closest('figure')?.querySelector('[data-eip681]')?.textContent ?? null));
  decoded.forEach((text, i) => {
    parseErc20TransferUri(text);
    if (text !== printed[i]) throw new Error(`QR code ${i + 1} on ${label} reads ${text}; the page prints ${printed[i]}`);
  });
}

/** Where screenshots go: `SCREENSHOT_DIR`, else `<repo>/.artifacts/screenshots` (created). */
export function screenshotDir(): string {
  const dir = path.resolve(process.env.SCREENSHOT_DIR || path.join(root, '.artifacts', 'screenshots'));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Options of {@link snapshot}. */
export interface SnapshotOptions {
  /** Also assert {@link noBrokenWords} at every width (the product's pages; the docs' renderer is not held to it). */
  wholeWords?: boolean;
}

/**
 * At 360, 390 and 1280 px wide: asserts {@link noHorizontalScroll} (and {@link noBrokenWords} with
 * `wholeWords`); at 390 and 1280 px also screenshots the whole page (`<name>-390.png`,
 * `<name>-1280.png` in {@link screenshotDir}), runs {@link checkA11y} and decodes every QR code
 * ({@link qrCodesReadAsShown}). The viewport is restored
 * afterwards. Every screenshot is taken even when a check fails; then one error lists every
 * failure. Returns the files written.
 */
export async function snapshot(page: Page, name: string, opts: SnapshotOptions = {}): Promise<string[]> {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const dir = screenshotDir();
  const original = page.viewportSize();
  const files: string[] = [];
  const failures: string[] = [];
  const widths = [...new Set<number>([...PHONE_WIDTHS, ...SCREENSHOT_WIDTHS])].sort((a, b) => a - b);
  try {
    for (const width of widths) {
      await page.setViewportSize({ width, height: original?.height ?? (width <= PHONE_MAX_WIDTH ? PHONE.height : DESKTOP.height) });
      const label = `${name} at ${width}px`;
      const checks = [() => noHorizontalScroll(page, label)];
      if (opts.wholeWords) checks.push(() => noBrokenWords(page, label));
      if ((SCREENSHOT_WIDTHS as readonly number[]).includes(width)) {
        const file = path.join(dir, `${safe}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        files.push(file);
        checks.push(
          async () => {
            await checkA11y(page, label);
          },
          () => qrCodesReadAsShown(page, label),
        );
      }
      for (const check of checks) {
        try {
          await check();
        } catch (e) {
          failures.push(e instanceof Error ? e.message : String(e));
        }
      }
    }
  } finally {
    if (original) await page.setViewportSize(original);
  }
  if (failures.length) throw new Error(`snapshot ${name} (screenshots in ${dir}):\n${failures.join('\n')}`);
  return files;
}
