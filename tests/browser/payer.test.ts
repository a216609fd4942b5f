/**
 * The payer's page in a real browser (issue 22 part 1; spec 2.3 `url`/`short_url`, 2.4, 4.1): a
 * crypto link opened by its short URL, paid short through `/sim/chain/transfers` and topped up while
 * the page turns underpaid then paid without a reload; a EUR link on SEPA showing the IBAN and the
 * reference, paid by `/sim/bank/credits`; the sandbox wallet button end to end; the spec's errors
 * next to their field; the page without JavaScript; a cancelled link; the payer's locale. Every
 * state is checked with axe-core and photographed at 360 px and 1280 px (tests/helpers/browser.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { API, call, client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';
import { activeBankLink, bankCredit } from '../helpers/bank';
import { newPage, openBrowser, snapshot } from '../helpers/browser';

let browser: Browser;
let merchant: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  merchant = client((await newAccount()).live_key);
  browser = await openBrowser();
});
afterAll(async () => { await browser?.close(); });

async function cryptoLink(amount = '10000', extra: Record<string, unknown> = {}) {
  const l = expectOk(await merchant.post('/v1/payment_links', {
    amount: { amount, currency: 'USD', decimals: 2 }, title: 'Design work', memo: 'Sprint 12', invoice_number: 'INV-0042', accepted_rail_kinds: ['crypto'], ...extra,
  }), 201);
  return expectOk(await merchant.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
}

/** A page URL on the product (the link's url/short_url carry PAYER_HOST, which is the API origin in tests). */
const onProduct = (url: string) => `${API()}${new URL(url).pathname}`;
const text = (page: Page, sel: string) => page.locator(sel).first().innerText();
/** Major-unit decimal string ("101.000000") to minor units of `decimals`. */
const minor = (s: string, decimals: number) => { const [i, f = ''] = s.split('.'); return BigInt(i + f.padEnd(decimals, '0').slice(0, decimals)); };

