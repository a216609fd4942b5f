/**
 * `npm run bench:docs`: how fast the served docs draw in a browser (issue 38 point 6), on a throwaway
 * stack (bench/harness.ts), in Debian's Chromium (`CHROMIUM_PATH`, else `chromium` on PATH, as the
 * browser tests find it; playwright-core drives it, never downloads one). For each page (`/docs`, the largest areas' pages, `/docs/webhooks`, `/docs/errors`,
 * `/docs/guides`, `/sim/docs`) at 1280 and 390 px, BENCH_DOCS_RUNS (7) fresh browser contexts (no
 * cache) after one warm-up: the time from the navigation's start to the first operation visible
 * (the page's first operation row `.op-list a`, else a guide's link, else its first `article` child;
 * Playwright's `visible`), First Contentful Paint, and `load`; the HTML's size. Prints p50 and max per page;
 * target: p50 of the first operation visible under 2,000 ms on every page; exit 1 when missed.
 * Env: BENCH_DOCS_RUNS (7), BENCH_DOCS_BUDGET_MS (2000).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { pct, runBench } from './harness';

const RUNS = Number(process.env.BENCH_DOCS_RUNS ?? 7);
const BUDGET_MS = Number(process.env.BENCH_DOCS_BUDGET_MS ?? 2000);
const log = (m: string) => process.stderr.write(`[bench:docs] ${m}\n`);

/** The pages measured: the reference's index, its two largest areas, the events, and the other docs. */
const PAGES = [
  '/docs',
  '/docs/reference/wallet',
  '/docs/reference/payment_links',
  '/docs/webhooks',
  '/docs/errors',
  '/docs/guides',
  '/sim/docs',
];
const WIDTHS = [1280, 390];
/** What counts as the first operation visible: an operation's row, else a guide's link, else the first part of an article. */
const FIRST_CONTENT = 'main .op-list a, main .guide-list a, main article > *';

// The functions passed to page.evaluate run in the page; the bench compiles without the DOM library.
declare const performance: {
  getEntriesByName(n: string): Array<{ startTime: number }>;
  getEntriesByType(t: string): Array<{ loadEventEnd: number }>;
};
declare const document: { documentElement: { outerHTML: string } };

interface Sample {
  firstOp: number;
  fcp: number;
  load: number;
  bytes: number;
}

/** The Chromium executable: `CHROMIUM_PATH`, else `chromium` on PATH. */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const found = execFileSync('/bin/sh', ['-c', 'command -v chromium || true'], { encoding: 'utf8' }).trim();
  if (!found) throw new Error('Chromium not found: `apt-get install -y chromium`, or set CHROMIUM_PATH');
  return found;
}

runBench({ name: 'bench:docs', tag: 'bench-docs', log }, async (stack) => {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'], headless: true });
  const rows: string[] = [];
  let missed = 0;
  try {
    for (const width of WIDTHS) {
      for (const path of PAGES) {
        const samples: Sample[] = [];
        for (let i = 0; i <= RUNS; i++) {
          const context = await browser.newContext({
            viewport: { width, height: width <= 480 ? 740 : 900 },
            isMobile: width <= 480,
            hasTouch: width <= 480,
          });
          const page = await context.newPage();
          const t0 = Date.now();
          const res = await page.goto(`${stack.apiUrl}${path}`, { waitUntil: 'commit' });
          if (res?.status() !== 200) throw new Error(`GET ${path} answered ${res?.status()}`);
          await page.locator(FIRST_CONTENT).first().waitFor({ state: 'visible', timeout: 60_000 });
          const firstOp = Date.now() - t0;
          await page.waitForLoadState('load');
          const timing = await page.evaluate(() => ({
            fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
            load: performance.getEntriesByType('navigation')[0]?.loadEventEnd ?? NaN,
            bytes: document.documentElement.outerHTML.length,
          }));
          await context.close();
          if (i > 0) samples.push({ firstOp, ...timing }); // the first run warms the server (the document is built once)
        }
        const stat = (k: keyof Sample) => {
          const v = samples.map((s) => s[k]).sort((a, b) => a - b);
          return { p50: Math.round(pct(v, 50)), max: Math.round(v[v.length - 1]) };
        };
        const first = stat('firstOp');
        if (first.p50 > BUDGET_MS) missed++;
        rows.push(
          `| ${path} | ${width} | ${first.p50} / ${first.max} | ${stat('fcp').p50} | ${stat('load').p50} | ${Math.round(samples[0].bytes / 1024)} |`,
        );
        log(`${path} at ${width}px: first operation visible p50 ${first.p50} ms (max ${first.max})`);
      }
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(
    [
      `[bench:docs] ${RUNS} fresh contexts per page after one warm-up; times in ms from the navigation's start`,
      '| page | width | first operation visible p50 / max | FCP p50 | load p50 | HTML KB |',
      '|---|---|---|---|---|---|',
      ...rows,
      `target: p50 of the first operation visible under ${BUDGET_MS} ms on every page: ${missed ? `MISSED on ${missed}` : 'met'}`,
    ].join('\n') + '\n',
  );
  if (missed) process.exitCode = 1;
});
