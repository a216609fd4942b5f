/**
 * The payroll recipient's page and the sandbox's hosted provider pages over HTTP (issue 22 parts 2
 * and 3) against the shared stack: the HTML a person opens and the urlencoded forms they post (no
 * JavaScript).
 * - `/payroll/<prk_token>` (spec 4.4): what the public session shows (amount, payer escaped, run,
 *   period, memo, status), the inputs of the run currency's rails, a refused field re-rendered in
 *   place (400, `aria-invalid`, `aria-describedby`, values kept), a submission (303, then masked,
 *   no form), a second one refused (409), a wallet; a replaced, unknown or malformed token: one 404.
 * - `/sandbox/...`: the providers' hosted URLs now point at the payer host; the KYC link, credit
 *   checkout and order checkout pages are marked SANDBOX, show the state, and their buttons move the
 *   customer, the checkout and the order to their end states (read back through /v1).
 */
import crypto from 'node:crypto';
import { db } from '../../lib/db';
import { API, client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';
import type { DevCredentials } from '../../activities/accounts/commands';

interface Page {
  status: number;
  html: string;
  headers: Headers;
}

async function get(path: string): Promise<Page> {
  const r = await fetch(`${API()}${path}`, { headers: { 'accept-language': 'en-US' }, redirect: 'manual' });
  return { status: r.status, html: await r.text(), headers: r.headers };
}
async function postForm(path: string, form: Record<string, string>): Promise<Page> {
  const r = await fetch(`${API()}${path}`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en-US' },
  });
  return { status: r.status, html: await r.text(), headers: r.headers };
}
/** The path and query of an absolute URL the product handed out (served by any API of the stack). */
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
/** The opening tag of the element with `id`. */
function tagOf(html: string, id: string): string {
  const m = html.match(new RegExp(`<[a-z]+[^>]*\\sid="${id}"[^>]*>`));
  if (!m) throw new Error(`no element #${id} in the page`);
  return m[0];
}
const h1Count = (html: string) => (html.match(/<h1[\s>]/g) ?? []).length;
/** The page without its per-response CSP nonces (two renderings of one page compare equal). */
const withoutNonces = (html: string) => html.replace(/ nonce="[^"]*"/g, '');
const formsPosting = (html: string) => (html.match(/<form[^>]*method="post"/g) ?? []).length;

let owner: DevCredentials;
let key: ReturnType<typeof client>;
let n = 0;
const email = (who: string) => `${who}.${process.pid}.${++n}.${Date.now()}@example.com`;
const money = (amount: string, currency: string) => ({ amount, currency, decimals: 2 });

beforeAll(async () => {
  await connectDb();
  owner = await newAccount();
  key = client(owner.live_key);
  await db().query('UPDATE accounts SET display_name = $2 WHERE id = $1', [owner.account_id, 'Acme <Payroll> & Co']);
});