test('a crypto link by its short URL: instructions, paid short, topped up, paid, all without a reload', async () => {
  const link = await cryptoLink('10000');
  const page = await newPage(browser);
  const res = await page.goto(onProduct(link.short_url));
  expect(res!.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe(new URL(link.url).pathname);
  expect(await text(page, 'h1')).toBe('Design work');
  expect(await text(page, '[data-link-amount]')).toBe('$100.00');
  await snapshot(page, 'payer-choose-rail');
  // The first open recorded the view (spec 4.1 `view`).
  await eventually(async () => expectOk(await merchant.get(`/v1/payment_links/${link.id}`)).viewed_at, 'viewed_at');

  await page.getByLabel('Stablecoin (USDC)').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await snapshot(page, 'payer-rail-form');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-payment-status="awaiting"]');
  await snapshot(page, 'payer-awaiting');
  const address = (await text(page, '#pay-address')).trim();
  const due = minor((await text(page, '#pay-amount')).trim(), 6);
  expect(due).toBe(101000000n); // 100.00 USD + the 1% payer fee, in USDC base units
  expect(await text(page, '[data-fee]')).toContain('1.00');
  const chain = (await text(page, '[data-chain]')).trim();
  const asset = (await text(page, '[data-asset]')).trim();
  const uri = (await text(page, '[data-eip681]')).trim();
  expect(uri).toMatch(new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@\\d+/transfer\\?address=${address}&uint256=101000000$`));
  expect(await page.locator('svg.qr').count()).toBe(1);

  await page.evaluate(() => { (window as unknown as { marker: number }).marker = 42; });
  expectOk(await call('POST', '/sim/chain/transfers', { chain, asset, to_address: address, amount: '60000000' }, { idem: null }), 201);
  await page.waitForSelector('[data-payment-status="underpaid"]', { timeout: 30000 });
  expect(await text(page, '[data-amount-remaining]')).toContain('41.00');
  await snapshot(page, 'payer-underpaid');
  const remaining = minor((await text(page, '#pay-amount')).trim(), 6);
  expect(remaining).toBe(41000000n);

  expectOk(await call('POST', '/sim/chain/transfers', { chain, asset, to_address: address, amount: remaining.toString() }, { idem: null }), 201);
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42); // no reload
  expect(await page.getByRole('heading', { name: 'Receipt', exact: true }).count()).toBe(1);
  await snapshot(page, 'payer-paid');

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
  expect(iban).toMatch(/^[A-Z]{2}[0-9]{2}/);
  expect(reference.length).toBeGreaterThan(3);
  expect(await text(page, '[data-amount-due]')).toContain('250.00');
  await snapshot(page, 'payer-sepa-awaiting');
  const credit = expectOk(await bankCredit({ rail: 'sepa', currency: 'EUR', iban, reference }, '25000'), 201);
  expect(credit.matched).toBe(true);
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  await snapshot(page, 'payer-sepa-paid');
  await page.close();
}, 90000);

test('pay with the sandbox wallet button end to end', async () => {
  const link = await cryptoLink('2500');
  const holder = await newAccount();
  const s = client(holder.session_token);
  const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
  expectOk(await call('POST', '/sim/chain/transfers', { chain: wallet.chain, asset, to_address: wallet.address, amount: '100000000', from_address: '0x52908400098527886E0F7030069857D2E4169EE7' }, { idem: null }), 201);

  const page = await newPage(browser);
  await page.goto(`${onProduct(link.url)}?rail=crypto_native`);
  await snapshot(page, 'payer-sandbox-wallet');
  await page.getByLabel('Your sandbox wallet address').fill('0xnot-an-address');
  await page.getByRole('button', { name: 'SANDBOX: sign and pay' }).click();
  // The spec's error lands next to the field that caused it.
  await page.waitForSelector('#sbx-from_address-error');
  expect(await page.getAttribute('#sbx-from_address', 'aria-invalid')).toBe('true');
  await snapshot(page, 'payer-wallet-error');
  await page.getByLabel('Your sandbox wallet address').fill(wallet.address);
  await page.getByRole('button', { name: 'SANDBOX: sign and pay' }).click();
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  expect(await text(page, '[data-receipt-amount]')).toContain('25.25');
  await page.close();
}, 90000);

test('errors of the transfer rail render next to their field; the whole journey works with JavaScript off', async () => {
  const link = await cryptoLink('5000');
  const page = await newPage(browser, { javaScriptEnabled: false });
  await page.goto(onProduct(link.url));
  await page.getByLabel('Stablecoin transfer from your own address').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Your sending address (optional)').fill('0x123');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  expect(await text(page, '#f-source_address-error')).toContain('source_address');
  expect(await page.getAttribute('#f-source_address', 'aria-invalid')).toBe('true');
  await snapshot(page, 'payer-field-error-nojs');
  await page.getByLabel('Your sending address (optional)').fill('');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-payment-status="awaiting"]');
  await page.getByRole('button', { name: 'I have sent it' }).click();
  expect(await page.locator('text=You said you sent it').count()).toBe(1);
  await page.close();
  const withJs = await newPage(browser);
  await withJs.goto(onProduct(link.url));
  await snapshot(withJs, 'payer-marked-sent');
  await withJs.close();
}, 90000);

test('a cancelled link says so; the payer\'s locale formats the amount', async () => {
  const link = await cryptoLink('123456');
  const page = await newPage(browser, { locale: 'de-DE' });
  await page.goto(onProduct(link.url));
  expect(await text(page, '[data-link-amount]')).toBe('1.234,56\u00a0$');
  expectOk(await merchant.post(`/v1/payment_links/${link.id}/cancel`, {}));
  await page.waitForSelector('[data-link-status="cancelled"]', { timeout: 15000 });
  await snapshot(page, 'payer-cancelled');
  await page.close();
}, 60000);

/** Presses Tab until the focused element's text or label matches `name` (at most 40 presses). */
async function tabTo(page: Page, name: RegExp): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return '';
      const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent ?? '' : '';
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
