/**
 * `npm run demo`: drives the first money journey against the running product, as a merchant and a
 * payer would (issue "platform core"): client -> crypto-only payment link 100.00 USD -> activate ->
 * payer opens the session and pays 101.000000 USDC on the native rail, short first (60.000000),
 * then a top-up (41.000000) -> link paid then settled into the service wallet -> events listed ->
 * every webhook received by a local receiver and verified with the `standardwebhooks` package.
 * Then the bank-rail journey: a 250.00 EUR link settling to the merchant's IBAN (an
 * address-book bank entry), paid by SEPA transfer short (150.00: underpaid, partial_payment), topped
 * up (100.00: paid), settled through the fiat rail to the IBAN (the rail reports it paid).
 * Then the wallet journey (scripts/demo-wallet.ts): USDC deposited into the wallet from
 * base, off-ramped to a EUR bank account, `payment_processed`.
 * Prints each step; exits non-zero on the first thing that is off. What it creates on the dev account
 * that would keep acting is removed at the end, also when a step failed: its webhook endpoint
 * (deleted, so no later event is sent to the gone receiver; a failed delete fails the demo) and the
 * address-book entry of the bank journey (best effort).
 * Works against any base URL: `DEMO_API_URL` and `DEMO_CREDENTIALS` (a JSON file) override the
 * files written by `npm start`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { offrampJourney } from './demo-wallet';
import { CREDENTIALS_FILE, readRuntime } from './runtime';

interface Creds {
  account_id: string;
  live_key: string;
  test_key: string;
  session_token: string;
}

const step = (m: string) => process.stdout.write(`\u2192 ${m}\n`);
const ok = (m: string) => process.stdout.write(`  \u2713 ${m}\n`);

class DemoFailure extends Error {}
function expect(cond: unknown, what: string): asserts cond {
  if (!cond) throw new DemoFailure(what);
}

async function main(): Promise<void> {
  const apiUrl = process.env.DEMO_API_URL ?? readRuntime().api_url;
  const creds: Creds = JSON.parse(fs.readFileSync(process.env.DEMO_CREDENTIALS ?? CREDENTIALS_FILE, 'utf8'));

  async function call(
    method: string,
    path: string,
    body?: unknown,
    auth: 'key' | 'session' | 'none' = 'key',
  ): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth === 'key') headers['x-api-key'] = creds.live_key;
    if (auth === 'session') headers.authorization = `Bearer ${creds.session_token}`;
    if (method !== 'GET' && auth !== 'none') headers['Idempotency-Key'] = `demo_${crypto.randomBytes(12).toString('hex')}`;
    const r = await fetch(`${apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
  async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new DemoFailure(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  // A local webhook receiver that verifies every signature.
  let secret = '';
  const received: Array<{ type: string; id: string }> = [];
  const badSignatures: string[] = [];
  const receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      try {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const evt = new Webhook(secret).verify(raw, headers) as { id: string; type: string };
        received.push({ type: evt.type, id: evt.id });
        res.writeHead(204).end();
      } catch (e) {
        badSignatures.push(String(e));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;

  // Undo steps for what the demo creates, run in reverse order in `finally`; `required` ones fail the demo.
  const cleanups: Cleanup[] = [];
  let failure: unknown = null;
  try {
    step(`webhook endpoint for ${receiverUrl}`);
    const we = await call('POST', '/v1/webhook_endpoints', { url: receiverUrl, event_types: [], description: 'demo receiver' });
    expect(we.status === 201 && typeof we.body.secret === 'string', `webhook endpoint create: ${we.status} ${JSON.stringify(we.body)}`);
    cleanups.push({
      what: `webhook endpoint ${we.body.id}`,
      required: true,
      run: () => call('DELETE', `/v1/webhook_endpoints/${we.body.id}`),
    });
    secret = we.body.secret;
    ok(`${we.body.id} (secret ${we.body.secret_prefix}...)`);

    step('client');
    const cl = await call('POST', '/v1/clients', { display_name: 'Acme Corp', email: 'ap@acme.example', company: 'Acme Corp' });
    expect(cl.status === 201, `client create: ${cl.status} ${JSON.stringify(cl.body)}`);
    ok(cl.body.id);

    step('payment link: 100.00 USD, crypto-only (settles into the service wallet)');
    const lk = await call('POST', '/v1/payment_links', {
      amount: { amount: '10000', currency: 'USD', decimals: 2 },
      invoice_number: `INV-${Date.now()}`,
      client_id: cl.body.id,
      accepted_rail_kinds: ['crypto'],
    });
    expect(lk.status === 201 && lk.body.status === 'draft', `link create: ${lk.status} ${JSON.stringify(lk.body)}`);
    ok(`${lk.body.id} ${lk.body.reference_id} "${lk.body.title}" (draft)`);

    const before = await call('GET', '/v1/wallet/balances');
    expect(before.status === 200, `balances: ${before.status} ${JSON.stringify(before.body)}`);
    const balanceBefore = BigInt(before.body.balances[0].amount.amount);

    step('activate');
    const act = await call('POST', `/v1/payment_links/${lk.body.id}/activate`, { attestation_accepted: true });
    expect(act.status === 200 && act.body.status === 'active' && act.body.url, `activate: ${act.status} ${JSON.stringify(act.body)}`);
    ok(`${act.body.url} / ${act.body.short_url}; payable ${JSON.stringify(act.body.payable_rails)}`);
    const token = String(act.body.url).split('/pay/')[1];

    step('payer opens the session (by short code) and views it');
    const byCode = await call('GET', `/v1/payment_sessions/by_code/${act.body.short_code}`, undefined, 'none');
    expect(byCode.status === 200 && byCode.body.token === token, `by_code: ${byCode.status} ${JSON.stringify(byCode.body)}`);
    const viewed = await call('POST', `/v1/payment_sessions/${token}/view`, {}, 'none');
    expect(viewed.status === 200 && viewed.body.status === 'viewed', `view: ${viewed.status} ${JSON.stringify(viewed.body)}`);
    ok(`session ${viewed.body.status}; rails ${JSON.stringify(viewed.body.rails)}`);

    step('payer chooses the native rail');
    const pay = await call(
      'POST',
      `/v1/payment_sessions/${token}/payments`,
      { rail: 'crypto_native', payer_email: 'payer@example.com' },
      'none',
    );
    expect(pay.status === 201, `create payment: ${pay.status} ${JSON.stringify(pay.body)}`);
    const di = pay.body.deposit_instructions;
    expect(
      di.amount.amount === '101000000' && di.amount.currency === 'USDC',
      `total due should be 101.000000 USDC, got ${JSON.stringify(di.amount)}`,
    );
    ok(`${pay.body.id}: send ${di.amount.amount} (6 dp) ${di.asset} to ${di.address} on ${di.chain}`);
    const again = await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }, 'none');
    expect(again.status === 200 && again.body.id === pay.body.id, 'same live attempt returns the same instructions');
    ok('same live attempt returns the same instructions');

    step('chain: a short deposit of 60.000000 USDC');
    const t1 = await call(
      'POST',
      '/sim/chain/transfers',
      { chain: di.chain, to_address: di.address, asset: di.asset, amount: '60000000' },
      'none',
    );
    expect(t1.status === 201, `sim transfer: ${t1.status} ${JSON.stringify(t1.body)}`);
    const under = await waitFor('payment underpaid', async () => {
      const p = await call('GET', `/v1/payments/${pay.body.id}`);
      return p.body.status === 'underpaid' ? p.body : null;
    });
    const linkProcessing = await call('GET', `/v1/payment_links/${lk.body.id}`);
    expect(
      linkProcessing.body.status === 'processing' && linkProcessing.body.partial_payment?.received?.amount === '60000000',
      `link should be processing with partial_payment: ${JSON.stringify(linkProcessing.body)}`,
    );
    ok(`payment underpaid (received ${under.amount_received.amount}); link processing with partial_payment`);

    step('chain: the top-up of 41.000000 USDC');
    const t2 = await call(
      'POST',
      '/sim/chain/transfers',
      { chain: di.chain, to_address: di.address, asset: di.asset, amount: '41000000' },
      'none',
    );
    expect(t2.status === 201, `sim transfer: ${t2.status}`);
    const settled = await waitFor('link settled', async () => {
      const l = await call('GET', `/v1/payment_links/${lk.body.id}`);
      return l.body.status === 'settled' ? l.body : null;
    });
    const p2 = await call('GET', `/v1/payments/${pay.body.id}`);
    expect(
      p2.body.amount_received.amount === '101000000' && p2.body.amount_verdict === 'exact' && p2.body.status === 'settled',
      `payment: ${JSON.stringify(p2.body)}`,
    );
    ok(
      `link settled at ${settled.settled_at}; payment ${p2.body.status}, verdict ${p2.body.amount_verdict}, received ${p2.body.amount_received.amount}`,
    );

    step('service wallet balance');
    const after = await call('GET', '/v1/wallet/balances');
    const delta = BigInt(after.body.balances[0].amount.amount) - balanceBefore;
    expect(delta === 100000000n, `wallet should have received the net 100.000000 USDC, got ${delta}`);
    ok(`+${delta} (6 dp) ${after.body.balances[0].asset}; usd_total ${after.body.usd_total.amount} cents`);

    step('events');
    const evs = await call('GET', `/v1/payment_links/${lk.body.id}/events?limit=100`);
    const types = (evs.body.data as Array<{ type: string }>).map((e) => e.type).reverse();
    for (const t of [
      'payment_link.created',
      'payment_link.activated',
      'payment_link.viewed',
      'payment.created',
      'payment.underpaid',
      'payment_link.partially_paid',
      'payment.paid',
      'payment_link.paid',
      'payment.settled',
      'payment_link.settled',
    ]) {
      expect(types.includes(t), `event ${t} missing from ${JSON.stringify(types)}`);
    }
    ok(types.join(', '));

    step('webhooks (signatures verified with standardwebhooks)');
    await waitFor('webhooks for every event', async () => {
      const got = new Set(received.map((r) => r.type));
      return ['payment.underpaid', 'payment.paid', 'payment_link.paid', 'payment_link.settled', 'payment.settled'].every((t) => got.has(t));
    });
    expect(badSignatures.length === 0, `bad signatures: ${badSignatures.join('; ')}`);
    ok(`${received.length} deliveries verified: ${[...new Set(received.map((r) => r.type))].join(', ')}`);
    await bankJourney(call, waitFor, cleanups);
    await offrampJourney(call, waitFor, { step, ok, check: expect });
  } catch (e) {
    failure = e;
  }
  // Whatever happened above: remove what the demo created, then report the first failure.
  const failed = await cleanUp(cleanups);
  receiver.close();
  const left = `could not remove ${failed.join(', ')} from the dev account`;
  if (failure) {
    if (failed.length) process.stderr.write(`  ${left}\n`);
    throw failure;
  }
  if (failed.length) throw new DemoFailure(left);
  process.stdout.write('\nDemo passed.\n');
}

/** Something the demo created, and how to remove it. */
interface Cleanup {
  what: string;
  required: boolean;
  run: () => Promise<{ status: number; body: any }>;
}