/** A run paying one recipient `amount` (minor units) in `currency`; returns the run, the item and its session token. */
async function recipientLink(amount: string, currency = 'USD'): Promise<{ runId: string; itemId: string; token: string }> {
  const run = expectOk(
    await key.post('/v1/payroll_runs', {
      title: 'November payroll',
      currency,
      pay_period_start: '2026-11-01',
      pay_period_end: '2026-11-30',
      rows: [{ email: email('ana'), name: 'Ana Diaz', amount: money(amount, currency), memo: 'Thanks for November' }],
    }),
    201,
  );
  const [item] = expectOk(await key.get(`/v1/payroll_runs/${run.id}/items`)).data as Array<{ id: string }>;
  const re = expectOk(await key.post(`/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {}));
  expect(re.recipient_session.url).toBe(`${process.env.PAYER_HOST}/payroll/${re.recipient_session.token}`);
  return { runId: run.id, itemId: item.id, token: re.recipient_session.token };
}

const ach = (extra: Record<string, string> = {}) => ({
  type: 'bank_account',
  account_owner_type: 'individual',
  account_holder_name: 'Ana Diaz',
  rail: 'ach',
  routing_number: '021000021',
  account_number: '000123456789',
  bank_name: '',
  iban: '',
  address: '',
  chain: 'tempo',
  ...extra,
});

describe('the payroll recipient page', () => {
  test("shows what the public session shows, escaped, with one h1 and a labelled form of the run currency's rail", async () => {
    const { token } = await recipientLink('250000');
    const p = await get(`/payroll/${token}`);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toMatch(/^text\/html/);
    expect(p.headers.get('content-security-policy')).toBeTruthy();
    expect(p.html).toContain('$2,500.00');
    expect(p.html).toContain('Payment from Acme &lt;Payroll> &amp; Co'); // text escaped (`>` needs none in text)
    expect(p.html).not.toContain('<Payroll>');
    expect(p.html).toMatch(/data-recipient-name="true">For Ana Diaz<\/p>/); // whom it is for, as the payer wrote it
    for (const text of [
      'November payroll',
      'Nov 1, 2026',
      'Nov 30, 2026',
      'Thanks for November',
      'Scheduled: not paid yet',
      'No payment details yet.',
    ])
      expect(p.html).toContain(text);
    expect(h1Count(p.html)).toBe(1);
    expect(p.html).toContain(`action="/payroll/${token}/destination"`);
    // USD pays by ACH or wire: routing and account number, no IBAN; every input labelled.
    for (const f of ['account_holder_name', 'routing_number', 'account_number', 'bank_name', 'address', 'account_type']) {
      expect(p.html).toContain(`<label for="f-${f}"`);
      expect(tagOf(p.html, `f-${f}`)).toContain(`name="${f}"`);
    }
    expect(p.html).not.toContain('name="iban"');
    expect(p.html).toMatch(/<input type="radio" name="type" value="bank_account"/);
    expect(p.html).toMatch(/<input type="radio" name="rail" value="wire"/);
    expect(p.html).not.toMatch(/<script(?![^>]*\ssrc=)/); // no inline script
    expect(p.html).not.toContain(' style=');
  });

  test('a bad routing number: 400, the error next to routing_number, the values typed kept', async () => {
    const { token } = await recipientLink('120050');
    const p = await postForm(`/payroll/${token}/destination`, ach({ routing_number: '123456789' }));
    expect(p.status).toBe(400);
    const input = tagOf(p.html, 'f-routing_number');
    expect(input).toContain('aria-invalid="true"');
    expect(input).toContain('aria-describedby="f-routing_number-error"');
    expect(input).toContain('value="123456789"');
    expect(tagOf(p.html, 'f-routing_number-error')).toContain('class="field-error"');
    expect(p.html).toContain('Enter a valid routing number: 9 digits with a valid check digit.');
    expect(tagOf(p.html, 'f-account_number')).toContain('value="000123456789"');
    expect(tagOf(p.html, 'f-account_holder_name')).toContain('value="Ana Diaz"');
    expect(tagOf(p.html, 'f-account_number')).not.toContain('aria-invalid');
    expect(p.html).toContain('role="alert"');
    expect(h1Count(p.html)).toBe(1);
    // No type chosen: the error sits on the type choice.
    const none = await postForm(`/payroll/${token}/destination`, { account_holder_name: 'Ana Diaz' });
    expect(none.status).toBe(400);
    expect(tagOf(none.html, 'f-type')).toContain('aria-describedby="f-type-hint f-type-error"');
    expect(none.html).toContain('Choose a bank account or a USDC wallet.');
    // Nothing was stored.
    const s = expectOk(await client(owner.live_key).get(`/v1/payroll_recipient_sessions/${token}`));
    expect(s).toMatchObject({ can_submit: true, pending_destination: null });
  });

  test('a good submission: 303 to the page, which shows it masked and no form; a second one is refused (409)', async () => {
    const { token } = await recipientLink('99900');
    const p = await postForm(`/payroll/${token}/destination`, ach());
    expect(p.status).toBe(303);
    expect(p.headers.get('location')).toBe(`/payroll/${token}`);
    const after = await get(`/payroll/${token}`);
    expect(after.status).toBe(200);
    expect(after.html).toContain('Your details were sent and are waiting for the payer to approve them');
    expect(after.html).toContain('ending in 6789');
    expect(after.html).toContain('021000021');
    expect(after.html).not.toContain('000123456789');
    expect(formsPosting(after.html)).toBe(0);
    expect(after.html).toContain('Your details were received. This link cannot be used again');
    const json = expectOk(await client(owner.live_key).get(`/v1/payroll_recipient_sessions/${token}`));
    expect(json).toMatchObject({
      can_submit: false,
      destination_pending_adoption: true,
      pending_destination: { type: 'bank_account', bank: { account_number_last4: '6789' } },
    });
    const again = await postForm(`/payroll/${token}/destination`, ach({ account_number: '000999999999' }));
    expect(again.status).toBe(409);
    expect(again.html).toContain('This link can no longer take payment details.');
    expect(again.html).toContain('ending in 6789');
  });

  test('a EUR run asks for an IBAN; a wallet is accepted too', async () => {
    const eur = await recipientLink('50000', 'EUR');
    const p = await get(`/payroll/${eur.token}`);
    expect(p.html).toContain('€500.00');
    expect(p.html).toContain('name="iban"');
    expect(p.html).not.toContain('name="routing_number"');
    expect(p.html).toContain('Paid by SEPA bank transfer.');
    const bad = await postForm(`/payroll/${eur.token}/destination`, {
      type: 'bank_account',
      account_owner_type: 'business',
      account_holder_name: 'Ana GmbH',
      iban: 'DE00370400440532013000',
    });
    expect(bad.status).toBe(400);
    expect(tagOf(bad.html, 'f-iban')).toContain('aria-invalid="true"');
    const ok = await postForm(`/payroll/${eur.token}/destination`, {
      type: 'bank_account',
      account_owner_type: 'business',
      account_holder_name: 'Ana GmbH',
      iban: 'DE89 3704 0044 0532 0130 00',
    });
    expect(ok.status).toBe(303);
    expect((await get(`/payroll/${eur.token}`)).html).toContain('DE … 3000');

    const w = await recipientLink('70000');
    const wallet = '0x52908400098527886E0F7030069857D2E4169EE7';
    // The bank fields typed by mistake are ignored: the chosen type decides.
    const sent = await postForm(`/payroll/${w.token}/destination`, {
      type: 'wallet',
      chain: 'tempo',
      address: wallet,
      account_holder_name: 'Ana',
    });
    expect(sent.status).toBe(303);
    const shown = await get(`/payroll/${w.token}`);
    expect(shown.html).toContain('0x5290...9EE7');
    expect(shown.html).not.toContain(wallet);
  });

  test('a replaced token answers the same 404 page as an unknown or malformed one', async () => {
    const { runId, itemId, token: old } = await recipientLink('10000');
    const fresh = expectOk(await key.post(`/v1/payroll_runs/${runId}/items/${itemId}/reissue_link`, {})).recipient_session.token;
    const replaced = await get(`/payroll/${old}`);
    const unknown = await get(`/payroll/prk_${crypto.randomBytes(16).toString('hex')}`);
    const malformed = await get('/payroll/not-a-token');
    for (const p of [replaced, unknown, malformed]) expect(p.status).toBe(404);
    expect(withoutNonces(replaced.html)).toBe(withoutNonces(unknown.html));
    expect(withoutNonces(malformed.html)).toBe(withoutNonces(unknown.html));
    expect(replaced.html).toContain('This link does not work');
    expect((await postForm(`/payroll/${old}/destination`, ach())).status).toBe(404);
    expect((await get(`/payroll/${fresh}`)).status).toBe(200);
  });
});

describe('the sandbox hosted provider pages', () => {
  const expectSandbox = (p: Page) => {
    expect(p.status).toBe(200);
    expect(p.html).toContain('class="sandbox-banner"');
    expect(p.html).toContain('<span class="tag">SANDBOX</span>');
    expect(h1Count(p.html)).toBe(1);
  };
  const buttons = (html: string) =>
    [...html.matchAll(/<button[^>]*name="action" value="([a-z_]+)"[^>]*>([^<]*)</g)].map((m) => [m[1], m[2]]);

  test('KYC verification link: accept the terms, request more, approve, decline; the customer follows', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const c = expectOk(await s.post('/v1/customers', { customer_type: 'business', legal_name: 'Sandbox Pages Ltd' }), 201);
    const tos = expectOk(await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'tos' }), 201);
    expect(tos.url).toMatch(new RegExp(`^${process.env.PAYER_HOST}/sandbox/kyc/kyc_[0-9a-f]+/tos\\?t=[0-9a-f]{32}$`));
    const url = pathOf(tos.url);
    const page = await get(url);
    expectSandbox(page);
    expect(page.html).toContain('Terms of service');
    expect(page.html).toContain('waiting for the person');
    expect(buttons(page.html)).toEqual([
      ['accept_terms', 'SANDBOX: accept the terms'],
      ['approve', 'SANDBOX: approve'],
      ['request_more', 'SANDBOX: request more information'],
      ['decline', 'SANDBOX: decline'],
    ]);
    const customer = async () => expectOk(await s.get(`/v1/customers/${c.id}`));

    const accepted = await postForm(url, { action: 'accept_terms' });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe(url);
    const review = await get(url);
    expect(review.html).toContain('The verification is under review.');
    expect(review.html).toContain('The terms are accepted.');
    expect(buttons(review.html).map(([v]) => v)).toEqual(['approve', 'request_more', 'decline']);
    await eventually(async () => (await customer()).verification_state === 'under_review', 'under_review');

    const bo = pathOf(expectOk(await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'beneficial_owners' }), 201).url);
    expectSandbox(await get(bo));
    expect((await postForm(bo, { action: 'request_more' })).status).toBe(303);
    expect((await get(bo)).html).toContain('Beneficial owners');
    await eventually(async () => {
      const x = await customer();
      return x.verification_state === 'action_required' && x.requirements_due.join() === 'beneficial_owners';
    }, 'action_required');

    expect((await postForm(bo, { action: 'approve' })).status).toBe(303);
    expect((await get(bo)).html).toContain('The verification is approved.');
    const approved = await eventually(async () => {
      const x = await customer();
      return x.verification_state === 'approved' ? x : null;
    }, 'approved');
    expect(approved).toMatchObject({ requirements_due: [], verified_at: expect.any(String) });

    expect((await postForm(bo, { action: 'decline' })).status).toBe(303);
    const rejected = await eventually(async () => {
      const x = await customer();
      return x.verification_state === 'rejected' ? x : null;
    }, 'rejected');
    expect(rejected.rejection_outcome).toBe('resubmission_allowed');
    // A decision that no longer applies (the form of an older rendering): the page again, 409.
    const stale = await postForm(bo, { action: 'decline' });
    expect(stale.status).toBe(409);
    expect(stale.html).toContain('That action no longer applies.');

    expect((await get(url.replace(/\?t=.*/, ''))).status).toBe(404);
    expect((await get(url.replace('/tos?', '/identity_document?'))).status).toBe(404); // not a business kind
    expect((await get(`/sandbox/kyc/kyc_nope/tos?t=${'0'.repeat(32)}`)).status).toBe(404);
  });

  test('credit checkout: pay grants the credits once; fail and abandon close the session; closed sessions have no buttons', async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const co = expectOk(await s.post('/v1/credit_checkouts', { pack: 5 }), 201);
    expect(co.url).toMatch(new RegExp(`^${process.env.PAYER_HOST}/sandbox/checkout/cs_sbx_[A-Za-z0-9]+$`));
    const url = pathOf(co.url);
    const open = await get(url);
    expectSandbox(open);
    expect(open.html).toContain('The checkout is open.');
    expect(open.html).toContain('5 screening credits');
    expect(buttons(open.html)).toEqual([
      ['pay', 'SANDBOX: pay'],
      ['fail', 'SANDBOX: payment fails'],
      ['abandon', 'SANDBOX: abandon'],
    ]);

    const paid = await postForm(url, { action: 'pay' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(url);
    const after = await get(url);
    expect(after.html).toContain('The checkout is paid.');
    expect(buttons(after.html)).toEqual([]);
    expect(expectOk(await s.get('/v1/credits')).paid_balance).toBe(5);
    const purchases = expectOk(await s.get('/v1/credit_events')).data.filter((e: { type: string }) => e.type === 'purchase');
    expect(purchases.map((e: { checkout_id: string }) => e.checkout_id)).toEqual([co.id]);
    const again = await postForm(url, { action: 'fail' });
    expect(again.status).toBe(409);
    expect(again.html).toContain('The checkout is paid.');
    expect(expectOk(await s.get('/v1/credits')).paid_balance).toBe(5);

    for (const [action, status, words] of [
      ['fail', 'failed', 'failed'],
      ['abandon', 'expired', 'abandoned'],
    ] as const) {
      const other = expectOk(await s.post('/v1/credit_checkouts', { pack: 10 }), 201);
      const p = pathOf(other.url);
      expect((await postForm(p, { action })).status).toBe(303);
      const shown = await get(p);
      expect(shown.html).toContain(`The checkout is ${words}.`);
      expect(buttons(shown.html)).toEqual([]);
      expect((await db().query('SELECT status FROM credit_checkouts WHERE id = $1', [other.id]))[0].status).toBe(status);
    }
    expect(expectOk(await s.get('/v1/credits')).paid_balance).toBe(5);
    expect((await get('/sandbox/checkout/cs_sbx_nope')).status).toBe(404);
  });

  test('order card checkout: pay completes the order, fail declines it, abandon expires it', async () => {
    const ordered = async () => {
      const q = expectOk(
        await key.post('/v1/quotes', {
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
        await key.post('/v1/orders', { offer_id: offer.offer_id, wallet_address: `0x${crypto.randomBytes(20).toString('hex')}` }),
        201,
      );
      expect(o.next_action.redirect_to_url.url).toMatch(new RegExp(`^${process.env.PAYER_HOST}/sandbox/orders/prv_[0-9a-f]+$`));
      return { id: o.id as string, url: pathOf(o.next_action.redirect_to_url.url) };
    };
    const order = (id: string) =>
      eventually(
        async () => {
          const o = expectOk(await key.get(`/v1/orders/${id}`));
          return o.status === 'completed' || o.status === 'failed' ? o : null;
        },
        `order ${id} closed`,
        20000,
      );

    const a = await ordered();
    const page = await get(a.url);
    expectSandbox(page);
    expect(page.html).toContain('$300.00');
    expect(page.html).toContain('The order is waiting for payment.');
    expect(buttons(page.html)).toEqual([
      ['pay', 'SANDBOX: pay'],
      ['fail', 'SANDBOX: payment fails'],
      ['abandon', 'SANDBOX: abandon'],
    ]);
    const paid = await postForm(a.url, { action: 'pay' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(a.url);
    const after = await get(a.url);
    expect(after.html).toContain('The order is paid and delivered.');
    expect(buttons(after.html)).toEqual([]);
    expect(await order(a.id)).toMatchObject({
      status: 'completed',
      money_state: 'captured',
      payout_destination: { tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    });
    expect((await postForm(a.url, { action: 'abandon' })).status).toBe(409);

    const b = await ordered();
    expect((await postForm(b.url, { action: 'fail' })).status).toBe(303);
    expect((await get(b.url)).html).toContain('The order is failed.');
    expect(await order(b.id)).toMatchObject({ status: 'failed', failure_kind: 'payment_declined', money_state: 'never_authorized' });

    const c = await ordered();
    expect((await postForm(c.url, { action: 'abandon' })).status).toBe(303);
    expect((await get(c.url)).html).toContain('The order is abandoned.');
    expect(await order(c.id)).toMatchObject({ status: 'failed', failure_kind: 'payment_expired' });

    expect((await get('/sandbox/orders/prv_nope')).status).toBe(404);
  });
});
