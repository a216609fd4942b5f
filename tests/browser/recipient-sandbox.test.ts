/**
 * The payroll recipient's page and the sandbox's hosted provider pages in a real browser (issue 22
 * parts 2 and 3; tests/api/pages-recipient-sandbox.test.ts covers the same pages over plain HTTP):
 * - `/payroll/<prk_token>` on a phone: a bad routing number refused next to its field, then a good
 *   one accepted and shown masked without the form (and pending on the recipient through /v1); the
 *   same submission with the keyboard only; an unknown, a malformed and a replaced token answering
 *   one identical 404 page (no oracle);
 * - `/sandbox/kyc/...`, `/sandbox/checkout/...`, `/sandbox/orders/...`: each page's SANDBOX buttons
 *   clicked through to the customer approved, the credits granted and the order completed (read
 *   back through /v1).
 * The recipient page names whom the payment is for, as the payer wrote it. Every page carries the
 * SANDBOX banner; every state is checked with axe-core, for sideways scroll and for words broken
 * across lines at 360, 390 and 1280 px, and photographed at 390 and 1280 px (tests/helpers/browser.ts
 * `snapshot`).
 */
import crypto from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { API, client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';
import { newPage, openBrowser, PHONE, snapshot } from '../helpers/browser';
import { allowConsoleError } from '../helpers/page-guard';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const document: any;

let browser: Browser;
let merchant: ReturnType<typeof client>;
let n = 0;
const email = (who: string) => `${who}.${process.pid}.${++n}.${Date.now()}@example.com`;

beforeAll(async () => {
  await connectDb();
  merchant = client((await newAccount()).live_key);
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** The page's checks and screenshots (tests/helpers/browser.ts), words unbroken at phone widths included. */
const shoot = (page: Page, name: string) => snapshot(page, name, { wholeWords: true });
/** A page URL on the product: the handed-out URLs carry PAYER_HOST, which the test stack serves at the API origin. */
const onProduct = (url: string) => {
  const u = new URL(url);
  return `${API()}${u.pathname}${u.search}`;
};
/** The page without its per-response CSP nonces (two renderings of one page compare equal). */
const withoutNonces = (html: string) => html.replace(/ nonce="[^"]*"/g, '');

/** Asserts the page carries the SANDBOX banner. */
async function expectSandboxBanner(page: Page): Promise<void> {
  const banner = page.locator('.sandbox-banner');
  expect(await banner.count()).toBe(1);
  expect(await banner.innerText()).toContain('SANDBOX');
}

/** A USD run paying one recipient `amount` (minor units); its item, the item's recipient id, and the session token of one reissue. */
async function recipientLink(amount: string): Promise<{ runId: string; itemId: string; recipientId: string; token: string }> {
  const run = expectOk(
    await merchant.post('/v1/payroll_runs', {
      title: 'November payroll',
      currency: 'USD',
      pay_period_start: '2026-11-01',
      pay_period_end: '2026-11-30',
      rows: [{ email: email('ana'), name: 'Ana Diaz', amount: { amount, currency: 'USD', decimals: 2 }, memo: 'Thanks for November' }],
    }),
    201,
  );
  const [item] = expectOk(await merchant.get(`/v1/payroll_runs/${run.id}/items`)).data as Array<{ id: string; recipient: { id: string } }>;
  const token = await reissue(run.id, item.id);
  return { runId: run.id, itemId: item.id, recipientId: item.recipient.id, token };
}

/** Reissues the item's recipient link; returns the new `prk_` token. */
async function reissue(runId: string, itemId: string): Promise<string> {
  const re = expectOk(await merchant.post(`/v1/payroll_runs/${runId}/items/${itemId}/reissue_link`, {}));
  expect(re.recipient_session.token).toMatch(/^prk_/);
  return re.recipient_session.token as string;
}

/** What {@link tabTo} knows of the focused element. */
interface Focused {
  tag: string;
  id: string;
  name: string;
  type: string;
  value: string;
  text: string;
}

/**
 * Presses Tab (Shift+Tab when `backwards`) until the focused element satisfies `matches`, at most
 * `maxPresses` times; throws naming the focus path when it never does. Returns the element reached.
 */
async function tabTo(
  page: Page,
  matches: (el: Focused) => boolean,
  what: string,
  opts: { backwards?: boolean; maxPresses?: number } = {},
): Promise<Focused> {
  const path: string[] = [];
  for (let i = 0; i < (opts.maxPresses ?? 60); i++) {
    await page.keyboard.press(opts.backwards ? 'Shift+Tab' : 'Tab');
    const el: Focused = await page.evaluate(() => {
      const a = document.activeElement;
      return {
        tag: String(a?.tagName ?? '').toLowerCase(),
        id: String(a?.id ?? ''),
        name: String(a?.getAttribute?.('name') ?? ''),
        type: String(a?.getAttribute?.('type') ?? ''),
        value: String(a?.value ?? ''),
        text: String(a?.innerText ?? '').trim(),
      };
    });
    if (matches(el)) return el;
    path.push(
      el.id
        ? `#${el.id}`
        : `${el.tag}${el.name ? `[name=${el.name}]` : ''}${el.value ? `[value=${el.value}]` : ''}${el.text ? `("${el.text.slice(0, 30)}")` : ''}`,
    );
  }
  throw new Error(`tabTo: never reached ${what}; focus went ${path.join(' -> ')}`);
}
const byId = (id: string) => (el: Focused) => el.id === id;
const radio = (name: string, value: string) => (el: Focused) =>
  el.tag === 'input' && el.type === 'radio' && el.name === name && el.value === value;

describe('the payroll recipient page in a browser', () => {
  test('on a phone: a bad routing number is refused next to its field, a good one is accepted and shown masked; pending on the recipient', async () => {
    const { recipientId, token } = await recipientLink('250000');
    const page = await newPage(browser, { width: PHONE.width, height: PHONE.height });
    const res = await page.goto(`${API()}/payroll/${token}`);
    expect(res!.status()).toBe(200);
    await expectSandboxBanner(page);
    expect(await page.locator('h1').innerText()).toContain('Payment from');
    // Whom it is for, as the payer wrote the name.
    expect(await page.locator('[data-recipient-name]').innerText()).toBe('For Ana Diaz');
    expect(await page.locator('.amount').first().innerText()).toBe('$2,500.00');
    await shoot(page, 'recipient-open');
    allowConsoleError(
      page,
      /^Failed to load resource: the server responded with a status of 400 .*\/destination\)$/,
      "the form's answer to the bad routing number carries the refusal's status (400) with the page and the error next to the field",
    );

    await page.getByLabel('A bank account').check();
    await page.getByLabel('Individual').check();
    await page.getByLabel('Account holder name').fill('Ana Diaz');
    await page.getByLabel('Routing number (9 digits)').fill('123456789'); // fails the ABA checksum
    await page.getByLabel('Account number', { exact: true }).fill('000123456789');
    await page.getByRole('button', { name: 'Save payment details' }).click();
    await page.waitForSelector('#f-routing_number-error');
    await expectSandboxBanner(page);
    const routing = page.getByLabel('Routing number (9 digits)');
    expect(await routing.getAttribute('aria-invalid')).toBe('true');
    expect(await routing.getAttribute('aria-describedby')).toBe('f-routing_number-error');
    expect(await page.locator('#f-routing_number-error').innerText()).toBe(
      'Enter a valid routing number: 9 digits with a valid check digit.',
    );
    expect(await routing.inputValue()).toBe('123456789'); // the values typed are kept
    expect(await page.getByLabel('Account number', { exact: true }).inputValue()).toBe('000123456789');
    expect(await page.getByLabel('Account number', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByRole('alert').count()).toBeGreaterThan(0);
    await shoot(page, 'recipient-field-error');
    // Nothing stored yet.
    expect(expectOk(await merchant.get(`/v1/payroll_recipients/${recipientId}`)).pending_destination).toBeNull();

    await routing.fill('021000021');
    await page.getByRole('button', { name: 'Save payment details' }).click();
    await page.waitForSelector('text=ending in 6789');
    expect(new URL(page.url()).pathname).toBe(`/payroll/${token}`);
    await expectSandboxBanner(page);
    const shown = await page.locator('main').innerText();
    expect(shown).toContain('Your details were sent and are waiting for the payer to approve them');
    expect(shown).toContain('021000021');
    expect(shown).not.toContain('000123456789');
    expect(shown).toContain('Your details were received. This link cannot be used again');
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.locator('input, select').count()).toBe(0);
    await shoot(page, 'recipient-submitted');

    const rcp = expectOk(await merchant.get(`/v1/payroll_recipients/${recipientId}`));
    expect(rcp.destination).toBeNull();
    expect(rcp.pending_destination).toMatchObject({
      submitted_at: expect.any(String),
      destination: { type: 'bank_account', bank: { account_holder_name: 'Ana Diaz', rail: 'ach', account_number_last4: '6789' } },
    });
    await page.close();
  });

  test('the bank account submission completes with the keyboard only', async () => {
    const { recipientId, token } = await recipientLink('80000');
    const page = await newPage(browser);
    await page.goto(`${API()}/payroll/${token}`);

    // Receive to: a bank account (an unchecked radio group is one Tab stop; Space checks it).
    await tabTo(page, radio('type', 'bank_account'), 'the "A bank account" radio');
    await page.keyboard.press('Space');
    await tabTo(page, radio('account_owner_type', 'individual'), 'the "Individual" radio');
    await page.keyboard.press('Space');
    await tabTo(page, byId('f-account_holder_name'), 'the account holder name');
    await page.keyboard.type('Ana Diaz');
    await tabTo(page, byId('f-routing_number'), 'the routing number');
    await page.keyboard.type('011000015');
    await tabTo(page, byId('f-account_number'), 'the account number');
    await page.keyboard.type('000555554321');
    // Shift+Tab goes back the same way: fix a typo in the routing number.
    await tabTo(page, byId('f-routing_number'), 'the routing number, backwards', { backwards: true, maxPresses: 5 });
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('5');
    expect(await page.isChecked('input[name="type"][value="bank_account"]')).toBe(true);
    expect(await page.isChecked('input[name="account_owner_type"][value="individual"]')).toBe(true);
    expect(await page.isChecked('input[name="rail"][value="ach"]')).toBe(true);
    expect(await page.inputValue('#f-routing_number')).toBe('011000015');

    await tabTo(page, (el) => el.tag === 'button' && el.text === 'Save payment details', 'the submit button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('text=ending in 4321');
    expect(new URL(page.url()).pathname).toBe(`/payroll/${token}`);
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('011000015');
    const rcp = expectOk(await merchant.get(`/v1/payroll_recipients/${recipientId}`));
    expect(rcp.pending_destination).toMatchObject({
      destination: {
        type: 'bank_account',
        bank: { account_holder_name: 'Ana Diaz', account_number_last4: '4321', routing_number: '011000015' },
      },
    });
    await page.close();
  });

  test('an unknown, a malformed and a replaced token render the same 404 page', async () => {
    const { runId, itemId, token: first } = await recipientLink('10000');
    const second = await reissue(runId, itemId); // the first token is now replaced
    expect(second).not.toBe(first);
    const page = await newPage(browser);
    allowConsoleError(
      page,
      /^Failed to load resource: the server responded with a status of 404/,
      'Chromium logs the 404 of the document: the three tokens open the 404 page on purpose',
    );
    const open = async (path: string) => {
      const res = await page.goto(`${API()}${path}`);
      expect(res).not.toBeNull();
      return { status: res!.status(), html: await res!.text() };
    };
    const unknown = await open('/payroll/prk_doesnotexist');
    const malformed = await open('/payroll/%3Cscript%3E');
    const replaced = await open(`/payroll/${first}`);
    for (const p of [unknown, malformed, replaced]) expect(p.status).toBe(404);
    expect(withoutNonces(malformed.html)).toBe(withoutNonces(unknown.html));
    expect(withoutNonces(replaced.html)).toBe(withoutNonces(unknown.html));
    expect(unknown.html).toContain('This link does not work');
    expect(unknown.html).not.toContain('prk_doesnotexist');
    expect(malformed.html).not.toContain('<script>');
    await expectSandboxBanner(page);
    expect(await page.locator('h1').count()).toBe(1);
    await shoot(page, 'recipient-not-found');
    // The reissued token works.
    expect((await open(`/payroll/${second}`)).status).toBe(200);
    await page.close();
  });
});

describe('the sandbox hosted provider pages in a browser', () => {
  const expectSandboxPage = async (page: Page) => {
    await expectSandboxBanner(page);
    expect(await page.locator('h1 .tag').innerText()).toBe('SANDBOX');
  };
  const buttonLabels = (page: Page) => page.locator('button[name="action"]').allInnerTexts();

  test('KYC verification link: accept the terms, then approve; the customer is approved', async () => {
    const s = client((await newAccount()).session_token);
    const c = expectOk(await s.post('/v1/customers', { customer_type: 'business', legal_name: 'Browser Sandbox Ltd' }), 201);
    const tos = expectOk(await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'tos' }), 201);
    const page = await newPage(browser);
    expect((await page.goto(onProduct(tos.url)))!.status()).toBe(200);
    await expectSandboxPage(page);
    expect(await page.locator('main').innerText()).toContain('Terms of service');
    expect(await buttonLabels(page)).toEqual([
      'SANDBOX: accept the terms',
      'SANDBOX: approve',
      'SANDBOX: request more information',
      'SANDBOX: decline',
    ]);
    await shoot(page, 'sandbox-kyc-tos');

    await page.getByRole('button', { name: 'SANDBOX: accept the terms', exact: true }).click();
    await page.waitForSelector('text=The terms are accepted.');
    await expectSandboxPage(page);
    expect(await page.locator('main').innerText()).toContain('The verification is under review.');
    expect(await buttonLabels(page)).toEqual(['SANDBOX: approve', 'SANDBOX: request more information', 'SANDBOX: decline']);
    await shoot(page, 'sandbox-kyc-review');

    await page.getByRole('button', { name: 'SANDBOX: approve', exact: true }).click();
    await page.waitForSelector('text=The verification is approved.');
    const approved = await eventually(async () => {
      const x = expectOk(await s.get(`/v1/customers/${c.id}`));
      return x.verification_state === 'approved' ? x : null;
    }, 'the customer approved');
    expect(approved).toMatchObject({ verification_state: 'approved', requirements_due: [] });
    await expectSandboxPage(page);
    expect(await buttonLabels(page)).toEqual(['SANDBOX: request more information', 'SANDBOX: decline']);
    await shoot(page, 'sandbox-kyc-done');
    await page.close();
  });

  test('credit checkout: pay shows the paid state and grants the credits', async () => {
    const s = client((await newAccount()).session_token);
    const before = expectOk(await s.get('/v1/credits')).paid_balance as number;
    const co = expectOk(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    const page = await newPage(browser);
    expect((await page.goto(onProduct(co.url)))!.status()).toBe(200);
    await expectSandboxPage(page);
    const main = () => page.locator('main').innerText();
    expect(await main()).toContain('The checkout is open.');
    expect(await main()).toContain('5 screening credits');
    expect(await buttonLabels(page)).toEqual(['SANDBOX: pay', 'SANDBOX: payment fails', 'SANDBOX: abandon']);
    await shoot(page, 'sandbox-checkout-open');

    await page.getByRole('button', { name: 'SANDBOX: pay', exact: true }).click();
    await page.waitForSelector('text=The checkout is paid.');
    expect(new URL(page.url()).pathname).toBe(new URL(co.url).pathname);
    await expectSandboxPage(page);
    expect(await buttonLabels(page)).toEqual([]);
    await shoot(page, 'sandbox-checkout-paid');
    const after = await eventually(async () => {
      const b = expectOk(await s.get('/v1/credits')).paid_balance as number;
      return b === before + 5 ? b : null;
    }, 'the 5 credits granted');
    expect(after).toBe(before + 5);
    await page.close();
  });

  test('order card checkout: pay completes the order', async () => {
    const q = expectOk(
      await merchant.post('/v1/quotes', {
        side: 'buy',
        from_asset: 'USD',
        to_asset: 'USDC',
        from_amount: '300.00',
        to_network: 'base',
        payment_method: 'card',
      }),
      201,
    );
    const offer = q.offers.find((o: { provider: { id: string } }) => o.provider.id === 'rampline') ?? q.offers[0];
    const o = expectOk(
      await merchant.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: `0x${crypto.randomBytes(20).toString('hex')}` }),
      201,
    );
    const url = o.next_action.redirect_to_url.url as string;
    expect(url).toMatch(/\/sandbox\/orders\/prv_[0-9a-f]+$/);
    const page = await newPage(browser);
    expect((await page.goto(onProduct(url)))!.status()).toBe(200);
    await expectSandboxPage(page);
    const main = () => page.locator('main').innerText();
    expect(await page.locator('.amount').first().innerText()).toBe('$300.00');
    expect(await main()).toContain('The order is waiting for payment.');
    expect(await buttonLabels(page)).toEqual(['SANDBOX: pay', 'SANDBOX: payment fails', 'SANDBOX: abandon']);
    await shoot(page, 'sandbox-order-open');

    await page.getByRole('button', { name: 'SANDBOX: pay', exact: true }).click();
    await page.waitForSelector('text=The order is paid and delivered.');
    const done = await eventually(
      async () => {
        const x = expectOk(await merchant.get(`/v1/orders/${o.id}`));
        return x.status === 'completed' || x.status === 'failed' ? x : null;
      },
      `order ${o.id} closed`,
      20000,
    );
    expect(done).toMatchObject({
      status: 'completed',
      money_state: 'captured',
      payout_destination: { tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    await page.reload();
    await expectSandboxPage(page);
    expect(await main()).toContain('The order is paid and delivered.');
    expect(await buttonLabels(page)).toEqual([]);
    await shoot(page, 'sandbox-order-paid');
    await page.close();
  });
});