/** Runs `cleanups` newest first, each once, whatever happened before; returns what a required one could not remove. */
async function cleanUp(cleanups: Cleanup[]): Promise<string[]> {
  const failed: string[] = [];
  if (cleanups.length) step('removing what the demo created on the dev account');
  for (const c of cleanups.reverse()) {
    let status = 0;
    try {
      status = (await c.run()).status;
    } catch {
      /* unreachable API: reported below */
    }
    if (status >= 200 && status < 300) ok(`removed ${c.what}`);
    else if (c.required) failed.push(`${c.what} (${status || 'no answer'})`);
    else process.stdout.write(`  - kept ${c.what} (${status || 'no answer'})\n`);
  }
  return failed;
}

type Call = (method: string, path: string, body?: unknown, auth?: 'key' | 'session' | 'none') => Promise<{ status: number; body: any }>;
type WaitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms?: number) => Promise<T>;

/**
 * The bank-rail journey of the demo: SEPA link paid short by bank, topped up, settled to
 * the merchant's IBAN. Registers the removal of its address-book entry in `cleanups`.
 */
async function bankJourney(call: Call, waitFor: WaitFor, cleanups: Cleanup[]): Promise<void> {
  step("address book: the merchant's EUR bank account (IBAN), dashboard session");
  const adr = await call('POST', '/v1/address_book', { kind: 'bank', label: 'EUR operating account' }, 'session');
  expect(adr.status === 201, `address book create: ${adr.status} ${JSON.stringify(adr.body)}`);
  cleanups.push({
    what: `address-book entry ${adr.body.id}`,
    required: false,
    run: () => call('DELETE', `/v1/address_book/${adr.body.id}`, undefined, 'session'),
  });
  const ben = await call(
    'POST',
    `/v1/address_book/${adr.body.id}/beneficiary`,
    {
      account_owner_type: 'business',
      account_holder_name: 'Demo Merchant SARL',
      rail: 'sepa',
      iban: 'FR14 2004 1010 0505 0001 3M02 606',
      bic: 'PSSTFRPPPAR',
    },
    'session',
  );
  expect(ben.status === 200, `beneficiary: ${ben.status} ${JSON.stringify(ben.body)}`);
  ok(`${adr.body.id}: IBAN ${ben.body.beneficiary.iban_country}...${ben.body.beneficiary.iban_last4}`);

  step('payment link: 250.00 EUR settling to that IBAN');
  const lk = await call('POST', '/v1/payment_links', {
    amount: { amount: '25000', currency: 'EUR', decimals: 2 },
    title: 'Workshop (EUR)',
    settlement_destination: { address_book_id: adr.body.id },
  });
  expect(lk.status === 201, `link create: ${lk.status} ${JSON.stringify(lk.body)}`);
  const act = await call('POST', `/v1/payment_links/${lk.body.id}/activate`, { attestation_accepted: true });
  expect(
    act.status === 200 && act.body.settlement_kind === 'fiat_provider' && act.body.expected_payer_type === 'bank',
    `activate: ${JSON.stringify(act.body)}`,
  );
  ok(
    `${lk.body.id}: settlement ${act.body.settlement_kind}, payable ${JSON.stringify(act.body.payable_rails)}, payer ${act.body.expected_payer_type}`,
  );
  const token = String(act.body.url).split('/pay/')[1];

  step('payer chooses SEPA');
  const pay = await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'sepa', payer_type: 'individual' }, 'none');
  expect(pay.status === 201 && pay.body.bank_deposit_instructions, `create payment: ${pay.status} ${JSON.stringify(pay.body)}`);
  const bdi = pay.body.bank_deposit_instructions;
  ok(
    `${pay.body.id}: send EUR to ${bdi.iban} (${bdi.bic}, ${bdi.beneficiary_name}), reference ${bdi.reference} (matching ${bdi.matching})`,
  );

  const credit = (amount: string) =>
    call(
      'POST',
      '/sim/bank/credits',
      { rail: 'sepa', currency: 'EUR', amount, reference: bdi.reference, to_account: bdi.iban, sender_name: 'Jo Payer' },
      'none',
    );
  const status = async (want: string) =>
    waitFor(`payment ${want}`, async () => {
      const p = await call('GET', `/v1/payments/${pay.body.id}`);
      return p.body.status === want ? p.body : null;
    });

  step('bank: a SEPA transfer of 150.00 EUR arrives (short)');
  const c1 = await credit('15000');
  expect(c1.status === 201 && c1.body.matched, `sim credit: ${c1.status} ${JSON.stringify(c1.body)}`);
  const under = await status('underpaid');
  const mid = await call('GET', `/v1/payment_links/${lk.body.id}`);
  expect(
    mid.body.status === 'processing' && mid.body.partial_payment?.received?.amount === '15000',
    `link should be processing: ${JSON.stringify(mid.body)}`,
  );
  ok(
    `payment underpaid (received ${under.amount_received.amount} EUR cents, verdict ${under.amount_verdict}); link processing with partial_payment`,
  );

  step('bank: the top-up of 100.00 EUR');
  expect((await credit('10000')).status === 201, 'sim credit');
  const paid = await waitFor('payment paid or settling', async () => {
    const p = await call('GET', `/v1/payments/${pay.body.id}`);
    return ['paid', 'settled'].includes(p.body.status) ? p.body : null;
  });
  ok(`payment ${paid.status}, received ${paid.amount_received.amount}, amount_verdict ${paid.amount_verdict}`);

  step("fiat rail: the settlement payout to the merchant's IBAN is paid");
  const rail = await waitFor('settlement payout', async () => {
    const r = await call('POST', `/sim/providers/fiat_rails/payments/${pay.body.id}`, { state: 'paid' }, 'none');
    return r.status === 200 ? r.body : null;
  });
  const settled = await status('settled');
  const link = await call('GET', `/v1/payment_links/${lk.body.id}`);
  expect(link.body.status === 'settled', `link should be settled: ${JSON.stringify(link.body)}`);
  ok(
    `${rail.rail} payout ${rail.provider_reference} of ${rail.amount} ${rail.currency} cents to IBAN ...${ben.body.beneficiary.iban_last4}; payment ${settled.status}, link ${link.body.status}`,
  );
}

main().catch((e) => {
  process.stderr.write(`\nDemo FAILED: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
