/**
 * The chaos harness's load: the mixed merchant traffic of issue 28 over HTTP, every call through
 * `Traffic` (retried as a client would). One account is set up once (a funded service wallet, a
 * bank address-book entry per settlement rail, an external bank account, a client and a crypto
 * settlement entry, and three webhook endpoints: one answering at once, one slow, one failing then
 * answering), then `MixLoad.run` keeps `concurrency` journeys going until told to stop, rotating
 * through: crypto links (bench/journeys.ts), bank-rail links on every rail (ach, wire, sepa,
 * faster_payments, pix, spei) settled to the merchant's bank, payouts (USD ACH from a USDC deposit
 * on base to the recipient's confirmation), wallet sends, off-ramps (EUR by SEPA) and subscriptions;
 * plus one payroll run (two items, EUR funded in USDC) per load window.
 *
 * In `providerChaos` mode the outside world misbehaves too: each chain transfer and rail callback
 * is sent twice (duplicate callbacks), the recipient's confirmation of a payout comes before the
 * rail's `paid` (out of order, refused or absorbed), and callbacks for unknown references are sent.
 */
import crypto from 'node:crypto';
import type { DevCredentials } from '../../activities/accounts/commands';
import { cryptoLinkJourney, Receiver, StepError } from '../journeys';
import type { JourneyEnd } from './progress';
import type { Traffic } from './traffic';

const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The merchant's own bank account on each settlement rail (tests/helpers/bank.ts has the same sandbox values). */
const BENEFICIARY: Record<string, Record<string, string>> = {
  ach: { rail: 'ach', account_number: '000123456789', routing_number: '021000021' },
  sepa: { rail: 'sepa', iban: 'DE89370400440532013000', bic: 'DEUTDEFF' },
  faster_payments: { rail: 'faster_payments', account_number: '12345678', sort_code: '12-34-56' },
  pix: { rail: 'pix', pix_key: '+5511912345678' },
  spei: { rail: 'spei', clabe: '032180000118359719' },
};
/** Pay-in rail -> (settlement rail, currency, amount in minor units). */
const BANK_RAILS: Array<[string, string, string, string]> = [
  ['ach', 'ach', 'USD', '150000'],
  ['wire', 'ach', 'USD', '150000'],
  ['sepa', 'sepa', 'EUR', '99900'],
  ['faster_payments', 'faster_payments', 'GBP', '42000'],
  ['pix', 'pix', 'BRL', '500000'],
  ['spei', 'spei', 'MXN', '1250000'],
];
const KINDS = ['crypto_link', 'bank_link', 'payout', 'crypto_link', 'wallet_send', 'offramp', 'bank_link', 'subscription'] as const;
/** A kind of journey of the mix. */
export type JourneyKind = (typeof KINDS)[number] | 'payroll';

