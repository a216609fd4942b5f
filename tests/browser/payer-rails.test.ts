/**
 * The payer's page on the bank rails the other browser tests do not open (issue 38 part 5; spec
 * 4.1 payer routes, bank instructions): US ACH and wire, UK Faster Payments, Pix and SPEI, each
 * from its rail form to the instructions of its own account details, the one reference to write
 * marked (the link's own reference labelled "Request number"), long account identifiers in groups;
 * on SPEI a short bank credit turning the page underpaid (the bank top-up wording) and the rest
 * paying it, without a reload. Every state is checked with axe-core, for sideways scroll and for
 * words broken across lines at 360, 390 and 1280 px, and photographed at 390 and 1280 px
 * (tests/helpers/browser.ts `snapshot`).
 */
import type { Browser, Page } from 'playwright-core';
import type { DevCredentials } from '../../activities/accounts/commands';
import { API, connectDb, expectOk, newAccount } from '../helpers/api';
import { activeBankLink, bankCredit, session } from '../helpers/bank';
import { newPage, openBrowser, snapshot } from '../helpers/browser';

// The functions passed to page.evaluate run in the page; the tests compile without the DOM library.
declare const document: any;

let browser: Browser;
let creds: DevCredentials;

beforeAll(async () => {
  await connectDb();
  creds = await newAccount();
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const onProduct = (url: string) => `${API()}${new URL(url).pathname}`;
const shoot = (page: Page, name: string) => snapshot(page, name, { wholeWords: true });
const labels = (page: Page) => page.locator('main dt:visible').allInnerTexts();

/** The account details each rail's instructions show (the copyable values' ids). */
const RAIL_FIELDS: Record<string, string[]> = {
  ach: ['bank-routing_number', 'bank-account_number'],
  wire: ['bank-routing_number', 'bank-account_number'],
  faster_payments: ['bank-sort_code', 'bank-account_number'],
  pix: ['bank-pix_key'],
  spei: ['bank-clabe'],
};

/** Opens `rail`'s form of a new link of `amount` on a phone-width page, starts the payment and waits for its instructions. */
async function openInstructions(rail: string, amount: string, opts: { shootForm?: boolean } = {}): Promise<{ page: Page; token: string }> {
  const { link, token } = await activeBankLink(rail, amount, { creds });
  const page = await newPage(browser, { width: 390 });
  await page.goto(`${onProduct(link.url)}?rail=${rail}`);
  await page.getByLabel('A business').check();
  if (opts.shootForm) await shoot(page, `payer-${rail}-form`);
  await page.getByRole('button', { name: 'Show payment details' }).click();
  await page.waitForSelector('[data-payment-status="awaiting"]');
  return { page, token };
}

/** The bank instructions of the session's current payment, as the payer session route answers them. */
async function instructionsOf(token: string): Promise<Record<string, string>> {
  const { current_payment_id: id } = expectOk(await session(token));
  const bdi = expectOk(await session(token, `/payments/${id}`)).bank_deposit_instructions;
  expect(bdi).toBeTruthy();
  return bdi;
}

test.each(['ach', 'wire', 'faster_payments', 'pix'])(
  '%s: the rail form, then the account details and the one reference to write',
  async (rail) => {
    const { page, token } = await openInstructions(rail, '12345', { shootForm: rail === 'ach' });
    const bdi = await instructionsOf(token);
    for (const id of RAIL_FIELDS[rail]) {
      const field = id.replace(/^bank-/, '');
      expect([id, await page.evaluate((sel) => document.getElementById(sel)?.textContent, id)]).toEqual([id, bdi[field]]);
    }
    const dts = await labels(page);
    expect(dts.filter((l) => /reference/i.test(l))).toEqual(bdi.reference ? ['Transfer reference: write exactly this'] : []);
    expect(dts).toContain('Request number');
    expect(dts).toContain(`Amount to send (${bdi.currency})`);
    await shoot(page, `payer-${rail}-awaiting`);
    await page.close();
  },
  60000,
);

test('SPEI: the CLABE in groups; a short credit turns the page underpaid (top up with the same reference), the rest pays it', async () => {
  const { page, token } = await openInstructions('spei', '50000');
  const bdi = await instructionsOf(token);
  expect(await page.locator('#bank-clabe .grp').allInnerTexts()).toEqual(String(bdi.clabe).match(/.{1,4}/g));
  await shoot(page, 'payer-spei-awaiting');

  expectOk(await bankCredit(bdi, '20000'), 201);
  await page.waitForSelector('[data-payment-status="underpaid"]', { timeout: 30000 });
  const main = await page.locator('main').innerText();
  expect(main).toContain('Send the remaining amount to the same account, with the same transfer reference, to complete the payment.');
  expect(await page.locator('[data-amount-remaining]').innerText()).toContain('300.00');
  await shoot(page, 'payer-spei-underpaid');

  expectOk(await bankCredit(bdi, '30000'), 201);
  await page.waitForSelector('[data-payment-status="paid"], [data-payment-status="settled"]', { timeout: 30000 });
  expect(await page.getByRole('heading', { name: 'Receipt', exact: true }).count()).toBe(1);
  await shoot(page, 'payer-spei-paid');
  await page.close();
}, 90000);
