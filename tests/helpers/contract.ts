/**
 * Contract-test helpers shared by the fuzzing run (tests/contract/fuzz.test.ts) and the
 * authorization matrix (tests/api/authz-matrix.test.ts): real objects of one account, addressed by
 * the path parameters of the operation registry's path templates, so calls reach past the 404.
 */
import crypto from 'node:crypto';
import { transaction } from '../../lib/db';
import { insertApiKey, type DevCredentials } from '../../activities/accounts/commands';
import { call, client, eventually } from './api';
import type { Receiver } from './receiver';

/**
 * Real ids of one account: by first path segment (for `{id}`), by parameter name, and per
 * operation (`'<METHOD> <OpenAPI template>'`, e.g. `'POST /payouts/{id}/cancel'`) where an
 * operation needs an object of its own: a destructive call (cancel, delete, replace) or one that
 * would change what the other operations of the same object answer.
 */
export interface AccountObjects {
  byResource: Record<string, string[]>;
  byParam: Record<string, string[]>;
  byOperation: Record<string, Record<string, string[]>>;
}

type Api = ReturnType<typeof client>;

function expectStatus(res: { status: number; body: unknown }, status: number, what: string): any {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
/** A fresh lower-case EVM address (no checksum carried), so entries never collide (409 exists). */
const randomEvm = () => `0x${crypto.randomBytes(20).toString('hex')}`;
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });
const ACH = {
  account_owner_type: 'business',
  account_holder_name: 'Contract Supplier LLC',
  account_number: '000123456789',
  routing_number: '021000021',
};

/**
 * Address book (spec 2.11, 4.10; dashboard session only, so created with the owner's session):
 * a crypto entry (read, update, recheck) and a bank entry with its details set (read back
 * masked) shared by the non-destructive operations; a bank entry without details for
 * `/beneficiary` (accepted once); a crypto entry of its own for DELETE.
 */
async function addressBook(s: Api): Promise<Pick<AccountObjects, 'byResource' | 'byOperation'>> {
  const entry = async (body: Record<string, unknown>, what: string) =>
    expectStatus(await s.post('/v1/address_book', body), 201, what).id as string;
  const [crypto0, bank, bare, doomed] = await Promise.all([
    entry(
      {
        kind: 'crypto',
        chain: 'base',
        address: randomEvm(),
        label: 'Contract treasury',
        counterparty_name: 'Contract Treasury Ltd',
        counterparty_country: 'GB',
      },
      'crypto entry',
    ),
    entry({ kind: 'bank', label: 'Contract bank', counterparty_name: 'Contract Supplier LLC', counterparty_country: 'US' }, 'bank entry'),
    entry({ kind: 'bank', label: 'Contract bank without details' }, 'bare bank entry'),
    entry({ kind: 'crypto', chain: 'ethereum', address: randomEvm(), label: 'Contract entry to delete' }, 'entry to delete'),
  ]);
  expectStatus(
    await s.post(`/v1/address_book/${bank}/beneficiary`, { ...ACH, bank_name: 'Chase', rail: 'ach' }),
    200,
    'bank entry details',
  );
  return {
    byResource: { address_book: [crypto0, bank] },
    byOperation: {
      'POST /address_book/{id}/beneficiary': { id: [bare, bank] },
      'DELETE /address_book/{id}': { id: [doomed] },
    },
  };
}

/**
 * Payouts (spec 2.6, 3, 4.3) on the executable `usd_ach` corridor: shared by the reads and the
 * funding calls, one in `awaiting_funds` (beneficiary set, funding confirmed by the owner's session:
 * attempt, provider transfer, funding instructions) and a draft with its beneficiary (fundable, a
 * wallet funding quote that is available). Of their own: a bare draft for `/beneficiary` (once), an
 * `awaiting_funds` payout for `/cancel` (re-reads the live provider transfer), a cancelled draft for
 * `/replace` (one replacement, then 409), a draft for `/mark_sent` (which would turn every later
 * wallet funding quote of the object into `marked_sent`). A settled payout (the journey driven
 * by the simulator, the outside world) comes first for `/receipt` and is a third shared id (an
 * attempt with figures, the full event list).
 */
