/**
 * The recorder's journey kit (scripts/record-histories.ts): what a journey is, its handle on the
 * stack (Ctx) and the helpers that create objects through /v1 and act as the outside world through
 * /sim. Amounts are strings of minor units (USD cents, USDC 6 decimals).
 */
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** One history to write: workflow `workflowId` of `type` (its run `runId`, default the latest), stored as `<type>/<path>.json`. */
export interface Capture {
  type: string;
  path: string;
  workflowId: string;
  runId?: string;
}

/** The journeys' handle on the stack: the API as merchant, payer and outside world, and Temporal. */
export interface Ctx {
  /** One request; `as`: `key` (secret key), `dash` (owner session), `anon` (payer, /sim). Throws unless 2xx. */
  api(as: 'key' | 'dash' | 'anon', method: string, p: string, body?: unknown): Promise<any>;
  /** Same, answering the status and body whatever the status. */
  raw(as: 'key' | 'dash' | 'anon', method: string, p: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Polls `fn` until it answers a truthy value (throws naming `what` after `ms`). */
  until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms?: number): Promise<T>;
  /** Polls GET `p` (as `as`) until `field` (default status) is `want`; answers the object. */
  untilField(as: 'key' | 'dash', p: string, want: unknown, field?: string): Promise<any>;
  /** Advances the test server's clock by `ms` (timers due meanwhile fire). */
  skip(ms: number): Promise<void>;
  /** Waits until workflow `id` is closed or resting (see `settled`): before a skip, so the skip starts from its wait. */
  rest(id: string): Promise<void>;
  /** The run id of workflow `id`'s latest run, once it is closed or resting (to store a run a later signal follows with another). */
  runOf(id: string): Promise<string>;
  /** A fresh merchant account (keys, owner session, service wallet). */
  newAccount(): Promise<void>;
  /** The account of the last `newAccount()`. */
  accountId(): string;
  /** Opens switch `name` for the current account. */
  flag(name: string): Promise<void>;
  /** Runs SQL `text` with `params` on the stack's database (what an operator fixes by hand before a `retry`); its rows. */
  sql(text: string, params?: unknown[]): Promise<any[]>;
  /** Waits until workflow `id` (run `runId`, default the latest) is closed; answers its result (throws unless it completed). */
  closed(id: string, runId?: string): Promise<unknown>;
  /** A local webhook receiver answering `statuses` in order (then 200); its URL. */
  receiver(statuses: number[]): Promise<string>;
  env: TestWorkflowEnvironment;
}

/** A journey: drives one object (or a few) along one path and says which workflows to store. */
export interface Journey {
  name: string;
  /** The product's NETWORK for this journey (default testnet; the cross-network rail exists on mainnet only). */
  network?: Network;
  run(ctx: Ctx): Promise<Capture[]>;
}

export type Network = 'mainnet' | 'testnet';

export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;
export const REFUND = '0x52908400098527886E0F7030069857D2E4169EE7';
const randomAddress = () => `0x${crypto.randomBytes(20).toString('hex')}`;

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

/** A payout draft with its ACH beneficiary (1,000.00 USD from base). */
export async function fundablePayout(ctx: Ctx): Promise<string> {
  const p = await ctx.api('key', 'POST', '/v1/payouts', { invoice_amount: usd('100000'), corridor_id: 'usd_ach', source_chain: 'base' });
  await ctx.api('key', 'POST', `/v1/payouts/${p.id}/beneficiary`, {
    account_owner_type: 'business',
    account_holder_name: 'Supplier LLC',
    account_number: '123456789',
    routing_number: '021000021',
  });
  return p.id;
}

