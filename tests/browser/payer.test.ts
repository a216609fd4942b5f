/**
 * The payer's page in a real browser (issue 22 part 1, issue 38; spec 2.3 `url`/`short_url`, 2.4,
 * 4.1, 8 "Payer fee"): a crypto link opened by its short URL, its payer fee under the spec's name,
 * paid short through `/sim/chain/transfers` and topped up while the page turns underpaid (the
 * crypto top-up wording) then paid without a reload; a EUR link on SEPA showing the IBAN in groups
 * and the one reference to write, paid by `/sim/bank/credits`; the sandbox wallet the sandbox names
 * (on the page and in /sim/docs) paying in one click, and another address refused next to its
 * field; the spec's errors next to their field; the page without JavaScript (reopened: the open
 * payment's instructions, nothing that needs the script, how to see the new status); a cancelled
 * link; the payer's locale; the keyboard. Every state is checked with axe-core, for sideways scroll
 * and for words broken across lines at 360, 390 and 1280 px, and photographed at 390 and 1280 px
 * (tests/helpers/browser.ts `snapshot`).
 */
import type { Browser, Page } from 'playwright-core';
import { db } from '../../lib/db';
import { API, call, client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';
import { activeBankLink, bankCredit } from '../helpers/bank';
import { newPage, openBrowser, snapshot } from '../helpers/browser';
import { allowConsoleError } from '../helpers/page-guard';
import { currentPayment, decodeQrCodes, expectQrPays } from '../helpers/qr';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const document: any;

let browser: Browser;
let merchant: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  merchant = client((await newAccount()).live_key);
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function cryptoLink(amount = '10000', extra: Record<string, unknown> = {}) {
  const l = expectOk(
    await merchant.post('/v1/payment_links', {
      amount: { amount, currency: 'USD', decimals: 2 },
      title: 'Design work',
      memo: 'Sprint 12',
      invoice_number: 'INV-0042',
      accepted_rail_kinds: ['crypto'],
      ...extra,
    }),
    201,
  );
  return expectOk(await merchant.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
}

/** A page URL on the product (the link's url/short_url carry PAYER_HOST, which is the API origin in tests). */
const onProduct = (url: string) => `${API()}${new URL(url).pathname}`;
const text = (page: Page, sel: string) => page.locator(sel).first().innerText();
/** The page's checks and screenshots (tests/helpers/browser.ts), words unbroken at phone widths included. */
const shoot = (page: Page, name: string) => snapshot(page, name, { wholeWords: true });
/** The labels (`<dt>`) of the visible page. */
const labels = (page: Page) => page.locator('main dt:visible').allInnerTexts();
/** Major-unit decimal string ("101.000000") to minor units of `decimals`. */
const minor = (s: string, decimals: number) => {
  const [i, f = ''] = s.split('.');
  return BigInt(i + f.padEnd(decimals, '0').slice(0, decimals));
};

test('a crypto link by its short URL: instructions, paid short, topped up, paid, all without a reload', async () => {
  const link = await cryptoLink('10000');
  const page = await newPage(browser);
  const res = await page.goto(onProduct(link.short_url));
  expect(res!.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe(new URL(link.url).pathname);
  expect(await text(page, 'h1')).toBe('Design work');
  expect(await text(page, '[data-link-amount]')).toBe('$100.00');
  await shoot(page, 'payer-choose-rail');
  // The first open recorded the view (spec 4.1 `view`).
  await eventually(async () => expectOk(await merchant.get(`/v1/payment_links/${link.id}`)).viewed_at, 'viewed_at');

  await page.getByLabel('Stablecoin (USDC)').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await shoot(page, 'payer-rail-form');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-payment-status="awaiting"]');
  await shoot(page, 'payer-awaiting');
  const address = (await text(page, '#pay-address')).trim();
  const due = minor((await text(page, '#pay-amount')).trim(), 6);
  expect(due).toBe(101000000n); // 100.00 USD + the 1% payer fee, in USDC base units
  expect(await text(page, '[data-fee]')).toBe('1.00\u00a0USDC'); // one word: never wraps away from its currency
  // The spec's term for the 1% fee (a "network fee" reads as gas).
  expect(await labels(page)).toEqual(expect.arrayContaining(['Invoice amount', 'Payer fee (1%, paid by you)', 'Total to send']));
  expect(await page.locator('main').innerText()).not.toContain('Network fee');
  // The deposit address in groups of four, its text the address as is.
  expect(await page.locator('#pay-address .grp').count()).toBe(10);
  expect(await page.evaluate(() => document.querySelector('#pay-address').textContent)).toBe(address);
  const chain = (await text(page, '[data-chain]')).trim();
  const asset = (await text(page, '[data-asset]')).trim();
  const uri = (await text(page, '[data-eip681]')).trim();
  expect(uri).toMatch(new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@\\d+/transfer\\?address=${address}&uint256=101000000$`));
  // The QR code, decoded, is the transfer that pays the payment: token, chain, address, amount.
  expect(await expectQrPays(page, await currentPayment(merchant, page.url()))).toBe(uri);

  await page.evaluate(() => {
    (window as unknown as { marker: number }).marker = 42;
  });
  expectOk(await call('POST', '/sim/chain/transfers', { chain, asset, to_address: address, amount: '60000000' }, { idem: null }), 201);
  await page.waitForSelector('[data-payment-status="underpaid"]', { timeout: 30000 });
  expect(await text(page, '[data-amount-remaining]')).toContain('41.00');
  // Crypto has no reference: the top-up goes to the same address.
  expect(await page.locator('main').innerText()).toContain('Send the remaining amount to the same address to complete the payment.');
  expect(await page.locator('main').innerText()).not.toMatch(/same reference/);
  await shoot(page, 'payer-underpaid');
  const remaining = minor((await text(page, '#pay-amount')).trim(), 6);
  expect(remaining).toBe(41000000n);
  // The QR code now asks for exactly the remainder.
  expect(await expectQrPays(page, await currentPayment(merchant, page.url()))).toMatch(/&uint256=41000000$/);

  expectOk(
    await call('POST', '/sim/chain/transfers', { chain, asset, to_address: address, amount: remaining.toString() }, { idem: null }),
    201,
  );
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42); // no reload
  expect(await page.getByRole('heading', { name: 'Receipt', exact: true }).count()).toBe(1);
  // The receipt's transaction hash in groups (a phone wraps it between groups, never its label).
  expect(await page.locator('main dd .ident .grp').count()).toBe(16); // 0x and 64 hex digits
  expect(await labels(page)).toEqual(expect.arrayContaining(['Amount paid', 'Request number', 'Transaction']));
  expect(await decodeQrCodes(page)).toEqual([]); // nothing left to scan
  await shoot(page, 'payer-paid');

  await page.getByLabel('Email address').fill('payer@example.com');
  await page.getByRole('button', { name: 'Send receipt' }).click();
  await page.waitForSelector('text=Receipt sent');
  await page.close();
}, 120000);

test('a EUR link on SEPA shows the IBAN and the reference; a bank credit with that reference turns it paid', async () => {
  const { link } = await activeBankLink('sepa', '25000');
  const page = await newPage(browser, { width: 360, height: 740 });
  await page.goto(onProduct(link.url));
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('#bank-iban');
  const iban = (await text(page, '#bank-iban')).trim();
  const reference = (await text(page, '#bank-reference')).trim();
  expect(iban).toMatch(/^[A-Z]{2}[0-9]{2}[0-9A-Z]+$/); // shown in groups of four, its text without spaces
  expect(await page.locator('#bank-iban .grp').allInnerTexts()).toEqual(iban.match(/.{1,4}/g));
  expect(reference.length).toBeGreaterThan(3);
  expect(await text(page, '[data-amount-due]')).toContain('250.00');
  // One reference to write: the transfer's, marked; the link's own reference is the "Request number".
  const dts = await labels(page);
  expect(dts.filter((l) => /reference/i.test(l))).toEqual(['Transfer reference: write exactly this']);
  expect(dts).toContain('Request number');
  expect(await page.locator('.copyable.strong').count()).toBe(1);
  expect(await page.locator('main').innerText()).toContain('It is the only reference to write');
  await shoot(page, 'payer-sepa-awaiting');
  const credit = expectOk(await bankCredit({ rail: 'sepa', currency: 'EUR', iban, reference }, '25000'), 201);
  expect(credit.matched).toBe(true);
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  await shoot(page, 'payer-sepa-paid');
  await page.close();
}, 90000);

test('the sandbox wallet: the sandbox names it (page and /sim/docs) and pays from it in one click; another address is refused next to its field', async () => {
  const link = await cryptoLink('2500');
  const page = await newPage(browser);
  await page.goto(`${onProduct(link.url)}?rail=crypto_native`);
  const box = page.locator('section.sandbox-box');
  const wallet = (await box.locator('#sbx-wallet').innerText()).trim();
  expect(wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
  // The simulator's reference names the same wallet.
  const simDoc = expectOk(await call('GET', '/sim/openapi.json', undefined, { idem: null }));
  expect(simDoc.info.description).toContain('## The sandbox payer wallet');
  expect(simDoc.info.description).toContain(`\`${wallet}\` is a payer's wallet whose passkey the sandbox holds`);
  await shoot(page, 'payer-sandbox-wallet');

  // Another address: folded away; a wallet the sandbox holds no key for is refused next to its field.
  allowConsoleError(
    page,
    /^Failed to load resource: the server responded with a status of 404 .*\/sandbox_wallet\)$/,
    "the form's answer carries the refusal's status (wallet_not_found, 404) with the page and the error next to the field (api/pages/forms.tsx refusal)",
  );
  await box.getByText('Pay from another sandbox wallet').click();
  await box.getByLabel('Sandbox wallet address').fill('0x52908400098527886E0F7030069857D2E4169EE7');
  await box.getByRole('button', { name: 'SANDBOX: sign and pay' }).click();
  await page.waitForSelector('#sbx-from_address-error');
  expect(await page.getAttribute('#sbx-from_address', 'aria-invalid')).toBe('true');
  expect(await text(page, '#sbx-from_address-error')).toContain('The sandbox holds no passkey for that wallet.');
  expect(await page.locator('section.sandbox-box details').getAttribute('open')).not.toBeNull();
  await shoot(page, 'payer-wallet-error');

  // The named wallet pays, with nothing funded beforehand.
  await page.getByRole('button', { name: 'SANDBOX: pay from the sandbox wallet' }).click();
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  expect(await text(page, '[data-receipt-amount]')).toContain('25.25');
  const [sent] = await db().query(
    'SELECT from_address, amount_minor FROM sandbox_chain_transfers WHERE lower(from_address) = lower($1) ORDER BY seq DESC LIMIT 1',
    [wallet],
  );
  expect(sent).toEqual({ from_address: wallet, amount_minor: '25250000' });
  await page.close();
}, 90000);

test('errors of the transfer rail render next to their field; the whole journey works with JavaScript off', async () => {
  const link = await cryptoLink('5000');
  const page = await newPage(browser, { javaScriptEnabled: false });
  await page.goto(onProduct(link.url));
  await page.getByLabel('Stablecoin transfer from your own address').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  allowConsoleError(
    page,
    /^Failed to load resource: the server responded with a status of 400 .*\/payments\)$/,
    "the form's answer carries the refusal's status (invalid_request, 400) with the page and the error next to the field (api/pages/forms.tsx refusal)",
  );
  await page.getByLabel('Your sending address (optional)').fill('0x123');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  expect(await text(page, '#f-source_address-error')).toContain('source_address');
  expect(await page.getAttribute('#f-source_address', 'aria-invalid')).toBe('true');
  await shoot(page, 'payer-field-error-nojs');
  await page.getByLabel('Your sending address (optional)').fill('');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-payment-status="awaiting"]');
  await expectQrPays(page, await currentPayment(merchant, page.url()));
  await page.getByRole('button', { name: 'I have sent it' }).click();
  expect(await page.locator('text=You said you sent it').count()).toBe(1);
  await page.close();

  // Reopened without JavaScript, by the short URL in a fresh browser: the open payment's
  // instructions (not the rail choice), no copy button (it needs the script), and how to see the
  // new status: a reload, with a link to do it.
  const again = await newPage(browser, { javaScriptEnabled: false });
  await again.goto(onProduct(link.short_url));
  await again.waitForSelector('[data-payment-status="awaiting"]');
  expect(await again.locator('#pay-address').isVisible()).toBe(true);
  await expectQrPays(again, await currentPayment(merchant, again.url()));
  expect(await again.locator('input[name="rail"]').count()).toBe(0);
  expect(await again.locator('button.copy').count()).toBeGreaterThan(0);
  expect(await again.locator('button.copy:visible, .live-note:visible, [data-countdown]:visible').count()).toBe(0);
  const reload = again.locator('[data-reload-note]');
  expect(await reload.isVisible()).toBe(true);
  expect(await reload.innerText()).toBe('The status here changes only when you reload the page. Refresh to see the latest status');
  await shoot(again, 'payer-reopened-nojs');
  await again.getByRole('link', { name: 'Refresh to see the latest status' }).click();
  expect(new URL(again.url()).pathname).toBe(new URL(link.url).pathname);
  expect(await again.locator('text=You said you sent it').count()).toBe(1);
  // Choosing another way keeps a way back to the payment started.
  await again.getByRole('link', { name: 'Pay another way' }).click();
  expect(await again.locator('input[name="rail"]').count()).toBeGreaterThan(1);
  await again.getByRole('link', { name: 'Back to the payment you started' }).click();
  await again.waitForSelector('#pay-address');
  expect(await again.locator('input[name="rail"]').count()).toBe(0);
  await again.close();

  // With JavaScript: the copy buttons and the live note instead of the reload note.
  const withJs = await newPage(browser);
  await withJs.goto(onProduct(link.url));
  await withJs.locator('button.copy').first().waitFor({ state: 'visible' });
  expect(await withJs.locator('.live-note').isVisible()).toBe(true);
  expect(await withJs.locator('[data-reload-note]').isVisible()).toBe(false);
  await shoot(withJs, 'payer-marked-sent');
  await withJs.close();
}, 90000);