async function payouts(k: Api, s: Api): Promise<Pick<AccountObjects, 'byResource' | 'byOperation'>> {
  const draft = async (amount: string, what: string) =>
    expectStatus(
      await k.post('/v1/payouts', { invoice_amount: usd(amount), corridor_id: 'usd_ach', note: `Contract ${what}` }),
      201,
      `payout ${what}`,
    ).id as string;
  const withBeneficiary = async (amount: string, what: string) => {
    const id = await draft(amount, what);
    expectStatus(await k.post(`/v1/payouts/${id}/beneficiary`, ACH), 200, `payout ${what} beneficiary`);
    return id;
  };
  const awaitingFunds = async (amount: string, what: string) => {
    const id = await withBeneficiary(amount, what);
    const f = expectStatus(await s.post(`/v1/payouts/${id}/funding_instructions`, { source_chain: 'base' }), 200, `payout ${what} funding`);
    if (f.status !== 'awaiting_funds') throw new Error(`payout ${what}: expected awaiting_funds, got ${f.status}`);
    return id;
  };
  // The journey driven by the simulator (the outside world): deposit on base, rail paid, recipient confirms.
  const settled = async (amount: string, what: string) => {
    const id = await withBeneficiary(amount, what);
    const f = expectStatus(await s.post(`/v1/payouts/${id}/funding_instructions`, { source_chain: 'base' }), 200, `payout ${what} funding`);
    const status = async () => expectStatus(await k.get(`/v1/payouts/${id}`), 200, `payout ${what}`).status as string;
    const reaches = (st: string) => eventually(async () => (await status()) === st, `payout ${what} ${st}`, 20_000);
    expectStatus(
      await sim('/chain/transfers', { chain: 'base', to_address: f.deposit_address, asset: 'USDC', amount: f.gross_amount.amount }),
      201,
      `payout ${what} deposit`,
    );
    await reaches('processing');
    expectStatus(await sim(`/providers/fiat_rails/payments/${id}`, { state: 'paid' }), 200, `payout ${what} rail paid`);
    await reaches('paid');
    expectStatus(
      await sim(`/providers/fiat_rails/payments/${id}`, { recipient_received_amount: amount }),
      200,
      `payout ${what} recipient confirms`,
    );
    await reaches('settled');
    return id;
  };
  const cancelled = async (amount: string, what: string) => {
    const id = await withBeneficiary(amount, what);
    expectStatus(await k.post(`/v1/payouts/${id}/cancel`, {}), 200, `payout ${what} cancel`);
    return id;
  };
  const [funded, fundable, done, bare, toCancel, toReplace, toMark] = await Promise.all([
    awaitingFunds('120000', 'awaiting funds'),
    withBeneficiary('45000', 'fundable draft'),
    settled('60000', 'settled'),
    draft('30000', 'bare draft'),
    awaitingFunds('25000', 'to cancel'),
    cancelled('15000', 'to replace'),
    withBeneficiary('10000', 'to mark sent'),
  ]);
  return {
    byResource: { payouts: [funded, fundable, done] },
    byOperation: {
      'GET /payouts/{id}/receipt': { id: [done, funded] },
      'POST /payouts/{id}/beneficiary': { id: [bare] },
      'POST /payouts/{id}/cancel': { id: [toCancel] },
      'POST /payouts/{id}/replace': { id: [toReplace] },
      'POST /payouts/{id}/mark_sent': { id: [toMark] },
    },
  };
}

/**
 * Payroll (spec 2.7, 4.4): a reviewed run with two rows shared by the reads (its items, its
 * recipients, a template made from it), a run of its own for `/approve` and one for `/cancel`, an
 * approved run with funding instructions for the funding operations and `/execute`.
 */
