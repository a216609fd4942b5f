/**
 * `npm run histories:record`: records one Temporal history per long-lived workflow type and per
 * significant path into tests/workflows/histories/<workflowType>/<path>.json, with
 * tests/workflows/histories/manifest.json (type, path, the commit and tag recorded from, the date).
 * tests/workflows/logic/replay-stored.test.ts replays them against the current workflows/, so a
 * change that would break a running workflow fails there (docs/workflow-versioning.md).
 *
 * A private stack, started and stopped here: embedded PostgreSQL (migrated), the Java time-skipping
 * test server (so expiry and overdue paths skip hours and days in seconds) and the product from
 * dist/ (API + worker, simulator on) pointed at it. Journeys are driven as a merchant and the outside
 * world would: the /v1 API with a provisioned account's key and session, the /sim routes. Each
 * journey waits until its workflows are closed or resting (waiting on a signal or a timer, nothing
 * in flight), fetches their histories, then terminates the ones still running (a history fetched
 * before the termination replays up to its last event).
 *
 * Run it from a tagged build (docs/workflow-versioning.md): the files describe what that release's
 * workers wrote. `--only <type>[/<path>]` writes a subset (every journey still runs; the manifest
 * keeps the other entries); `--journeys <text>` runs only the journeys whose name contains `<text>`
 * (e.g. `--journeys 'webhook endpoint' --only webhookEndpointWorkflow/`); `--out <dir>` writes
 * elsewhere. Runs from dist/ (the npm script builds first). About a minute.
 */
import 'reflect-metadata';
import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startEmbeddedPostgres } from '../lib/embedded-pg';
import { freePort } from '../lib/ports';
import { makeDataSource } from '../lib/db';
import { ensureTestServer, registerSearchAttributes } from '../temporal/dev/bootstrap';
import { historyToProtoJson } from '../temporal/dev/history-json';

const ROOT = path.resolve(__dirname, '../..');
const log = (m: string) => process.stderr.write(`[histories] ${m}\n`);

// ---------------------------------------------------------------------------------------------
// What is recorded
// ---------------------------------------------------------------------------------------------

/** One history to write: workflow `workflowId` of `type` (its run `runId`, default the latest), stored as `<type>/<path>.json`. */
interface Capture {
  type: string;
  path: string;
  workflowId: string;
  runId?: string;
}

/** One manifest entry (tests/workflows/histories/manifest.json `histories[]`). */
interface ManifestEntry {
  file: string;
  workflow_type: string;
  path: string;
  workflow_id: string;
  events: number;
  /** The commit recorded from (`-dirty` when workflows/ had uncommitted changes), its tag if any, the Temporal SDK version, when. */
  commit: string;
  tag: string | null;
  temporal_sdk: string;
  recorded_at: string;
}

/** The manifest: what each stored history is and which build recorded it. */
interface Manifest {
  description: string;
  histories: ManifestEntry[];
}

/** The journeys' handle on the stack: the API as merchant, payer and outside world, and Temporal. */
interface Ctx {
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
  /** A local webhook receiver answering `statuses` in order (then 200); its URL. */
  receiver(statuses: number[]): Promise<string>;
  env: TestWorkflowEnvironment;
}

/** A journey: drives one object (or a few) along one path and says which workflows to store. */
interface Journey {
  name: string;
  /** The product's NETWORK for this journey (default testnet; the cross-network rail exists on mainnet only). */
  network?: Network;
  run(ctx: Ctx): Promise<Capture[]>;
}

type Network = 'mainnet' | 'testnet';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const REFUND = '0x52908400098527886E0F7030069857D2E4169EE7';
const randomAddress = () => `0x${crypto.randomBytes(20).toString('hex')}`;

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

/** A payout draft with its ACH beneficiary (1,000.00 USD from base). */
async function fundablePayout(c: Ctx): Promise<string> {
  const p = await c.api('key', 'POST', '/v1/payouts', { invoice_amount: usd('100000'), corridor_id: 'usd_ach', source_chain: 'base' });
  await c.api('key', 'POST', `/v1/payouts/${p.id}/beneficiary`, {
    account_owner_type: 'business',
    account_holder_name: 'Supplier LLC',
    account_number: '123456789',
    routing_number: '021000021',
  });
  return p.id;
}