test("a cancelled link says so; the payer's locale formats the amount", async () => {
  const link = await cryptoLink('123456');
  const page = await newPage(browser, { locale: 'de-DE' });
  await page.goto(onProduct(link.url));
  expect(await text(page, '[data-link-amount]')).toBe('1.234,56\u00a0$');
  expectOk(await merchant.post(`/v1/payment_links/${link.id}/cancel`, {}));
  await page.waitForSelector('[data-link-status="cancelled"]', { timeout: 15000 });
  await shoot(page, 'payer-cancelled');
  await page.close();
}, 60000);

/** Presses Tab until the focused element's text or label matches `name` (at most 40 presses). */
async function tabTo(page: Page, name: RegExp): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return '';
      const label = el.id ? (document.querySelector(`label[for="${el.id}"]`)?.textContent ?? '') : '';
      return `${el.textContent ?? ''} ${label} ${el.closest('label')?.textContent ?? ''}`;
    });
    if (name.test(focused)) return;
  }
  throw new Error(`no focusable element matching ${name}`);
}

test('keyboard only: choose the rail, start the payment, reach the instructions and the copy button', async () => {
  const link = await cryptoLink('4200');
  const page = await newPage(browser, { width: 360, height: 740 });
  await page.goto(onProduct(link.url));
  await tabTo(page, /Stablecoin \(USDC\)/);
  await page.keyboard.press('ArrowDown'); // radios move with the arrows
  await page.keyboard.press('ArrowUp');
  await tabTo(page, /Continue/);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#railform-h');
  await tabTo(page, /Your email/);
  await page.keyboard.type('kb@example.com');
  await tabTo(page, /Show payment details/);
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-payment-status="awaiting"]');
  await tabTo(page, /Copy/);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-copy'))).toBe('pay-address');
  await page.close();
}, 60000);