async function payroll(k: Api): Promise<Pick<AccountObjects, 'byResource' | 'byParam' | 'byOperation'>> {
  const run = async (what: string) =>
    expectStatus(
      await k.post('/v1/payroll_runs', {
        title: `Contract ${what}`,
        currency: 'USD',
        rows: [
          { email: 'contract.ana@example.com', name: 'Contract Ana', amount: usd('150000') },
          { email: 'contract.bo@example.com', name: 'Contract Bo', amount: usd('90000') },
        ],
      }),
      201,
      `payroll run ${what}`,
    ).id as string;
  const [shared, toApprove, toCancel, toFund] = await Promise.all([run('shared'), run('to approve'), run('to cancel'), run('to fund')]);
  // An approved run with its funding instructions requested: the funding reads, refreshes, attempts and execute (409 underfunded).
  expectStatus(await k.post(`/v1/payroll_runs/${toFund}/approve`, {}), 200, 'payroll run approved');
  expectStatus(await k.post(`/v1/payroll_runs/${toFund}/funding_instructions`, {}), 200, 'payroll funding instructions');
  const items = expectStatus(await k.get(`/v1/payroll_runs/${shared}/items`), 200, 'payroll items').data as Array<{
    id: string;
    recipient: { id: string };
  }>;
  const template = expectStatus(await k.post('/v1/payroll_templates', { from_run_id: shared }), 201, 'payroll template').id as string;
  // Recipient sessions (public `prk_` tokens, handed out by reissue_link only) of a run of their own, so
  // that reissue_link fuzzed on the shared run never replaces them: one to read, one to submit to (once).
  const sessions = await run('sessions');
  const sessionItems = expectStatus(await k.get(`/v1/payroll_runs/${sessions}/items`), 200, 'payroll session items').data as Array<{
    id: string;
  }>;
  const [readToken, submitToken] = await Promise.all(
    sessionItems.map(
      async (i) =>
        expectStatus(await k.post(`/v1/payroll_runs/${sessions}/items/${i.id}/reissue_link`, {}), 200, 'payroll session link')
          .recipient_session.token as string,
    ),
  );
  return {
    byResource: { payroll_runs: [shared], payroll_recipients: items.map((i) => i.recipient.id), payroll_templates: [template] },
    byParam: { item_id: items.map((i) => i.id) },
    byOperation: {
      'POST /payroll_runs/{id}/approve': { id: [toApprove] },
      'POST /payroll_runs/{id}/cancel': { id: [toCancel] },
      'GET /payroll_runs/{id}/funding_instructions': { id: [toFund] },
      'POST /payroll_runs/{id}/funding_instructions': { id: [toFund] },
      'GET /payroll_runs/{id}/attempts': { id: [toFund] },
      'POST /payroll_runs/{id}/execute': { id: [toFund] },
      'GET /payroll_recipient_sessions/{token}': { token: [readToken] },
      'POST /payroll_recipient_sessions/{token}/destination': { token: [submitToken] },
    },
  };
}

/**
 * Creates, through the API, one object of each implemented resource: with `creds.live_key` a
 * client, a product, a draft and an active crypto-only link (with a payer payment), a webhook
 * endpoint on `receiver` with a test delivery, payouts in useful states (see `payouts`); with the
 * owner's `creds.session_token` address-book entries (see `addressBook`); plus a spare API key
 * (safe to roll or revoke), and an active link for `/cancel` and an endpoint for DELETE of their
 * own. About two seconds. Throws when any creation is not answered as expected.
 */