/** An activated crypto-only link of `cents` USD (`extra`: more create fields) and its payer token. */
async function cryptoLink(c: Ctx, cents: string, extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const l = await c.api('key', 'POST', '/v1/payment_links', {
    amount: usd(cents),
    title: 'Recorded journey',
    accepted_rail_kinds: ['crypto'],
    ...extra,
  });
  const a = await c.api('key', 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  return { id: l.id, token: String(a.url).split('/pay/')[1] };
}

/** ISO time `days` days from now (wall clock: the API checks a link's `expires_at` against it). */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** The payer opens a native-rail payment on link `token`: its id and deposit instructions. */
async function nativePayment(
  c: Ctx,
  token: string,
): Promise<{ id: string; di: { address: string; chain: string; asset: string; amount: { amount: string } } }> {
  const p = await c.api('anon', 'POST', `/v1/payment_sessions/${token}/payments`, {
    rail: 'crypto_native',
    payer_email: 'payer@example.com',
  });
  return { id: p.id, di: p.deposit_instructions };
}

const chainTransfer = (c: Ctx, chain: string, to: string, asset: string, amount: string, from?: string) =>
  c.api('anon', 'POST', '/sim/chain/transfers', { chain, to_address: to, asset, amount, ...(from ? { from_address: from } : {}) });

/** An activated link settling to a bank address-book entry on `rail` (`cents` in the rail's currency) and its payer token. */
async function bankLink(c: Ctx, rail: 'ach', cents: string, extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const e = await c.api('dash', 'POST', '/v1/address_book', { kind: 'bank', label: `Operating ${rail}` });
  await c.api('dash', 'POST', `/v1/address_book/${e.id}/beneficiary`, {
    account_owner_type: 'business',
    account_holder_name: 'Acme Ltd',
    rail,
    account_number: '000123456789',
    routing_number: '021000021',
  });
  const l = await c.api('key', 'POST', '/v1/payment_links', {
    amount: usd(cents),
    title: 'Recorded bank journey',
    settlement_destination: { address_book_id: e.id },
    ...extra,
  });
  const a = await c.api('key', 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
  return { id: l.id, token: String(a.url).split('/pay/')[1] };
}

/** The holder's wallet, funded with `amount` of its stablecoin from outside. */
async function fundedWallet(c: Ctx, amount: string): Promise<{ address: string; chain: string; asset: string }> {
  const w = (await c.api('dash', 'GET', '/v1/wallet/wallets')).data[0];
  const asset = (await c.api('dash', 'GET', '/v1/wallet/balances')).balances[0].asset as string;
  await chainTransfer(c, w.chain, w.address, asset, amount, REFUND);
  return { address: w.address, chain: w.chain, asset };
}

const signAs = async (c: Ctx, tx: unknown) => (await c.api('anon', 'POST', '/sim/wallet/sign', tx)).tx_hash as string;

/** A subscription of 25 USDC a month to a crypto address-book entry; its id and first invoice. */
async function subscription(c: Ctx): Promise<{ id: string; invoice: any }> {
  const client = await c.api('key', 'POST', '/v1/clients', { display_name: 'Subscriber Co', email: 'billing@subscriber.example' });
  const dest = await c.api('dash', 'POST', '/v1/address_book', {
    kind: 'crypto',
    chain: 'tempo',
    address: randomAddress(),
    label: 'Own wallet',
  });
  const sub = await c.api('key', 'POST', '/v1/subscriptions', {
    client_id: client.id,
    amount: { amount: '25000000', currency: 'USDC', decimals: 6 },
    interval: 'month',
    cycles: 3,
    description: 'Hosting',
    settlement_destination_id: dest.id,
  });
  const invoice = await c.until(
    'the first invoice',
    async () => (await c.api('key', 'GET', `/v1/subscriptions/${sub.id}/invoices`)).data[0],
  );
  return { id: sub.id, invoice };
}

/** A payroll run of `rows` (USD cents, ACH account number or null for a wallet), destinations adopted, approved. */
async function approvedRun(c: Ctx, rows: Array<[string, string | null]>): Promise<{ id: string; itemIds: string[] }> {
  const run = await c.api('key', 'POST', '/v1/payroll_runs', {
    title: 'Recorded payroll',
    currency: 'USD',
    pay_period_start: '2026-12-01',
    pay_period_end: '2026-12-31',
    rows: rows.map(([cents], i) => ({ email: `r${i}@example.com`, name: `Recipient ${i}`, amount: usd(cents) })),
  });
  const items: Array<{ id: string; recipient: { id: string } }> = (await c.api('key', 'GET', `/v1/payroll_runs/${run.id}/items`)).data;
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
    const token = (await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {})).recipient_session.token;
    await c.api('anon', 'POST', `/v1/payroll_recipient_sessions/${token}/destination`, destination);
    const rcp = await c.api('key', 'GET', `/v1/payroll_recipients/${item.recipient.id}`);
    await c.api('key', 'POST', `/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: rcp.pending_destination.submitted_at,
    });
  }
  await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/approve`, {});
  return { id: run.id, itemIds: items.map((i) => i.id) };
}

/**
 * Every journey, in the order run. The ones that skip time come last: while the clock skips, every
 * open workflow's timers fire, so each journey's workflows are closed or terminated before the next.
 */
const JOURNEYS: Journey[] = [
  {
    name: 'crypto link paid exactly',
    async run(c) {
      await c.newAccount();
      // With an expiry: a link with no timer runs no workflow (domain/payment-links.ts linkNeedsWorkflow).
      const link = await cryptoLink(c, '10000', { expires_at: inDays(30) });
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, p.di.amount.amount);
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      await c.untilField('key', `/v1/payment_links/${link.id}`, 'settled');
      return [
        { type: 'paymentWorkflow', path: 'paid-exactly', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'activated-and-paid', workflowId: link.id },
      ];
    },
  },
  {
    name: 'crypto link underpaid, then topped up',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000');
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '60000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'underpaid');
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '41000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [{ type: 'paymentWorkflow', path: 'underpaid-then-topped-up', workflowId: p.id }];
    },
  },
  {
    name: 'crypto link cancelled while a payment is underpaid',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000', { expires_at: inDays(30) });
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '1000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'underpaid');
      await c.api('key', 'POST', `/v1/payment_links/${link.id}/cancel`, {});
      await c.untilField('key', `/v1/payments/${p.id}`, 'unmatched');
      return [
        { type: 'paymentWorkflow', path: 'underpaid-then-link-cancelled', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'cancelled', workflowId: link.id },
      ];
    },
  },
  {
    name: 'bank link paid by ACH, settled through the fiat rail',
    async run(c) {
      await c.newAccount();
      const link = await bankLink(c, 'ach', '20000', { expires_at: inDays(30) });
      const p = await c.api('anon', 'POST', `/v1/payment_sessions/${link.token}/payments`, { rail: 'ach', payer_type: 'business' });
      const bdi = p.bank_deposit_instructions;
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: bdi.rail,
        currency: bdi.currency,
        amount: '20000',
        reference: bdi.reference,
        to_account: bdi.account_number,
        sender_name: 'Payer Co',
      });
      await c.untilField('key', `/v1/payments/${p.id}`, 'paid');
      await c.until(
        'the settlement payout',
        async () => (await c.raw('anon', 'POST', `/sim/providers/fiat_rails/payments/${p.id}`, { state: 'paid' })).status === 200,
      );
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [
        { type: 'paymentWorkflow', path: 'bank-paid-and-settled', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'bank-paid-and-settled', workflowId: link.id },
      ];
    },
  },
  {
    name: 'cross-network payment: bridge holds, delivers less, payer tops up',
    network: 'mainnet',
    async run(c) {
      await c.newAccount();
      await c.flag('payment_links.crypto_xchain');
      const link = await cryptoLink(c, '25000');
      await c.until('the cross-network rail', async () => {
        const caps = await c.api('key', 'GET', '/v1/capabilities?product=payment_links');
        return caps.corridors.find((k: { corridor_id: string }) => k.corridor_id === 'crypto_xchain')?.executable === true;
      });
      const p = await c.api('anon', 'POST', `/v1/payment_sessions/${link.token}/payments`, {
        rail: 'crypto_xchain',
        network: 'base',
        stablecoin: 'USDC',
        refund_address: '0x4444444444444444444444444444444444444444',
      });
      const bridge = p.deposit_instructions.address;
      await c.api('anon', 'POST', `/sim/bridge/transfers/${p.id}`, { state: 'delayed' });
      await chainTransfer(c, 'base', bridge, 'USDC', p.deposit_instructions.amount.amount);
      await c.untilField('key', `/v1/payments/${p.id}`, 'confirming', 'watcher_state');
      await c.api('anon', 'POST', `/sim/bridge/transfers/${p.id}`, { state: 'delivered', delivered_amount: '250000000' });
      await c.untilField('key', `/v1/payments/${p.id}`, 'matching', 'watcher_state');
      await chainTransfer(c, 'base', bridge, 'USDC', '2500000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [{ type: 'xchainPaymentWorkflow', path: 'delivered-less-then-topped-up', workflowId: p.id }];
    },
  },
  {
    name: 'payout funded and paid',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
      await c.untilField('key', `/v1/payouts/${id}`, 'processing');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { recipient_received_amount: '100050' });
      await c.untilField('key', `/v1/payouts/${id}`, 'settled');
      return [{ type: 'payoutWorkflow', path: 'funded-and-paid', workflowId: id }];
    },
  },
  {
    name: 'payout paid short of the invoice, then flagged by reconciliation',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
      await c.untilField('key', `/v1/payouts/${id}`, 'processing');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { recipient_received_amount: '99000' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid_with_shortfall');
      const first = await c.runOf(id);
      // The signal starts a new run of the ended workflow (signalWithStart), which records the flag and ends.
      await c.api('anon', 'POST', '/sim/providers/reconciliation', { payout_id: id, needs_attention: true });
      await c.untilField('key', `/v1/payouts/${id}`, true, 'needs_attention');
      return [
        { type: 'payoutWorkflow', path: 'paid-with-shortfall', workflowId: id, runId: first },
        { type: 'payoutWorkflow', path: 'reconciliation-after-close', workflowId: id },
      ];
    },
  },
  {
    name: 'payout cancelled while awaiting funds',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await c.untilField('key', `/v1/payouts/${id}`, 'awaiting_funds');
      await c.api('key', 'POST', `/v1/payouts/${id}/cancel`, {});
      await c.untilField('key', `/v1/payouts/${id}`, 'cancelled');
      return [{ type: 'payoutWorkflow', path: 'cancelled', workflowId: id }];
    },
  },
  {
    name: 'payroll run funded by bank and executed: one item paid, one failed, one to a wallet',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [
        ['25000', '000123456789'],
        ['12000', '000111111116'],
        ['3000', null],
      ]);
      const fi = await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '40000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      });
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funded', 'funding_state');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/execute`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'partial');
      return [
        { type: 'payrollRunWorkflow', path: 'funded-and-executed', workflowId: run.id },
        { type: 'payrollItemWorkflow', path: 'bank-paid', workflowId: run.itemIds[0] },
        { type: 'payrollItemWorkflow', path: 'bank-failed', workflowId: run.itemIds[1] },
        { type: 'payrollItemWorkflow', path: 'wallet-paid', workflowId: run.itemIds[2] },
      ];
    },
  },
  {
    name: 'payroll run cancelled while funding is pending',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [['25000', '000123456789']]);
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funding_pending');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/cancel`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'cancelled');
      return [{ type: 'payrollRunWorkflow', path: 'cancelled', workflowId: run.id }];
    },
  },
  {
    name: 'subscription: the first invoice paid',
    async run(c) {
      await c.newAccount();
      const { id, invoice } = await subscription(c);
      const di = invoice.deposit_instructions;
      await chainTransfer(c, 'tempo', di.address, di.asset, '25000000');
      await c.untilField('key', `/v1/subscriptions/${id}/invoices/${invoice.id}`, 'paid');
      await c.untilField('key', `/v1/payments/${invoice.payment_id}`, 'settled');
      return [
        { type: 'subscriptionWorkflow', path: 'invoice-paid', workflowId: id },
        { type: 'paymentWorkflow', path: 'subscription-invoice-paid', workflowId: invoice.payment_id },
      ];
    },
  },
  {
    name: 'wallet: a deposit from base bridged in',
    async run(c) {
      await c.newAccount();
      const d = await c.api('dash', 'POST', '/v1/wallet/deposit_intents', {
        source_chain: 'base',
        amount: { amount: '50000000', currency: 'USDC', decimals: 6 },
      });
      await chainTransfer(c, 'base', d.deposit_address, 'USDC', d.amount_in.amount, REFUND);
      await c.untilField('dash', `/v1/wallet/deposit_intents/${d.id}`, 'settled');
      return [{ type: 'depositIntentWorkflow', path: 'settled', workflowId: d.id }];
    },
  },
  {
    name: 'wallet: a direct send settled',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '5000000');
      const si = await c.api('dash', 'POST', '/v1/wallet/send_intents', {
        destination_chain: w.chain,
        destination_address: REFUND,
        amount: { amount: '1500000', currency: w.asset, decimals: 6 },
        note: 'rent',
      });
      const hash = await signAs(c, si.unsigned_transaction);
      await c.api('dash', 'POST', `/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: hash });
      await c.untilField('dash', `/v1/wallet/send_intents/${si.id}`, 'settled');
      return [{ type: 'sendIntentWorkflow', path: 'settled', workflowId: si.id }];
    },
  },
  {
    name: 'wallet: a conversion settled',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '50000000');
      const pair = (await c.api('key', 'GET', '/v1/wallet/conversion_pairs')).data.find(
        (p: { from_asset: string }) => p.from_asset === w.asset,
      );
      const cv = await c.api('dash', 'POST', '/v1/wallet/conversions', {
        from_asset: w.asset,
        to_asset: pair.to_asset,
        amount: { amount: '20000000', currency: w.asset, decimals: 6 },
      });
      const hash = await signAs(c, cv.unsigned_transaction);
      await c.api('dash', 'POST', `/v1/wallet/conversions/${cv.id}/source_tx`, { tx_hash: hash });
      await c.untilField('dash', `/v1/wallet/conversions/${cv.id}`, 'settled');
      return [{ type: 'conversionWorkflow', path: 'settled', workflowId: cv.id }];
    },
  },
  {
    name: 'wallet: an off-ramp paid to a EUR bank account',
    async run(c) {
      await c.newAccount();
      await fundedWallet(c, '50000000');
      const ba = await c.api('dash', 'POST', '/v1/wallet/external_accounts', {
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        rail: 'sepa',
        iban: 'DE89370400440532013000',
        bic: 'DEUTDEFF',
      });
      const ofr = await c.api('dash', 'POST', '/v1/wallet/offramp_intents', {
        external_account_id: ba.id,
        destination_currency: 'EUR',
        destination_payment_rail: 'sepa',
        amount: { amount: '20000000', currency: 'USDC', decimals: 6 },
      });
      await signAs(c, ofr.transit_deposit.unsigned_transaction);
      await c.untilField('dash', `/v1/wallet/offramp_intents/${ofr.id}`, 'payment_processed');
      return [{ type: 'offrampIntentWorkflow', path: 'payment-processed', workflowId: ofr.id }];
    },
  },
  {
    name: 'wallet: a virtual account credited, then deactivated',
    async run(c) {
      await c.newAccount();
      const va = await c.api('dash', 'POST', '/v1/wallet/virtual_accounts', { currency: 'USD' });
      const bdi = va.bank_deposit_instructions[0];
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '10000',
        reference: bdi.reference,
        to_account: bdi.account_number,
        sender_name: 'Acme Inc',
      });
      await c.until(
        'the credit converted',
        async () => (await c.api('dash', 'GET', `/v1/wallet/virtual_accounts/${va.id}/history?limit=1`)).data[0]?.status === 'converted',
      );
      await c.api('dash', 'POST', `/v1/wallet/virtual_accounts/${va.id}/deactivate`, {});
      return [{ type: 'virtualAccountWorkflow', path: 'credited-then-deactivated', workflowId: va.id }];
    },
  },
  {
    name: 'customer: action required, then approved',
    async run(c) {
      await c.newAccount();
      const cus = await c.api('dash', 'POST', '/v1/customers', { customer_type: 'business', country: 'DE', legal_name: 'Acme GmbH' });
      await c.api('dash', 'POST', `/v1/customers/${cus.id}/verification_links`, { kind: 'tos' });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'pending', 'verification_state');
      await c.api('anon', 'POST', '/sim/kyc/decisions', {
        customer_id: cus.id,
        state: 'action_required',
        requirements_due: ['compliance_profile'],
      });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'action_required', 'verification_state');
      await c.api('dash', 'PATCH', `/v1/customers/${cus.id}/compliance_profile`, {
        business_activity: 'Software',
        account_purpose: 'payouts',
      });
      await c.api('anon', 'POST', '/sim/kyc/decisions', { customer_id: cus.id, state: 'approved', endorsements: ['base', 'sepa'] });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'approved', 'verification_state');
      return [{ type: 'customerWorkflow', path: 'action-required-then-approved', workflowId: cus.id }];
    },
  },
  {
    name: 'order: a card buy authorized, captured and delivered',
    async run(c) {
      await c.newAccount();
      const q = await c.api('key', 'POST', '/v1/quotes', {
        side: 'buy',
        from_asset: 'USD',
        to_asset: 'USDC',
        from_amount: '250.00',
        to_network: 'base',
        payment_method: 'card',
      });
      const offer = q.offers.find((o: { provider: { id: string } }) => o.provider.id === 'rampline') ?? q.offers[0];
      const ord = await c.api('key', 'POST', '/v1/orders', { offer_id: offer.offer_id, wallet_address: REFUND });
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'authorize' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'hold_placed', 'money_state');
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'capture' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'captured', 'money_state');
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'complete' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'completed');
      return [{ type: 'orderWorkflow', path: 'completed', workflowId: ord.id }];
    },
  },
  {
    name: 'webhook endpoint: a test event delivered',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await c.until('the test delivery', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'succeeded',
        ),
      );
      // Since the idle wait the run then waits for new deliveries. `delivered-then-idle.json`
      // is the pre-wait shape (the run ended right after the drain), kept while such runs may be open.
      return [{ type: 'webhookEndpointWorkflow', path: 'delivered-then-waits', workflowId: we.id }];
    },
  },
  // Journeys that skip time.
  {
    name: 'webhook endpoint: a delivery refused, retried later and delivered',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([500]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await c.until('the first attempt refused', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'retrying',
        ),
      );
      await c.rest(we.id);
      await c.skip(2 * 60_000);
      await c.until('the retry delivered', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'succeeded',
        ),
      );
      // Then waits for new deliveries; `retried-then-delivered.json` is the pre-wait shape.
      return [{ type: 'webhookEndpointWorkflow', path: 'retried-then-waits', workflowId: we.id }];
    },
  },
  {
    name: 'webhook endpoint: waits for new deliveries, woken by the next one, then ends idle',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      const delivered = (n: number) =>
        c.until(
          `${n} test deliveries`,
          async () =>
            (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.filter(
              (d: { status: string }) => d.status === 'succeeded',
            ).length >= n,
        );
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await delivered(1);
      // The run waits for new deliveries (workflows/webhook-endpoint.ts ENDPOINT_IDLE_MS); the next one wakes it.
      const run = await c.runOf(we.id);
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await delivered(2);
      await c.rest(we.id);
      if ((await c.runOf(we.id)) !== run) throw new Error('the second delivery started a new run instead of waking the waiting one');
      // The idle period (5 min) passes with nothing new: the run ends idle.
      await c.skip(6 * 60_000);
      await c.until(
        'the run ended idle',
        async () => (await c.env.client.workflow.getHandle(we.id, run).describe()).status.name === 'COMPLETED',
      );
      return [{ type: 'webhookEndpointWorkflow', path: 'woken-while-waiting-then-idle', workflowId: we.id, runId: run }];
    },
  },
  {
    name: 'crypto payment expired (nothing arrived in its window)',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000');
      const p = await nativePayment(c, link.token);
      await c.rest(p.id);
      await c.skip(DAY + HOUR);
      await c.untilField('key', `/v1/payments/${p.id}`, 'expired');
      return [{ type: 'paymentWorkflow', path: 'expired', workflowId: p.id }];
    },
  },
  {
    name: 'bank link: a reminder sent to the payer, then the link expired',
    async run(c) {
      await c.newAccount();
      // Times on the link are absolute; the test server's clock runs ahead of the wall clock by what earlier journeys skipped.
      const expiresAt = (await c.env.currentTimeMs()) + 4 * DAY;
      const link = await bankLink(c, 'ach', '20000', { expires_at: new Date(expiresAt).toISOString(), payer_email: 'payer@example.com' });
      await c.rest(link.id);
      await c.skip(expiresAt - (await c.env.currentTimeMs()) + HOUR);
      await c.untilField('key', `/v1/payment_links/${link.id}`, 'expired');
      return [{ type: 'paymentLinkWorkflow', path: 'reminded-then-expired', workflowId: link.id }];
    },
  },
  {
    name: 'wallet: a send never signed expires',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '5000000');
      const si = await c.api('dash', 'POST', '/v1/wallet/send_intents', {
        destination_chain: w.chain,
        destination_address: REFUND,
        amount: { amount: '1500000', currency: w.asset, decimals: 6 },
      });
      await c.rest(si.id);
      await c.skip(HOUR);
      await c.untilField('dash', `/v1/wallet/send_intents/${si.id}`, 'expired');
      return [{ type: 'sendIntentWorkflow', path: 'expired', workflowId: si.id }];
    },
  },
  {
    name: 'subscription: the first invoice unpaid past its grace period (overdue)',
    async run(c) {
      await c.newAccount();
      const { id, invoice } = await subscription(c);
      await c.rest(id);
      await c.skip(8 * DAY);
      await c.untilField('key', `/v1/subscriptions/${id}/invoices/${invoice.id}`, 'overdue');
      return [{ type: 'subscriptionWorkflow', path: 'invoice-overdue', workflowId: id }];
    },
  },
];

// ---------------------------------------------------------------------------------------------
// The stack
// ---------------------------------------------------------------------------------------------

/** PostgreSQL and the time-skipping test server, shared by the product phases. */
interface Infra {
  databaseUrl: string;
  env: TestWorkflowEnvironment;
  encryptionKey: string;
  stop(): Promise<void>;
}

/** The product (API + worker in one process, dist/api/serve.js) on one network. */
interface Product {
  apiUrl: string;
  env: NodeJS.ProcessEnv;
  log: string;
  stop(): Promise<void>;
}

/** Starts embedded PostgreSQL (migrated) and the Java time-skipping test server with the AccountId attribute. */
async function startInfra(tag: string): Promise<Infra> {
  const pgDir = path.join(os.tmpdir(), `payments-platform-${tag}-pg`);
  log('starting embedded PostgreSQL...');
  const pg = await startEmbeddedPostgres({ dir: pgDir, database: 'histories', fast: true, log });
  const ds = makeDataSource(pg.url, 2);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  log('starting the time-skipping test server...');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* installed */
  }
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await ensureTestServer() } },
  });
  await registerSearchAttributes(env.connection);
  return {
    databaseUrl: pg.url,
    env,
    encryptionKey: crypto.randomBytes(32).toString('base64'),
    stop: async () => {
      await env.teardown().catch(() => undefined);
      await pg.stop().catch(() => undefined);
      fs.rmSync(pgDir, { recursive: true, force: true });
      fs.rmSync(`${pgDir}-sock`, { recursive: true, force: true });
    },
  };
}

/** Starts the product on `network` against `infra` (simulator on, loopback webhooks, generous rate limits) and waits until healthy. */
async function startProduct(infra: Infra, network: Network, tag: string): Promise<Product> {
  const port = await freePort();
  // The caller's own Temporal settings (a cloud profile, TLS, an API key, a task queue) must not reach the local test server.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    DATABASE_URL: infra.databaseUrl,
    TEMPORAL_ADDRESS: infra.env.address,
    NETWORK: network,
    PORT: String(port),
    HOST: '127.0.0.1',
    SIMULATOR_ENABLED: 'true',
    APP_ENCRYPTION_KEY: infra.encryptionKey,
    PAYER_HOST: `http://127.0.0.1:${port}`,
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
    RATE_LIMIT_BUSINESS_KEY: '5000',
    RATE_LIMIT_PUBLIC_TOKEN: '5000',
    RATE_LIMIT_DASHBOARD_SESSION: '5000',
    RATE_LIMIT_ANONYMOUS: '5000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const productLog = path.join(os.tmpdir(), `payments-platform-${tag}-product-${network}.log`);
  const out = fs.openSync(productLog, 'w');
  log(`starting the product on ${network} (log ${productLog})...`);
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/api/serve.js')], { env, stdio: ['ignore', out, out], detached: true });
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
  };
  process.once('exit', kill);
  const apiUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited (${child.exitCode}); see ${productLog}`);
    try {
      if ((await fetch(`${apiUrl}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`the product did not become healthy; see ${productLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    apiUrl,
    env,
    log: productLog,
    stop: async () => {
      process.removeListener('exit', kill);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      kill();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Driving and capturing
// ---------------------------------------------------------------------------------------------

const execFileAsync = promisify(execFile);

/** The journeys' Ctx on `product`; `close()` stops the webhook receivers it opened. */
function makeCtx(infra: Infra, product: Product): { ctx: Ctx; close(): void } {
  let creds: { account_id: string; live_key: string; session_token: string } | null = null;
  const servers: http.Server[] = [];
  const raw: Ctx['raw'] = async (as, method, p, body) => {
    const headers: Record<string, string> = {};
    if (as === 'key') headers['x-api-key'] = creds!.live_key;
    if (as === 'dash') headers.authorization = `Bearer ${creds!.session_token}`;
    if (as !== 'anon' && method !== 'GET') headers['Idempotency-Key'] = `rec_${crypto.randomBytes(12).toString('hex')}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${product.apiUrl}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: r.status, body: parsed };
  };
  const until: Ctx['until'] = async (what, fn, ms = 60_000) => {
    const end = Date.now() + ms;
    let last: unknown = null;
    for (;;) {
      try {
        const v = await fn();
        if (v) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const ctx: Ctx = {
    env: infra.env,
    raw,
    async api(as, method, p, body) {
      const r = await raw(as, method, p, body);
      if (r.status < 200 || r.status > 299) throw new Error(`${method} ${p} answered ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    until,
    async untilField(as, p, want, field = 'status') {
      let last: unknown;
      return until(`${p} ${field} ${want}`, async () => {
        const r = await raw(as, 'GET', p);
        last = r.body?.[field];
        return r.status === 200 && last === want ? r.body : null;
      }).catch((e: Error) => {
        throw new Error(`${e.message} (last ${JSON.stringify(last)})`);
      });
    },
    async skip(ms) {
      // The test server skips only while nothing is in flight; when it cannot, the sleep would last `ms` of real time.
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the test server did not skip ${ms} ms within 60 s of real time (work in flight?)`)),
          60_000,
        );
      });
      try {
        await Promise.race([infra.env.sleep(ms), stuck]);
      } finally {
        clearTimeout(timer);
      }
    },
    rest: (id) => settled(infra.env, id),
    async runOf(id) {
      await settled(infra.env, id);
      return (await infra.env.client.workflow.getHandle(id).describe()).runId;
    },
    async newAccount() {
      // `npm run seed` with the product's settings (its network decides the service wallet).
      const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, 'dist/scripts/seed.js')], { env: product.env });
      creds = JSON.parse(stdout);
    },
    accountId: () => creds!.account_id,
    async flag(name) {
      const { setSwitch } = await import('../lib/switches');
      await setSwitch(name, true, creds!.account_id);
      await new Promise((r) => setTimeout(r, 2200)); // flags are cached for 2 s
    },
    async receiver(statuses) {
      const plan = [...statuses];
      const srv = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(plan.shift() ?? 200).end());
      });
      servers.push(srv);
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
      return `http://127.0.0.1:${(srv.address() as { port: number }).port}/hooks`;
    },
  };
  return {
    ctx,
    close: () => {
      for (const s of servers) s.close();
    },
  };
}

