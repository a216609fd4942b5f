/**
 * The browser tier's guard against what a person's browser would complain about: every page
 * {@link ../helpers/browser.ts newPage} makes records its Content-Security-Policy violations (the
 * document's `securitypolicyviolation` events, and Chromium's own console reports of them, which
 * arrive with JavaScript off too), its console errors (a failed resource load included) and its
 * uncaught exceptions (`pageerror`). After each test (and after the file's last) every guarded page
 * must have recorded none: the test fails listing them.
 *
 * A test that provokes an error on purpose says so on the page, with the reason:
 *
 *   allowConsoleError(page, /status of 404 .*\(at .*\/pay\/plk_doesnotexist\)$/, 'the page under test is the 404 page');
 *
 * an allowance must match at least once (an expectation that never happened fails too), and it
 * covers console messages only: a CSP violation or an uncaught exception is never allowed.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** One allowed console error: what it matches, why it is expected, how often it matched. */
interface Allowance {
  pattern: RegExp;
  reason: string;
  matched: number;
}

/** A guarded page's record. */
interface Guard {
  page: Page;
  /** Problems not yet reported by a check. */
  problems: string[];
  allowances: Allowance[];
}

const guards = new Map<Page, Guard>();

/** The binding the page's listener calls with each violation (exposed on the context by {@link guardContext}). */
const BINDING = '__pageGuardCspViolation';

/**
 * Runs in every document before its own scripts (CDP-injected, so the page's CSP does not apply to
 * it): forwards each `securitypolicyviolation` event to {@link BINDING}.
 */
const LISTENER = `document.addEventListener('securitypolicyviolation', (e) => {
  const report = window['${BINDING}'];
  if (typeof report === 'function')
    report({ directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber, sample: e.sample, disposition: e.disposition });
}, true);`;

interface Violation {
  directive: string;
  blocked: string;
  source: string;
  line: number;
  sample: string;
  disposition: string;
}

/** The guard of `page`, made on first use. */
function guardOf(page: Page): Guard {
  let g = guards.get(page);
  if (!g) {
    g = { page, problems: [], allowances: [] };
    guards.set(page, g);
  }
  return g;
}

/** Chromium's console reports of the Content Security Policy (a violation, or a directive it ignores: a warning). */
const CSP_REPORT = /Content[- ]Security[- ]Policy/i;

/** Attaches the console and exception listeners to `page`. */
function watch(page: Page): void {
  const g = guardOf(page);
  page.on('console', (m) => {
    const csp = CSP_REPORT.test(m.text());
    if (m.type() !== 'error' && !csp) return;
    const where = m.location().url;
    const message = `${m.text()}${where ? ` (at ${where})` : ''}`;
    const allowed = !csp && m.type() === 'error' && g.allowances.find((a) => a.pattern.test(message));
    if (allowed) allowed.matched += 1;
    else g.problems.push(`console.${m.type()}: ${message}`);
  });
  page.on('pageerror', (e) => {
    g.problems.push(`uncaught exception: ${e.message}`);
  });
}

/**
 * Guards every page of `context` (call it before the context's first page): the CSP listener is
 * injected into every document and each page gets the console and exception listeners.
 */
export async function guardContext(context: BrowserContext): Promise<void> {
  await context.exposeBinding(BINDING, ({ page }, v: Violation) => {
    if (!page) return;
    guardOf(page).problems.push(
      `CSP violation (${v.disposition}): ${v.directive} blocked ${v.blocked || '(none)'} at ${v.source || '(document)'}:${v.line}${v.sample ? ` "${v.sample}"` : ''}`,
    );
  });
  await context.addInitScript(LISTENER);
  context.on('page', watch);
}

/**
 * Allows console errors matching `pattern` (tested against the message and ` (at <url>)`, the
 * document or resource it came from) on `page` from now on (console messages only; a CSP
 * violation or an uncaught exception is never allowed), because `reason` makes them the expected
 * behaviour. The allowance must match at least once before the check, else the check fails.
 */
export function allowConsoleError(page: Page, pattern: RegExp, reason: string): void {
  if (!reason.trim()) throw new Error('allowConsoleError needs the reason the error is expected');
  guardOf(page).allowances.push({ pattern, reason, matched: 0 });
}

/**
 * What `page` reported since the last check (flushed first: an open page answers one evaluation, so
 * every event Chromium sent before it has arrived), and the allowances that never matched; clears
 * both. The planted checks read it; the after-test check below fails on a non-empty answer.
 */
export async function takeProblems(page: Page): Promise<string[]> {
  const g = guardOf(page);
  if (!page.isClosed()) await page.evaluate('0').catch(() => undefined);
  const unmatched = g.allowances
    .filter((a) => a.matched === 0)
    .map((a) => `expected console error never happened: ${a.pattern} (${a.reason})`);
  const out = [...g.problems, ...unmatched];
  g.problems = [];
  g.allowances = g.allowances.filter((a) => a.matched > 0);
  if (page.isClosed()) guards.delete(page);
  return out;
}

/** Checks every guarded page; throws listing each page's problems. */
async function checkAll(when: string): Promise<void> {
  const report: string[] = [];
  for (const page of [...guards.keys()]) {
    const url = page.isClosed() ? '(closed page)' : page.url();
    const problems = await takeProblems(page);
    if (problems.length) report.push(`${url}:\n    ${problems.join('\n    ')}`);
  }
  if (report.length)
    throw new Error(
      `${when}: the browser reported problems (tests/helpers/page-guard.ts; allow an expected console error with allowConsoleError):\n  ${report.join('\n  ')}`,
    );
}

// Every test of a file that imports the browser helpers ends with the check.
if (typeof afterEach === 'function') {
  afterEach(() => checkAll('after the test'));
  afterAll(() => checkAll('after the last test'));
}
