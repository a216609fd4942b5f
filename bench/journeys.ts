/**
 * What bench:load and the chaos harness share: a webhook receiver that counts `webhook-id`s and
 * wakes waiters by `type:object id`, the error a failed journey step throws, and the merchant's
 * crypto link journey (create -> activate -> the payer opens a native payment -> a short deposit ->
 * `payment.underpaid` -> the top-up -> `payment.settled`), parameterised by how each call is made
 * and how the two outcomes are awaited.
 */
import http from 'node:http';

/** A step of a journey that did not finish (a non-2xx answer, or a wait that ran out). */
export class StepError extends Error {}

/** One API call: `key` null for the payer's and the simulator's calls. Throws `StepError` on a non-2xx answer. */
export type Call = (api: string, key: string | null, method: string, path: string, body?: unknown) => Promise<any>;

/** How a receiver answers: at once, late, with a 500, never, by resetting the connection, or with a redirect. */
export type ReceiverMode = 'ok' | 'slow' | 'fail' | 'hang' | 'reset' | 'redirect';

/** Webhook receipts: waiters by `type:object id`, how often each `webhook-id` arrived, and when. */
export class Receiver {
  readonly seen = new Map<string, number>();
  /** Arrival times (ms, performance.now()) of the requests answered 2xx, with the event's `created` time. */
  readonly receipts: Array<{ at: number; createdMs: number }> = [];
  mode: ReceiverMode = 'ok';
  slowMs = 2000;
  private readonly waiters = new Map<string, () => void>();
  private readonly arrived = new Set<string>();
  readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = this.mode;
      if (mode === 'hang') return; // never answers; the sender's timeout ends it
      if (mode === 'reset') {
        req.socket.destroy();
        return;
      }
      if (mode === 'redirect') {
        res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        return;
      }
      if (mode === 'fail') {
        res.writeHead(500).end('receiver down');
        return;
      }
      const answer = () => {
        const id = String(req.headers['webhook-id'] ?? '');
        this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
        try {
          const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            type: string;
            created?: string;
            data: { object: { id: string } };
          };
          const key = `${e.type}:${e.data.object.id}`;
          this.arrived.add(key);
          this.waiters.get(key)?.();
          this.receipts.push({ at: Date.now(), createdMs: e.created ? Date.parse(e.created) : NaN });
        } catch {
          /* not an event */
        }
        res.writeHead(204).end();
      };
      if (mode === 'slow') setTimeout(answer, this.slowMs);
      else answer();
    });
  });

  /** Resolves when `type` for `objectId` has arrived (or already had). */
  wait(type: string, objectId: string): Promise<void> {
    const key = `${type}:${objectId}`;
    if (this.arrived.has(key)) return Promise.resolve();
    return new Promise((resolve) =>
      this.waiters.set(key, () => {
        this.waiters.delete(key);
        resolve();
      }),
    );
  }

  /** Listens on a free loopback port; resolves with the receiver's URL. */
  async listen(): Promise<string> {
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((res) => this.server.listen(0, '127.0.0.1', () => res()));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  /** Closes the server and every connection. */
  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** Rejects with a `StepError` when `p` has not settled within `ms`. */
export const within = <T>(value: Promise<T>, what: string, ms: number): Promise<T> =>
  Promise.race([
    value,
    new Promise<T>((_, reject) => setTimeout(() => reject(new StepError(`${what}: not within ${ms / 1000} s`)), ms).unref()),
  ]);

/** The hooks of one crypto link journey. */
export interface CryptoJourneyHooks {
  call: Call;
  /** Waits for `payment.underpaid` / `payment.settled` of the payment (a webhook, or polling). */
  reach(type: 'payment.underpaid' | 'payment.settled', paymentId: string): Promise<void>;
  /** Times a step (default: runs it). */
  timed?<T>(step: string, fn: () => Promise<T>): Promise<T>;
  onLink?(id: string): void;
  onPayment?(id: string): void;
}

/** The steps of `cryptoLinkJourney`, in order (the names `timed` receives). */
export const CRYPTO_STEPS = ['create', 'activate', 'pay', 'short -> underpaid webhook', 'top-up -> settled webhook'] as const;

/** One crypto link journey against `api` as the merchant `key` (module doc); a 10.00 USD link. */
export async function cryptoLinkJourney(api: string, key: string, cryptoJourneyHooks: CryptoJourneyHooks): Promise<void> {
  const timed = cryptoJourneyHooks.timed ?? (<T>(_: string, fn: () => Promise<T>) => fn());
  const link = await timed('create', () =>
    cryptoJourneyHooks.call(api, key, 'POST', '/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: 'Load test order',
      accepted_rail_kinds: ['crypto'],
    }),
  );
  cryptoJourneyHooks.onLink?.(link.id);
  const act = await timed('activate', () =>
    cryptoJourneyHooks.call(api, key, 'POST', `/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }),
  );
  const token = String(act.url).split('/pay/')[1];
  const pay = await timed('pay', () =>
    cryptoJourneyHooks.call(api, null, 'POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }),
  );
  cryptoJourneyHooks.onPayment?.(pay.id);
  const di = pay.deposit_instructions;
  const due = BigInt(di.amount.amount);
  const short = (due * 6n) / 10n;
  await timed(CRYPTO_STEPS[3], async () => {
    await cryptoJourneyHooks.call(api, null, 'POST', '/sim/chain/transfers', {
      chain: di.chain,
      to_address: di.address,
      asset: di.asset,
      amount: String(short),
    });
    await cryptoJourneyHooks.reach('payment.underpaid', pay.id);
  });
  await timed(CRYPTO_STEPS[4], async () => {
    await cryptoJourneyHooks.call(api, null, 'POST', '/sim/chain/transfers', {
      chain: di.chain,
      to_address: di.address,
      asset: di.asset,
      amount: String(due - short),
    });
    await cryptoJourneyHooks.reach('payment.settled', pay.id);
  });
}