/**
 * Waits until workflow `id` is closed, or resting: no activity, child or workflow task in flight
 * and its history unchanged over a second (it waits on a signal or a timer).
 */
async function settled(env: TestWorkflowEnvironment, id: string, runId?: string): Promise<void> {
  const h = env.client.workflow.getHandle(id, runId);
  let lastLen = -1;
  let stableSince = 0;
  const end = Date.now() + 60_000;
  for (;;) {
    const d = await h.describe();
    if (d.status.name !== 'RUNNING') return;
    const busy =
      (d.raw.pendingActivities?.length ?? 0) > 0 || (d.raw.pendingChildren?.length ?? 0) > 0 || d.raw.pendingWorkflowTask != null;
    const len = d.historyLength;
    if (busy || len !== lastLen) {
      lastLen = len;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= 1000) return;
    if (Date.now() > end) throw new Error(`workflow ${id} did not come to rest`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Terminates every workflow of account `accountId` still running (the journey's others: its links,
 * invoices' pay-ins, ...). The test server cannot list workflows, so the candidates are the objects
 * the account's events name (workflow id = object id) and its webhook endpoints, plus `ids`.
 */
async function terminateAll(env: TestWorkflowEnvironment, accountId: string, ids: string[]): Promise<number> {
  const { db } = await import('../lib/db');
  const rows: Array<{ id: string }> = await db().query(
    `SELECT object_id AS id FROM events WHERE account_id = $1
     UNION SELECT unnest(related_object_ids) FROM events WHERE account_id = $1
     UNION SELECT id FROM webhook_endpoints WHERE account_id = $1`,
    [accountId],
  );
  let n = 0;
  for (const id of new Set([...ids, ...rows.map((r) => r.id)])) {
    const h = env.client.workflow.getHandle(id);
    let running = false;
    try {
      running = (await h.describe()).status.name === 'RUNNING';
    } catch {
      /* no workflow of that id */
    }
    if (running) {
      // Never with work in flight: the test server would keep counting it and stop skipping time.
      await settled(env, id);
      if ((await h.describe()).status.name !== 'RUNNING') continue;
      await h.terminate('recorded (scripts/record-histories.ts)');
      n += 1;
    }
  }
  return n;
}

function gitOf(): { commit: string; tag: string | null } {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit = 'unknown';
  let tag: string | null = null;
  try {
    commit = git('rev-parse', 'HEAD');
  } catch {
    /* not a checkout */
  }
  try {
    tag = git('describe', '--tags', '--exact-match', 'HEAD') || null;
  } catch {
    /* untagged */
  }
  try {
    if (git('status', '--porcelain', '--untracked-files=no', '--', 'workflows')) commit += '-dirty';
  } catch {
    /* not a checkout */
  }
  return { commit, tag };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outDir = path.resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(ROOT, 'tests/workflows/histories'));
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
  const journeyFilter = args.includes('--journeys') ? args[args.indexOf('--journeys') + 1] : null;
  const { commit, tag } = gitOf();
  const sdk = (JSON.parse(fs.readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')) as { version: string }).version;
  const recordedAt = new Date().toISOString();
  const stackTag = `histories-${process.pid}`;
  const infra = await startInfra(stackTag);
  // This process reads the database (switches, the objects a journey left running): the stack's settings.
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.APP_ENCRYPTION_KEY = infra.encryptionKey;
  process.env.SIMULATOR_ENABLED = 'true';
  const { closeDb, initDb } = await import('../lib/db');
  await initDb(infra.databaseUrl, 2);
  const written: ManifestEntry[] = [];
  try {
    // Mainnet first: the testnet product's start-up recovery then finds only finished mainnet objects.
    for (const network of ['mainnet', 'testnet'] as const) {
      const journeys = JOURNEYS.filter((j) => (j.network ?? 'testnet') === network && (!journeyFilter || j.name.includes(journeyFilter)));
      if (journeys.length === 0) continue;
      const product = await startProduct(infra, network, stackTag);
      const { ctx, close } = makeCtx(infra, product);
      try {
        for (const j of journeys) {
          log(`journey: ${j.name}`);
          const t0 = Date.now();
          const captures = await j.run(ctx);
          for (const cap of captures) {
            if (only && !`${cap.type}/${cap.path}`.startsWith(only)) continue;
            written.push(await store(infra.env, cap, outDir, { commit, tag, temporal_sdk: sdk, recorded_at: recordedAt }));
          }
          // Nothing of this journey may act while a later one skips the clock.
          const ended = await terminateAll(
            infra.env,
            ctx.accountId(),
            captures.map((cap) => cap.workflowId),
          );
          log(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s${ended ? `; terminated ${ended} workflow(s) still running` : ''}`);
        }
      } catch (e) {
        log(`failed; product log: ${product.log}`);
        throw e;
      } finally {
        close();
        await product.stop();
      }
      fs.rmSync(product.log, { force: true });
    }
  } finally {
    await closeDb();
    await infra.stop();
  }
  writeManifest(outDir, written);
  log(`${written.length} histories written to ${outDir}`);
}

/** Waits for `cap`'s workflow to close or rest, fetches its history and writes `<type>/<path>.json` (one event per line). */
async function store(
  env: TestWorkflowEnvironment,
  cap: Capture,
  outDir: string,
  from: Pick<ManifestEntry, 'commit' | 'tag' | 'temporal_sdk' | 'recorded_at'>,
): Promise<ManifestEntry> {
  await settled(env, cap.workflowId, cap.runId);
  const history = await env.client.workflow.getHandle(cap.workflowId, cap.runId).fetchHistory();
  const json = historyToProtoJson(history) as { events: unknown[] };
  const file = `${cap.type}/${cap.path}.json`;
  fs.mkdirSync(path.join(outDir, cap.type), { recursive: true });
  fs.writeFileSync(path.join(outDir, file), `{"events": [\n${json.events.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`);
  log(`  ${file}: ${json.events.length} events`);
  return { file, workflow_type: cap.type, path: cap.path, workflow_id: cap.workflowId, events: json.events.length, ...from };
}

/** Writes manifest.json: the entries just `written`, and the earlier ones of files not recorded this time. */
function writeManifest(outDir: string, written: ManifestEntry[]): void {
  const file = path.join(outDir, 'manifest.json');
  const old: Manifest | null = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
  const kept = (old?.histories ?? []).filter((e) => !written.some((w) => w.file === e.file));
  const manifest: Manifest = {
    description:
      'Workflow histories replayed by tests/workflows/logic/replay-stored.test.ts; recorded by `npm run histories:record` (scripts/record-histories.ts). See docs/workflow-versioning.md.',
    histories: [...kept, ...written].sort((a, b) => a.file.localeCompare(b.file)),
  };
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (require.main === module) {
  // Interrupted: exit normally, so the product's process group is killed (its 'exit' hook).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`record-histories failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