const txHash = () => `0x${crypto.randomBytes(32).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What one load window did: journeys by kind (completed / failed), a few failure samples, and how each journey ended. */
export interface MixResult {
  completed: Record<string, number>;
  failed: Record<string, number>;
  samples: string[];
  ends: JourneyEnd[];
}

/** The account's fixtures (module doc). */
interface Fixtures {
  creds: DevCredentials;
  wallet: { chain: string; address: string };
  asset: string;
  bankDest: Record<string, string>;
  externalAccount: string;
  clientId: string;
  cryptoDest: string;
  endpoints: Record<'fast' | 'slow' | 'victim', { id: string; receiver: Receiver }>;
}

/** The mixed load (module doc). */
export class MixLoad {
  providerChaos = false;
  private f!: Fixtures;
  private seq = 0;
  private subscriptions = 0;

  constructor(
    private readonly traffic: Traffic,
    private readonly log: (m: string) => void,
  ) {}

  /** The three endpoints' receivers, for fault 6 and the delivery checks. */
  get endpoints(): Fixtures['endpoints'] {
    return this.f.endpoints;
  }
  /** The account under load. */
  get creds(): DevCredentials {
    return this.f.creds;
  }

  /** Sets the account up (module doc). */
  async setup(creds: DevCredentials): Promise<void> {
    const t = this.traffic;
    const s = creds.session_token;
    const wallet = (await t.session(s, 'GET', '/v1/wallet/wallets')).data[0];
    const asset = (await t.session(s, 'GET', '/v1/wallet/balances')).balances[0].asset as string;
    // Enough USDC for every send and off-ramp of a full run.
    await t.anon(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, to_address: wallet.address, amount: '100000000000', from_address: OTHER, tx_hash: txHash() },
      { anonRetry: 'safe' },
    );
    const bankDest: Record<string, string> = {};
    for (const rail of Object.keys(BENEFICIARY)) {
      const e = await t.session(s, 'POST', '/v1/address_book', { kind: 'bank', label: `Operating ${rail}` });
      await t.session(s, 'POST', `/v1/address_book/${e.id}/beneficiary`, {
        account_owner_type: 'business',
        account_holder_name: 'Acme Ltd',
        ...BENEFICIARY[rail],
      });
      bankDest[rail] = e.id;
    }
    const ext = await t.session(s, 'POST', '/v1/wallet/external_accounts', {
      account_owner_type: 'individual',
      account_holder_name: 'Ana Diaz',
      ...BENEFICIARY.sepa,
    });
    const client = await t.key(creds.live_key, 'POST', '/v1/clients', {
      display_name: 'Subscriber Co',
      email: 'billing@subscriber.example',
    });
    const cryptoDest = await t.session(s, 'POST', '/v1/address_book', {
      kind: 'crypto',
      chain: 'tempo',
      address: OTHER,
      label: 'Own wallet',
    });
    const endpoints = {} as Fixtures['endpoints'];
    for (const [name, mode] of [
      ['fast', 'ok'],
      ['slow', 'slow'],
      ['victim', 'fail'],
    ] as const) {
      const receiver = new Receiver();
      receiver.mode = mode;
      const url = await receiver.listen();
      const ep = await t.key(creds.live_key, 'POST', '/v1/webhook_endpoints', { url, description: `chaos ${name}` });
      endpoints[name] = { id: ep.id, receiver };
    }
    this.f = { creds, wallet, asset, bankDest, externalAccount: ext.id, clientId: client.id, cryptoDest: cryptoDest.id, endpoints };
  }

  /** Closes the receivers. */
  close(): void {
    for (const e of Object.values(this.f?.endpoints ?? {})) e.receiver.close();
  }

  /**
   * Runs `concurrency` journeys in a loop, and one payroll run, until `stop()` resolves; then waits
   * for the journeys in flight to end (each has its own deadlines). Resolves with what happened.
   */
  async run(concurrency: number, stop: Promise<void>): Promise<MixResult> {
    const res: MixResult = { completed: {}, failed: {}, samples: [], ends: [] };
    let stopped = false;
    void stop.then(() => {
      stopped = true;
    });
    const one = async (kind: JourneyKind) => {
      const startedAt = Date.now();
      try {
        await this.journey(kind);
        res.completed[kind] = (res.completed[kind] ?? 0) + 1;
        res.ends.push({ kind, ok: true, startedAt, endedAt: Date.now() });
      } catch (e) {
        const error = String((e as Error).message ?? e).slice(0, 300);
        res.failed[kind] = (res.failed[kind] ?? 0) + 1;
        res.ends.push({ kind, ok: false, startedAt, endedAt: Date.now(), error });
        if (res.samples.length < 8) res.samples.push(`${kind}: ${error}`);
      }
    };
    await Promise.all([
      one('payroll'),
      ...Array.from({ length: concurrency }, async () => {
        while (!stopped) await one(KINDS[this.seq++ % KINDS.length]);
      }),
    ]);
    return res;
  }

  /** One journey of `kind`. */
  journey(kind: JourneyKind): Promise<void> {
    switch (kind) {
      case 'crypto_link':
        return this.cryptoLink();
      case 'bank_link':
        return this.bankLink(BANK_RAILS[this.seq % BANK_RAILS.length]);
      case 'payout':
        return this.payout();
      case 'wallet_send':
        return this.walletSend();
      case 'offramp':
        return this.offramp();
      case 'subscription':
        return this.subscription();
      case 'payroll':
        return this.payroll();
    }
  }

  /** A payment's status once it is one of `want` (polling the API). */
  private reach(path: string, want: string[], auth: 'key' | 'session' = 'key', ms?: number): Promise<any> {
    const read =
      auth === 'key'
        ? () => this.traffic.key(this.f.creds.live_key, 'GET', path)
        : () => this.traffic.session(this.f.creds.session_token, 'GET', path);
    return this.traffic.until(
      `${path} ${want.join('|')}`,
      async () => {
        const o = await read();
        return want.includes(o.status) ? o : null;
      },
      ms,
    );
  }

  /** A chain transfer from the outside world (sent twice in provider chaos: the same tx_hash). */
  private async chainTransfer(body: Record<string, unknown>): Promise<void> {
    const b = { ...body, tx_hash: txHash() };
    await this.traffic.anon('POST', '/sim/chain/transfers', b, { anonRetry: 'safe' });
    if (this.providerChaos) await this.traffic.anon('POST', '/sim/chain/transfers', b, { anonRetry: 'safe' });
  }

  /** The fiat rail's callback for `ref` (retried until the rail has the payment; a repeated one may be refused, 409). */
  private async railEvent(ref: string, body: Record<string, unknown>): Promise<void> {
    const send = () =>
      this.traffic.anon('POST', `/sim/providers/fiat_rails/payments/${ref}`, body, { anonRetry: 'safe', accept: [409], awaited: [404] });
    await this.traffic.until(`rail payment ${ref}`, async () => {
      try {
        await send();
        return true;
      } catch (e) {
        if (e instanceof StepError && e.message.includes(' 404 ')) return null;
        throw e;
      }
    });
    if (this.providerChaos) await send();
  }

  private cryptoLink(): Promise<void> {
    return cryptoLinkJourney(this.traffic.pick(), this.f.creds.live_key, {
      // A chain transfer with its own tx_hash is idempotent at the chain: safe to send again.
      call: (_api, key, method, path, body) =>
        key
          ? this.traffic.key(key, method, path, body)
          : path === '/sim/chain/transfers'
            ? this.traffic.anon(method, path, { ...(body as object), tx_hash: txHash() }, { anonRetry: 'safe' })
            : this.traffic.anon(method, path, body, { anonRetry: 'safe' }),
      reach: async (type, id) => {
        await this.reach(`/v1/payments/${id}`, type === 'payment.underpaid' ? ['underpaid', 'paid', 'settled'] : ['settled']);
      },
    });
  }

  private async bankLink([rail, destRail, currency, amount]: [string, string, string, string]): Promise<void> {
    const k = this.f.creds.live_key;
    const l = await this.traffic.key(k, 'POST', '/v1/payment_links', {
      amount: { amount, currency, decimals: 2 },
      title: `Invoice on ${rail}`,
      settlement_destination: { address_book_id: this.f.bankDest[destRail] },
    });
    const a = await this.traffic.key(k, 'POST', `/v1/payment_links/${l.id}/activate`, { attestation_accepted: true });
    const token = String(a.url).split('/pay/')[1];
    const p = await this.traffic.anon(
      'POST',
      `/v1/payment_sessions/${token}/payments`,
      { rail, payer_type: 'business' },
      { anonRetry: 'safe' },
    );
    const bdi = p.bank_deposit_instructions;
    const toAccount =
      bdi.rail === 'sepa'
        ? bdi.iban
        : bdi.rail === 'faster_payments'
          ? `${bdi.sort_code} ${bdi.account_number}`
          : bdi.rail === 'pix'
            ? bdi.pix_key
            : bdi.rail === 'spei'
              ? bdi.clabe
              : bdi.account_number;
    // A bank credit is not idempotent at the bank: sent again only when it surely did not arrive.
    await this.traffic.anon(
      'POST',
      '/sim/bank/credits',
      { rail: bdi.rail, currency: bdi.currency, amount, reference: bdi.reference, to_account: toAccount, sender_name: 'Payer Co' },
      { anonRetry: 'unsent' },
    );
    await this.reach(`/v1/payments/${p.id}`, ['paid', 'settled']);
    await this.railEvent(p.id, { state: 'paid' });
    await this.reach(`/v1/payments/${p.id}`, ['settled']);
  }

  private async payout(): Promise<void> {
    const k = this.f.creds.live_key;
    const p = await this.traffic.key(k, 'POST', '/v1/payouts', {
      invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 },
      corridor_id: 'usd_ach',
      source_chain: 'base',
    });
    await this.traffic.key(k, 'POST', `/v1/payouts/${p.id}/beneficiary`, {
      account_owner_type: 'business',
      account_holder_name: 'Supplier LLC',
      account_number: '123456789',
      routing_number: '021000021',
    });
    const f = await this.traffic.session(this.f.creds.session_token, 'POST', `/v1/payouts/${p.id}/funding_instructions`, {});
    await this.chainTransfer({ chain: 'base', to_address: f.deposit_address, asset: 'USDC', amount: f.gross_amount.amount });
    await this.reach(`/v1/payouts/${p.id}`, ['processing', 'paid', 'settled']);
    // Out of order: the recipient's confirmation before the rail's `paid` (refused by the sandbox rail, or absorbed).
    if (this.providerChaos)
      await this.traffic.anon(
        'POST',
        `/sim/providers/fiat_rails/payments/${p.id}`,
        { recipient_received_amount: '100000' },
        { anonRetry: 'safe', accept: [404, 409] },
      );
    await this.railEvent(p.id, { state: 'paid' });
    await this.reach(`/v1/payouts/${p.id}`, ['paid', 'settled']);
    await this.railEvent(p.id, { recipient_received_amount: '100000' });
    await this.reach(`/v1/payouts/${p.id}`, ['settled']);
  }

  private async walletSend(): Promise<void> {
    const s = this.f.creds.session_token;
    const si = await this.traffic.session(s, 'POST', '/v1/wallet/send_intents', {
      destination_chain: this.f.wallet.chain,
      destination_address: OTHER,
      amount: { amount: '1500000', currency: this.f.asset, decimals: 6 },
    });
    // Signing is the holder's act: a second signature would be a second transfer, so it is sent once.
    const signed = await this.traffic.anon('POST', '/sim/wallet/sign', si.unsigned_transaction, { anonRetry: 'unsent' });
    await this.traffic.session(s, 'POST', `/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: signed.tx_hash });
    await this.reach(`/v1/wallet/send_intents/${si.id}`, ['settled'], 'session');
  }

  private async offramp(): Promise<void> {
    const s = this.f.creds.session_token;
    const ofr = await this.traffic.session(s, 'POST', '/v1/wallet/offramp_intents', {
      external_account_id: this.f.externalAccount,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: { amount: '20000000', currency: this.f.asset, decimals: 6 },
    });
    await this.traffic.anon('POST', '/sim/wallet/sign', ofr.transit_deposit.unsigned_transaction, { anonRetry: 'unsent' });
    await this.reach(`/v1/wallet/offramp_intents/${ofr.id}`, ['payment_processed'], 'session');
  }

  private async subscription(): Promise<void> {
    const sub = await this.traffic.key(this.f.creds.live_key, 'POST', '/v1/subscriptions', {
      client_id: this.f.clientId,
      amount: { amount: '25000000', currency: this.f.asset, decimals: 6 },
      interval: 'month',
      settlement_destination_id: this.f.cryptoDest,
    });
    // Half of them end (cancelled), half stay active with their billing workflow.
    if (this.subscriptions++ % 2 === 0) await this.traffic.key(this.f.creds.live_key, 'POST', `/v1/subscriptions/${sub.id}/cancel`, {});
    await sleep(500);
  }

  private async payroll(): Promise<void> {
    const k = this.f.creds.live_key;
    const n = this.seq++;
    const run = await this.traffic.key(k, 'POST', '/v1/payroll_runs', {
      title: `Chaos payroll ${n}`,
      currency: 'EUR',
      funding_method: 'crypto',
      rows: [
        { email: `eva${n}@example.com`, name: 'Eva Roth', amount: { amount: '100000', currency: 'EUR', decimals: 2 } },
        { email: `max${n}@example.com`, name: 'Max Weber', amount: { amount: '50000', currency: 'EUR', decimals: 2 } },
      ],
    });
    const items = (await this.traffic.key(k, 'GET', `/v1/payroll_runs/${run.id}/items`)).data as Array<{
      id: string;
      recipient: { id: string };
    }>;
    for (const item of items) {
      // The session token is never replayed (an idempotent replay answers it null): ask again with a new key.
      const link = await this.traffic.until(
        'recipient session',
        async () =>
          (await this.traffic.key(k, 'POST', `/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {})).recipient_session?.token ??
          null,
      );
      await this.traffic.anon(
        'POST',
        `/v1/payroll_recipient_sessions/${link}/destination`,
        {
          type: 'bank_account',
          account_owner_type: 'individual',
          account_holder_name: 'Eva Roth',
          rail: 'sepa',
          iban: 'DE89370400440532013000',
        },
        { anonRetry: 'safe', accept: [409] },
      );
      const rcp = await this.traffic.key(k, 'GET', `/v1/payroll_recipients/${item.recipient.id}`);
      await this.traffic.key(k, 'POST', `/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
        expected_submitted_at: rcp.pending_destination.submitted_at,
      });
    }
    await this.traffic.key(k, 'POST', `/v1/payroll_runs/${run.id}/approve`, {});
    const fi = await this.traffic.key(k, 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
    await this.chainTransfer({
      chain: fi.crypto.chain,
      asset: fi.crypto.asset,
      to_address: fi.crypto.address,
      amount: fi.crypto.amount.amount,
    });
    await this.traffic.until('payroll funded', async () => {
      const r = await this.traffic.key(k, 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      return r.status === 'funded' || (await this.traffic.key(k, 'GET', `/v1/payroll_runs/${run.id}`)).status === 'funded' ? true : null;
    });
    await this.traffic.key(k, 'POST', `/v1/payroll_runs/${run.id}/execute`, {});
    await this.reach(`/v1/payroll_runs/${run.id}`, ['completed', 'partial', 'failed']);
  }
}