export async function createAccountObjects(creds: DevCredentials, receiver: Receiver): Promise<AccountObjects> {
  const k = client(creds.live_key);
  const s = client(creds.session_token);
  const areas = Promise.all([addressBook(s), payouts(k, s), payroll(k), walletDeposits(s), orders(k), subscriptions(k, s)]);
  // Settled even when the rest throws first, so no creation is left running unobserved.
  areas.catch(() => undefined);
  const cli = expectStatus(await k.post('/v1/clients', { display_name: 'Contract client', email: 'contract@example.com' }), 201, 'client');
  const prd = expectStatus(await k.post('/v1/products', { name: 'Contract product', unit_price: usd('500') }), 201, 'product');
  const draft = expectStatus(
    await k.post('/v1/payment_links', { amount: usd('2500'), title: 'Contract draft', client_id: cli.id }),
    201,
    'draft link',
  );
  const cryptoDraft = expectStatus(
    await k.post('/v1/payment_links', { amount: usd('10000'), title: 'Contract crypto', accepted_rail_kinds: ['crypto'] }),
    201,
    'crypto link',
  );
  const active = expectStatus(
    await k.post(`/v1/payment_links/${cryptoDraft.id}/activate`, { attestation_accepted: true }),
    200,
    'activate',
  );
  const token = String(active.url).split('/').pop()!;
  const pay = expectStatus(
    await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }, { idem: null }),
    201,
    'payer payment',
  );
  const hook = receiver.path('contract');
  const whe = expectStatus(await k.post('/v1/webhook_endpoints', { url: hook.url, description: 'contract' }), 201, 'webhook endpoint');
  const whd = expectStatus(await k.post(`/v1/webhook_endpoints/${whe.id}/send_test_event`), 200, 'test event');
  // Of their own: a link to cancel and an endpoint to delete (the shared ones stay usable).
  const toCancel = expectStatus(
    await k.post('/v1/payment_links', { amount: usd('7500'), title: 'Contract link to cancel', accepted_rail_kinds: ['crypto'] }),
    201,
    'link to cancel',
  );
  expectStatus(
    await k.post(`/v1/payment_links/${toCancel.id}/activate`, { attestation_accepted: true }),
    200,
    'activate the link to cancel',
  );
  const wheDoomed = expectStatus(
    await k.post('/v1/webhook_endpoints', { url: hook.url, description: 'contract, to delete' }),
    201,
    'webhook endpoint to delete',
  );
  const events: string[] = await eventually(async () => {
    const r = await k.get('/v1/events?limit=5');
    return r.status === 200 && r.body.data.length > 0 ? r.body.data.map((e: { id: string }) => e.id) : null;
  }, 'an event of the account');
  const walletRows = expectStatus(await k.get('/v1/wallet/wallets'), 200, 'wallets').data as Array<{
    id: string;
    address: string;
    chain: string;
  }>;
  const wallets = walletRows.map((w) => w.id);
  // A USDC transfer into the wallet, for `GET /wallet/transactions/{hash}`.
  const asset = expectStatus(await k.get('/v1/wallet/balances'), 200, 'balances').balances[0].asset as string;
  const walletTx = expectStatus(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: walletRows[0].chain, asset, to_address: walletRows[0].address, amount: '1000000' },
      { idem: null },
    ),
    201,
    'wallet transfer',
  ).tx_hash as string;
  // A send intent of the wallet (dashboard session), for `/wallet/send_intents/{id}` and its `source_tx`.
  const sendIntent = expectStatus(
    await s.post('/v1/wallet/send_intents', {
      destination_chain: walletRows[0].chain,
      destination_address: randomEvm(),
      amount: { amount: '100000', currency: asset, decimals: 6 },
    }),
    201,
    'send intent',
  ).id as string;
  // A wallet-funding virtual account (dark-flag, open on the test stack), for its reads and actions.
  const va = expectStatus(await s.post('/v1/wallet/virtual_accounts', { currency: 'GBP' }), 201, 'virtual account').id as string;
  // An off-ramp intent awaiting funds (dark-flag, open on the test stack), for its read and cancel.
  const ba = expectStatus(await s.post('/v1/wallet/external_accounts', { ...ACH, rail: 'ach' }), 201, 'external account').id as string;
  const ofr = expectStatus(
    await s.post('/v1/wallet/offramp_intents', {
      external_account_id: ba,
      destination_currency: 'USD',
      destination_payment_rail: 'ach',
      amount: { amount: '1000000', currency: asset, decimals: 6 },
    }),
    201,
    'off-ramp intent',
  ).id as string;
  // The owner's customer (dashboard session; customers are dark-flag, open on the test stack).
  const cus = expectStatus(
    await s.post('/v1/customers', { customer_type: 'business', legal_name: 'Contract Customer Ltd' }),
    201,
    'customer',
  ).id as string;
  // A screening with a report (free allowance), and a transfer on base for the transaction lookup.
  const scr = expectStatus(await k.post('/v1/screenings', { chain: 'ethereum', address: randomEvm() }), 201, 'screening').id as string;
  const srp = expectStatus(await k.post(`/v1/screenings/${scr}/reports`), 201, 'screening report').id as string;
  const baseTx = expectStatus(
    await call('POST', '/sim/chain/transfers', { chain: 'base', asset: 'USDC', to_address: randomEvm(), amount: '1000' }, { idem: null }),
    201,
    'base transfer',
  ).tx_hash as string;
  const spare = await transaction((m) =>
    insertApiKey(m, { accountId: creds.account_id, livemode: true, scopes: ['account.read'], name: 'contract spare' }),
  );
  const [book, pos, prl, wd, ord, subs] = await areas;
  return {
    byResource: {
      payment_links: [active.id, draft.id],
      clients: [cli.id],
      products: [prd.id],
      payments: [pay.id],
      webhook_endpoints: [whe.id],
      webhook_deliveries: [whd.id],
      events,
      wallet: wallets,
      api_keys: [spare.key.id],
      ...book.byResource,
      ...pos.byResource,
      ...prl.byResource,
      ...ord.byResource,
      ...subs.byResource,
    },
    byParam: { token: [token], code: [active.short_code], payment_id: [pay.id], hash: [walletTx], ...prl.byParam },
    byOperation: {
      'POST /payment_links/{id}/cancel': { id: [toCancel.id] },
      'DELETE /webhook_endpoints/{id}': { id: [wheDoomed.id] },
      'GET /wallet/send_intents/{id}': { id: [sendIntent] },
      'POST /wallet/send_intents/{id}/source_tx': { id: [sendIntent] },
      'GET /wallet/virtual_accounts/{id}': { id: [va] },
      'GET /wallet/virtual_accounts/{id}/history': { id: [va] },
      'POST /wallet/virtual_accounts/{id}/deactivate': { id: [va] },
      'POST /wallet/virtual_accounts/{id}/reactivate': { id: [va] },
      'GET /customers/{id}': { id: [cus] },
      'POST /customers/{id}/verification_links': { id: [cus] },
      'GET /customers/{id}/associated_persons': { id: [cus] },
      'GET /customers/{id}/events': { id: [cus] },
      'PATCH /customers/{id}/compliance_profile': { id: [cus] },
      'GET /screenings/{id}': { id: [scr] },
      'GET /screenings/{id}/reports': { id: [scr] },
      'POST /screenings/{id}/reports': { id: [scr] },
      'GET /screenings/{id}/reports/{report_id}': { id: [scr], report_id: [srp] },
      'GET /screenings/{id}/reports/{report_id}/evidence_pdf': { id: [scr], report_id: [srp] },
      'GET /transactions/{chain}/{hash}': { chain: ['base'], hash: [baseTx] },
      'GET /wallet/offramp_intents/{id}': { id: [ofr] },
      'POST /wallet/offramp_intents/{id}/cancel': { id: [ofr] },
      ...book.byOperation,
      ...pos.byOperation,
      ...prl.byOperation,
      ...wd,
      ...ord.byOperation,
      ...subs.byOperation,
    },
  };
}

