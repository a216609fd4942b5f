/**
 * The browser tier's own checks against planted faults:
 * - the page guard (tests/helpers/page-guard.ts, on every page newPage makes) reports an inline
 *   script and an inline style planted into a product page (its real CSP header kept) as CSP
 *   violations, with JavaScript on (the document's event and Chromium's console report) and off
 *   (the console report); a console error and an uncaught exception; an allowed error that never
 *   happened; and never lets an allowance cover a CSP report;
 * - the QR reader (tests/helpers/qr.ts) decodes the product's own QR drawing (api/pages/qr.tsx) of a
 *   known EIP-681 URI at a phone's width, and its comparison fails on a QR that pays one base unit
 *   less, another recipient or another chain.
 */
import type { Browser, Page } from 'playwright-core';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { QrCode } from '../../api/pages/qr';
import { erc20TransferUri } from '../../domain/eip681';
import { newPage, openBrowser, PHONE } from '../helpers/browser';
import { allowConsoleError, takeProblems } from '../helpers/page-guard';
import { decodeQrCodes, expectQrPays, parseErc20TransferUri, type PaymentToPay } from '../helpers/qr';

const api = () => process.env.TEST_API_URL!;

let browser: Browser;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Chromium's console reports of the planted script and style. */
const SCRIPT_REPORT =
  /^console\.error: Executing inline script violates the following Content Security Policy directive 'script-src 'nonce-/;
const STYLE_REPORT = /^console\.error: Applying inline style violates the following Content Security Policy directive 'style-src 'nonce-/;
const PLANTED = '<script>document.title = "planted"</script><p style="color: red">planted</p>';

/** Serves the product's 404 page (its CSP header and nonce kept) with {@link PLANTED} added, as a 200 at `/pay/plk_planted`. */
async function plantInto(page: Page): Promise<string> {
  const url = `${api()}/pay/plk_planted`;
  await page.route(url, async (route) => {
    const response = await route.fetch();
    expect(response.headers()['content-security-policy']).toContain("'nonce-");
    const body = (await response.text()).replace('</body>', `${PLANTED}</body>`);
    await route.fulfill({ response, status: 200, body });
  });
  return url;
}

describe('the page guard', () => {
  test('an inline script and an inline style planted into a product page: CSP violations, event and console report', async () => {
    const page = await newPage(browser);
    await page.goto(await plantInto(page));
    await page.waitForLoadState('load');
    expect(await page.title()).not.toBe('planted'); // the CSP did block it
    const problems = await takeProblems(page);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^CSP violation \(enforce\): script-src-elem blocked inline/),
        expect.stringMatching(/^CSP violation \(enforce\): style-src-attr blocked inline/),
        expect.stringMatching(SCRIPT_REPORT),
        expect.stringMatching(STYLE_REPORT),
      ]),
    );
    await page.close();
  });

  test('with JavaScript off, the console report of the planted inline style', async () => {
    const page = await newPage(browser, { ...PHONE, javaScriptEnabled: false });
    await page.goto(await plantInto(page));
    await page.waitForLoadState('load');
    expect(await takeProblems(page)).toEqual(expect.arrayContaining([expect.stringMatching(STYLE_REPORT)]));
    await page.close();
  });

  test('a console error and an uncaught exception', async () => {
    const page = await newPage(browser);
    await page.goto(`${api()}/docs/errors`);
    const thrown = page.waitForEvent('pageerror');
    await page.evaluate(() => {
      console.error('planted error');
      setTimeout(() => {
        throw new Error('planted exception');
      });
    });
    await thrown;
    expect(await takeProblems(page)).toEqual([
      expect.stringMatching(/^console\.error: planted error/),
      'uncaught exception: planted exception',
    ]);
    await page.close();
  });

  test('an allowed error that never happened is reported; an allowance never covers a CSP report', async () => {
    const page = await newPage(browser, { javaScriptEnabled: false });
    allowConsoleError(page, /status of 404/, 'planted: no 404 happens');
    allowConsoleError(page, /inline style/, 'planted: an allowance cannot cover a CSP report');
    await page.goto(await plantInto(page));
    await page.waitForLoadState('load');
    const problems = await takeProblems(page);
    expect(problems).toEqual(
      expect.arrayContaining([
        'expected console error never happened: /status of 404/ (planted: no 404 happens)',
        'expected console error never happened: /inline style/ (planted: an allowance cannot cover a CSP report)',
        expect.stringMatching(STYLE_REPORT),
      ]),
    );
    await page.close();
  });
});

describe('the QR reader', () => {
  const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const recipient = '0x52908400098527886E0F7030069857D2E4169EE7';
  const uri = erc20TransferUri({ tokenAddress: token, chainId: 8453, recipient, amountBaseUnits: 101000000n });
  const payment: PaymentToPay = {
    status: 'awaiting_payment',
    amount_expected: { amount: '101000000', currency: 'USDC' },
    deposit_instructions: {
      address: recipient,
      chain: 'base',
      chain_id: 8453,
      asset: 'USDC',
      token_address: token,
      amount: { amount: '101000000', currency: 'USDC' },
    },
  };

  test("decodes the product's QR drawing at a phone's width and compares every part of it", async () => {
    const page = await newPage(browser, PHONE);
    const svg = renderToString(h(QrCode, { text: uri, label: 'planted' }));
    await page.setContent(`<!doctype html><html><body><figure style="width: 14rem">${svg}</figure></body></html>`);
    expect(await decodeQrCodes(page)).toEqual([uri]);
    expect(parseErc20TransferUri(uri)).toEqual({
      tokenAddress: token,
      chainId: 8453,
      functionName: 'transfer',
      recipient,
      amount: 101000000n,
    });
    await expectQrPays(page, payment);
    // One base unit less, another recipient, another chain: each fails the comparison.
    const off = [
      { ...payment, deposit_instructions: { ...payment.deposit_instructions, amount: { amount: '101000001', currency: 'USDC' } } },
      { ...payment, deposit_instructions: { ...payment.deposit_instructions, address: token } },
      { ...payment, deposit_instructions: { ...payment.deposit_instructions, chain: 'ethereum', chain_id: 1 } },
      { ...payment, status: 'underpaid', amount_received: { amount: '1' } },
    ];
    for (const p of off) await expect(expectQrPays(page, p)).rejects.toThrow(/toEqual/);
    await page.close();
  });

  test("the parser follows EIP-681's number and address rules", () => {
    const at = (amount: string, to = recipient) => `ethereum:${token}@8453/transfer?address=${to}&uint256=${amount}`;
    expect(parseErc20TransferUri(at('1.01e8')).amount).toBe(101000000n);
    expect(parseErc20TransferUri(at('101e6')).amount).toBe(101000000n);
    expect(() => parseErc20TransferUri(at('1.5'))).toThrow(/non-negative integer/);
    expect(() => parseErc20TransferUri(at('-1'))).toThrow(/non-negative integer/);
    // A mixed-case address with a wrong EIP-55 checksum (one letter's case flipped): a wallet refuses it.
    expect(() => parseErc20TransferUri(at('1', recipient.replace('E0F', 'e0F')))).toThrow(/checksum/);
    expect(() => parseErc20TransferUri(`${at('1')}&value=5`)).toThrow(/unexpected parameters value/);
    expect(() => parseErc20TransferUri(`ethereum:${token}/transfer?address=${recipient}&uint256=1`)).toThrow(/chain id/);
  });
});
