/**
 * The payer's page on the cross-network rail (issue 22 part 1; spec 2.1 DepositInstructions, 2.4
 * `watcher_state`, 4.1 `crypto_xchain`), on a private mainnet stack (the rail exists only there):
 * the network picker and the refund address with the spec's error in place, the amount to send
 * with the bridge fee line and what arrives, the QR code of that send (decoded: Base's USDC to the
 * bridge's address, gross of the bridge fee), the quote's expiry counting down, and `watcher_state`
 * in words as the bridge moves the money, up to paid, without a reload. Every state is checked for
 * sideways scroll and broken words at 360, 390 and 1280 px, with axe, and photographed.
 */
import type { Browser, Page } from 'playwright-core';
import { setSwitch } from '../../lib/switches';
import { API, call, client, connectDb, expectOk, newAccount } from '../helpers/api';
import { newPage, openBrowser, snapshot } from '../helpers/browser';
import { allowConsoleError } from '../helpers/page-guard';
import { currentPayment, expectQrPays } from '../helpers/qr';
import { usePrivateStack } from '../helpers/stack';

usePrivateStack('pages-xchain', { NETWORK: 'mainnet' });
process.env.NETWORK = 'mainnet';

let browser: Browser;
let merchant: ReturnType<typeof client>;

beforeAll(async () => {
  await connectDb();
  const acct = await newAccount();
  merchant = client(acct.live_key);
  await setSwitch('payment_links.crypto_xchain', true, acct.account_id);
  await new Promise((r) => setTimeout(r, 2200));
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const text = (page: Page, sel: string) => page.locator(sel).first().innerText();
const shoot = (page: Page, name: string) => snapshot(page, name, { wholeWords: true });
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });

test('cross-network: network and refund address, bridge fee, countdown, the watcher in words, paid', async () => {
  const l = expectOk(
    await merchant.post('/v1/payment_links', {
      amount: { amount: '25000', currency: 'USD', decimals: 2 },
      title: 'Cross-network',
      accepted_rail_kinds: ['crypto'],
    }),
    201,
  );
  const link = expectOk(await merchant.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
  const page = await newPage(browser, { width: 360, height: 740 });
  await page.goto(`${API()}${new URL(link.url).pathname}?rail=crypto_xchain`);
  allowConsoleError(
    page,
    /^Failed to load resource: the server responded with a status of 400 .*\/payments\)$/,
    "the form's answer to the zero refund address carries the refusal's status (400) with the page and the error next to the field",
  );
  await page.getByLabel('Network you send from').selectOption('base');
  await page.getByLabel('Refund address on that network').fill('0x0000000000000000000000000000000000000000');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  expect(await text(page, '#f-refund_address-error')).toContain('zero address');
  await shoot(page, 'payer-xchain-refund-error');

  await page.getByLabel('Refund address on that network').fill('0x4444444444444444444444444444444444444444');
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-watcher-state="address_issued"]');
  expect(await text(page, '[data-chain]')).toBe('base');
  expect(await text(page, '[data-amount-due]')).toBe('252.60\u00a0USDC'); // 250.00 + 1% payer fee, gross of the 0.10 bridge fee
  expect(await page.locator('text=Bridge fee').count()).toBe(1);
  expect(await page.locator('text=Arrives as').count()).toBe(1);
  // The price holds until a time (the page without its script says that much); the script adds the minutes left.
  expect(await page.locator('main').innerText()).toMatch(/Price held until \w{3} \d+, \d{4}/);
  await page.waitForFunction(() => /^\(\d+:\d\d left\)$/.test(document.querySelector('[data-countdown]')?.textContent ?? ''));
  // The QR code, decoded: the source network's USDC to the bridge's address, the amount shown (gross of the bridge fee).
  const qr = await expectQrPays(page, await currentPayment(merchant, page.url()));
  expect(qr).toMatch(/^ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453\/transfer\?address=0x[0-9a-fA-F]{40}&uint256=252600000$/);
  await shoot(page, 'payer-xchain-awaiting');

  const session = expectOk(
    await call('GET', `/v1/payment_sessions/${new URL(link.url).pathname.split('/pay/')[1]}`, undefined, { idem: null }),
  );
  const paymentId = session.current_payment_id as string;
  const address = (await text(page, '#pay-address')).trim();
  expectOk(await sim(`/bridge/transfers/${paymentId}`, { state: 'delayed' }));
  expectOk(await sim('/chain/transfers', { chain: 'base', to_address: address, asset: 'USDC', amount: '252600000' }), 201);
  await page.waitForSelector('[data-watcher-state="confirming"]', { timeout: 30000 });
  await shoot(page, 'payer-xchain-confirming');
  expectOk(await sim(`/bridge/transfers/${paymentId}`, { state: 'delivered' }));
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  await shoot(page, 'payer-xchain-paid');
  await page.close();
}, 120000);