/**
 * Subscriptions (spec 4.2; issue 16): a monthly subscription with its first invoice for the reads,
 * and one of its own for each of `/pause`, `/resume` (already paused) and `/cancel`.
 */
async function subscriptions(k: Api, s: Api): Promise<Pick<AccountObjects, 'byResource' | 'byOperation'>> {
  const cli = expectStatus(
    await k.post('/v1/clients', { display_name: 'Contract subscriber', email: 'subscriber@example.com' }),
    201,
    'subscriber',
  ).id as string;
  const wallet = expectStatus(
    await s.post('/v1/address_book', { kind: 'crypto', chain: 'tempo', address: randomEvm(), label: 'Contract own wallet' }),
    201,
    'own wallet',
  ).id as string;
  const create = async (what: string) =>
    expectStatus(
      await k.post('/v1/subscriptions', {
        client_id: cli,
        amount: { amount: '15000000', currency: 'USDC', decimals: 6 },
        interval: 'month',
        settlement_destination_id: wallet,
        description: `Contract ${what}`,
      }),
      201,
      `subscription ${what}`,
    ).id as string;
  const [shared, toPause, toResume, toCancel] = await Promise.all([
    create('shared'),
    create('to pause'),
    create('to resume'),
    create('to cancel'),
  ]);
  expectStatus(await k.post(`/v1/subscriptions/${toResume}/pause`, {}), 200, 'subscription paused');
  const invoice = await eventually(async () => {
    const r = await k.get(`/v1/subscriptions/${shared}/invoices`);
    return r.status === 200 && r.body.data.length > 0 ? (r.body.data[0].id as string) : null;
  }, 'the first invoice');
  return {
    byResource: { subscriptions: [shared] },
    byOperation: {
      'GET /subscriptions/{id}/invoices/{invoice_id}': { id: [shared], invoice_id: [invoice] },
      'POST /subscriptions/{id}/pause': { id: [toPause] },
      'POST /subscriptions/{id}/resume': { id: [toResume] },
      'POST /subscriptions/{id}/cancel': { id: [toCancel] },
    },
  };
}