/** An activated crypto-only link of `cents` USD (`extra`: more create fields) and its payer token. */
export async function cryptoLink(ctx: Ctx, cents: string, extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const l = await ctx.api('key', 'POST', '/v1/payment_links', {
    amount: usd(cents),
    title: 'Recorded journey',
    accepted_rail_kinds: ['crypto'],
    ...extra,
  });
  const a = await ctx.api('key', 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  return { id: l.id, token: String(a.url).split('/pay/')[1] };
}

/** ISO time `days` days from now (wall clock: the API checks a link's `expires_at` against it). */
export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** The payer opens a native-rail payment on link `token`: its id and deposit instructions. */
export async function nativePayment(
  ctx: Ctx,
  token: string,
): Promise<{ id: string; di: { address: string; chain: string; asset: string; amount: { amount: string } } }> {
  const p = await ctx.api('anon', 'POST', `/v1/payment_sessions/${token}/payments`, {
    rail: 'crypto_native',
    payer_email: 'payer@example.com',
  });
  return { id: p.id, di: p.deposit_instructions };
}

export const chainTransfer = (ctx: Ctx, chain: string, to: string, asset: string, amount: string, from?: string) =>
  ctx.api('anon', 'POST', '/sim/chain/transfers', { chain, to_address: to, asset, amount, ...(from ? { from_address: from } : {}) });

/** An activated link settling to a bank address-book entry on `rail` (`cents` in the rail's currency) and its payer token. */
export async function bankLink(
  ctx: Ctx,
  rail: 'ach',
  cents: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; token: string }> {
  const e = await ctx.api('dash', 'POST', '/v1/address_book', { kind: 'bank', label: `Operating ${rail}` });
  await ctx.api('dash', 'POST', `/v1/address_book/${e.id}/beneficiary`, {
    account_owner_type: 'business',
    account_holder_name: 'Acme Ltd',
    rail,
    account_number: '000123456789',
    routing_number: '021000021',
  });
  const l = await ctx.api('key', 'POST', '/v1/payment_links', {
    amount: usd(cents),
    title: 'Recorded bank journey',
    settlement_destination: { address_book_id: e.id },
    ...extra,
  });
  const a = await ctx.api('key', 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  return { id: l.id, token: String(a.url).split('/pay/')[1] };
}

/** The holder's wallet, funded with `amount` of its stablecoin from outside. */
export async function fundedWallet(ctx: Ctx, amount: string): Promise<{ address: string; chain: string; asset: string }> {
  const w = (await ctx.api('dash', 'GET', '/v1/wallet/wallets')).data[0];
  const asset = (await ctx.api('dash', 'GET', '/v1/wallet/balances')).balances[0].asset as string;
  await chainTransfer(ctx, w.chain, w.address, asset, amount, REFUND);
  return { address: w.address, chain: w.chain, asset };
}

export const signAs = async (ctx: Ctx, tx: unknown) => (await ctx.api('anon', 'POST', '/sim/wallet/sign', tx)).tx_hash as string;

/** A subscription of 25 USDC a month to a crypto address-book entry; its id and first invoice. */
export async function subscription(ctx: Ctx): Promise<{ id: string; invoice: any }> {
  const client = await ctx.api('key', 'POST', '/v1/clients', { display_name: 'Subscriber Co', email: 'billing@subscriber.example' });
  const dest = await ctx.api('dash', 'POST', '/v1/address_book', {
    kind: 'crypto',
    chain: 'tempo',
    address: randomAddress(),
    label: 'Own wallet',
  });
  const sub = await ctx.api('key', 'POST', '/v1/subscriptions', {
    client_id: client.id,
    amount: { amount: '25000000', currency: 'USDC', decimals: 6 },
    interval: 'month',
    cycles: 3,
    description: 'Hosting',
    settlement_destination_id: dest.id,
  });
  const invoice = await ctx.until(
    'the first invoice',
    async () => (await ctx.api('key', 'GET', `/v1/subscriptions/${sub.id}/invoices`)).data[0],
  );
  return { id: sub.id, invoice };
}

/** A payroll run of `rows` (USD cents, ACH account number or null for a wallet), destinations adopted, approved. */
export async function approvedRun(ctx: Ctx, rows: Array<[string, string | null]>): Promise<{ id: string; itemIds: string[] }> {
  const run = await ctx.api('key', 'POST', '/v1/payroll_runs', {
    title: 'Recorded payroll',
    currency: 'USD',
    pay_period_start: '2026-12-01',
    pay_period_end: '2026-12-31',
    rows: rows.map(([cents], i) => ({ email: `r${i}@example.com`, name: `Recipient ${i}`, amount: usd(cents) })),
  });
  const items: Array<{ id: string; recipient: { id: string } }> = (await ctx.api('key', 'GET', `/v1/payroll_runs/${run.id}/items`)).data;
  for (const [i, item] of items.entries()) {
    const account = rows[i][1];
    const destination =
      account === null
        ? { type: 'wallet', chain: 'tempo', address: REFUND }
        : {
            type: 'bank_account',
            account_owner_type: 'individual',
            account_holder_name: `Recipient ${i}`,
            rail: 'ach',
            account_number: account,
            routing_number: '021000021',
          };
    const token = (await ctx.api('key', 'POST', `/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {})).recipient_session.token;
    await ctx.api('anon', 'POST', `/v1/payroll_recipient_sessions/${token}/destination`, destination);
    const rcp = await ctx.api('key', 'GET', `/v1/payroll_recipients/${item.recipient.id}`);
    await ctx.api('key', 'POST', `/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: rcp.pending_destination.submitted_at,
    });
  }
  await ctx.api('key', 'POST', `/v1/payroll_runs/${run.id}/approve`, {});
  return { id: run.id, itemIds: items.map((i) => i.id) };
}
