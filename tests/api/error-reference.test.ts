/**
 * Errors that explain themselves (issue 23 part 2; spec 7) over HTTP against the shared stack:
 * an unknown body key names its nearest known field ("did you mean"), the envelope's `doc_url` is
 * the code's entry on the product's own error reference (`/docs/errors#<code>`), and that page
 * (HTML) has an element with the code as its id for every registered code. The test stack runs
 * with STRICT_ERROR_CODES, so no answer here carries `Error-Code-Unregistered`.
 */
import { allErrorCodes } from '../../domain/error-codes';
import { UNREGISTERED_CODE_HEADER } from '../../api/middleware/errors';
import { API, client, expectError, newAccount } from '../helpers/api';

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

test('a misspelt body key names its nearest known field; doc_url lands on its entry of the error reference', async () => {
  const acct = await newAccount();
  const k = client(acct.live_key);
  const res = await k.post('/v1/payment_links', { amount: usd('1000'), title: 'Typo', acepted_rail_kinds: ['crypto'] });
  expectError(res, 400, 'invalid_request', 'parameter_unknown', 'acepted_rail_kinds');
  const e = res.body.error;
  expect(e.message).toBe('Unknown body parameter: `acepted_rail_kinds`; did you mean `accepted_rail_kinds`?');
  expect(e.details).toEqual({ did_you_mean: 'accepted_rail_kinds' });
  expect(res.headers.get(UNREGISTERED_CODE_HEADER)).toBeNull();

  // The product's own docs: the same origin as the API unless DOCS_BASE_URL says otherwise.
  const url = new URL(e.doc_url);
  expect([url.origin, url.pathname, url.hash]).toEqual([
    new URL(process.env.PAYER_HOST ?? API()).origin,
    '/docs/errors',
    '#parameter_unknown',
  ]);

  const page = await fetch(`${API()}${url.pathname}`, { headers: { accept: 'text/html' } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('id="parameter_unknown"');
  expect(html).toContain('did_you_mean');
});

test('the error reference has an anchor for every registered code and no script', async () => {
  const html = await (await fetch(`${API()}/docs/errors`)).text();
  const missing = allErrorCodes()
    .filter((e) => !html.includes(`id="${e.code}"`))
    .map((e) => e.code);
  expect(missing).toEqual([]);
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
  const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  expect(ids.length).toBe(new Set(ids).size);
});

test('a close but unrelated key gets no suggestion', async () => {
  const acct = await newAccount();
  const res = await client(acct.live_key).post('/v1/payment_links', { amount: usd('1000'), title: 'x', colour: 'red' });
  expectError(res, 400, 'invalid_request', 'parameter_unknown', 'colour');
  expect(res.body.error.details).toBeUndefined();
});