/**
 * Quotes and orders (spec 4.9; issue 16): a quote, an order awaiting a card payment for the reads
 * and events, and an order of its own at the native provider (ACH: cancellable) for `/cancel`.
 */
async function orders(k: Api): Promise<Pick<AccountObjects, 'byResource' | 'byOperation'>> {
  const offer = async (body: Record<string, unknown>, provider: string) => {
    const q = expectStatus(await k.post('/v1/quotes', body), 201, 'quote');
    return {
      quote: q.id as string,
      offer: (q.offers as Array<{ offer_id: string; provider: { id: string } }>).find((o) => o.provider.id === provider)!.offer_id,
    };
  };
  const card = await offer(
    { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '150', to_network: 'base', payment_method: 'card' },
    'rampline',
  );
  const bank = await offer({ side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '150', to_network: 'tempo' }, 'native_fiat');
  const [shared, toCancel] = await Promise.all([
    k.post('/v1/orders', { offer_id: card.offer, wallet_address: randomEvm() }),
    k.post('/v1/orders', { offer_id: bank.offer, wallet_address: randomEvm() }),
  ]).then((r) => r.map((x, i) => expectStatus(x, 201, i === 0 ? 'order' : 'order to cancel').id as string));
  return {
    byResource: { quotes: [card.quote], orders: [shared] },
    byOperation: { 'POST /orders/{id}/cancel': { id: [toCancel] } },
  };
}

/**
 * Wallet deposits and conversions (spec 4.5; issue 14; dashboard session only): a deposit intent
 * from base, a conversion for the reads and one of its own for `source_tx` (the fuzzer submits it).
 */
async function walletDeposits(s: Api): Promise<AccountObjects['byOperation']> {
  const dpi = expectStatus(await s.post('/v1/wallet/deposit_intents', { source_chain: 'base' }), 201, 'deposit intent').id as string;
  const pair = expectStatus(await s.get('/v1/wallet/conversion_pairs'), 200, 'conversion pairs').data[0] as {
    from_asset: string;
    to_asset: string;
  };
  const conversion = async () =>
    expectStatus(
      await s.post('/v1/wallet/conversions', {
        from_asset: pair.from_asset,
        to_asset: pair.to_asset,
        amount: { amount: '1000000', currency: pair.from_asset, decimals: 6 },
      }),
      201,
      'conversion',
    ).id as string;
  const [cnv, cnvOwn] = await Promise.all([conversion(), conversion()]);
  return {
    'GET /wallet/deposit_intents/{id}': { id: [dpi] },
    'GET /wallet/conversions/{id}': { id: [cnv] },
    'POST /wallet/conversions/{id}/source_tx': { id: [cnvOwn] },
  };
}

/** Parameter names of an OpenAPI (`{x}`) or Koa (`:x`) path template. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}|:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? m[2]);
}

/** The OpenAPI form (`/a/{id}`) of an OpenAPI or Koa (`/a/:id`) path template. */
export function openApiTemplate(template: string): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Real ids for each parameter of `template` (only those known), e.g. `{ id: ['pl_...'] }`. With
 * `method`, the operation's own objects (`byOperation`) come first; the first id of each list is
 * the one a single call should use.
 */
export function realIdsFor(template: string, objects: AccountObjects, method?: string): Record<string, string[]> {
  const tpl = openApiTemplate(template);
  const resource = tpl.split('/').filter(Boolean)[0];
  const own = method ? objects.byOperation[`${method.toUpperCase()} ${tpl}`] : undefined;
  const out: Record<string, string[]> = {};
  for (const p of templateParams(tpl)) {
    const ids = own?.[p] ?? objects.byParam[p] ?? (p === 'id' ? objects.byResource[resource] : undefined);
    if (ids?.length) out[p] = ids;
  }
  return out;
}
