/**
 * The chaos harness's HTTP client: every call is one logical request a well-behaved client makes,
 * retried as a client would (a connection error, a timeout, a 5xx, a 429, or a 409 for a key still
 * in flight: after `Retry-After` or a short back-off, with the same `Idempotency-Key`, against the
 * next API instance) until it answers or its deadline passes. Every attempt is recorded with its
 * time and outcome, so the report can count requests and errors per fault window and time the
 * first success after each fault. 500s are kept apart (with their body) as findings.
 */
import crypto from 'node:crypto';
import { StepError } from '../journeys';

/** One attempt: when it ended (ms epoch), its status or `conn` (no answer) / `timeout`, and the route. */
export interface Attempt {
  at: number;
  status: number | 'conn' | 'timeout';
  method: string;
  path: string;
  retryAfter: boolean;
  /** An answer the caller expected (a 404 while polling for a provider's record, a 409 to a repeated callback): not an error. */
  awaited?: boolean;
}

/** Who calls: a secret key, a dashboard session, or nobody (the payer's token routes, `/sim`). */
export type Auth = { key: string } | { session: string } | null;

/** Options of one request. */
export interface RequestOpts {
  body?: unknown;
  /** Stop retrying after this many ms (default 120 s). */
  deadlineMs?: number;
  /**
   * Retry policy for calls without an Idempotency-Key (the outside world through `/sim`):
   * `safe` retries like the rest (the call is idempotent by itself, e.g. a chain transfer with its
   * own tx_hash), `unsent` only when no connection was made (a bank credit must not arrive twice).
   */
  anonRetry?: 'safe' | 'unsent';
  /** Statuses that count as an answer (default 2xx only). */
  accept?: number[];
  /** Statuses that are an expected "not yet" while polling (recorded as awaited, not as errors). */
  awaited?: number[];
}

const ATTEMPT_TIMEOUT_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The harness's clients (module doc). */
export class Traffic {
  readonly attempts: Attempt[] = [];
  readonly findings: string[] = [];
  /** Idempotency keys a request gave up on while the server still answered `idempotency_key_in_use` (diagnosed in the report). */
  readonly keysGivenUpInUse: string[] = [];
  private next = 0;
  /** Instances to skip (taken down on purpose); a client still learns the hard way when one dies unannounced. */
  readonly down = new Set<string>();

  /** `deadlineMs`: how long a request is retried by default. */
  constructor(
    readonly apis: string[],
    readonly deadlineMs = 120_000,
  ) {}

  /**
   * Plays the load balancer of a rolling deploy (decision 0082): polls each instance's `/readyz`
   * every `everyMs` and routes only to those answering 200 (an instance draining answers 503, a dead
   * one nothing). Instances a fault took down on purpose stay down until it brings them back.
   * Returns the function that stops polling.
   */
  balance(everyMs = 500): () => void {
    const notReady = new Set<string>();
    let stopped = false;
    const poll = async () => {
      while (!stopped) {
        await Promise.all(
          this.apis.map(async (api) => {
            const ok = await fetch(`${api}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
              (r) => r.status === 200,
              () => false,
            );
            if (ok) notReady.delete(api);
            else notReady.add(api);
          }),
        );
        this.notReady = new Set(notReady);
        await sleep(everyMs);
      }
    };
    void poll();
    return () => {
      stopped = true;
      this.notReady = new Set();
    };
  }

  /** Instances whose `/readyz` did not answer 200 at the last poll (see `balance`). */
  private notReady = new Set<string>();

  /** The next API instance, round robin over those not marked down. */
  pick(): string {
    const up = this.apis.filter((a) => !this.down.has(a) && !this.notReady.has(a));
    const list = up.length ? up : this.apis;
    return list[this.next++ % list.length];
  }

  /** One logical request (module doc); resolves with the answer's body, throws `StepError` when it cannot. */
  async request(auth: Auth, method: string, path: string, opts: RequestOpts = {}): Promise<any> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth && 'key' in auth) headers['x-api-key'] = auth.key;
    if (auth && 'session' in auth) headers.authorization = `Bearer ${auth.session}`;
    const idem = auth !== null && method !== 'GET';
    if (idem) headers['Idempotency-Key'] = `chaos_${crypto.randomBytes(12).toString('hex')}`;
    const retryAll = idem || method === 'GET' || opts.anonRetry === 'safe';
    const deadline = Date.now() + (opts.deadlineMs ?? this.deadlineMs);
    const accept = opts.accept ?? [];
    let backoff = 200;
    let last = '';
    for (;;) {
      const api = this.pick();
      let status: Attempt['status'];
      let text = '';
      let retryAfter: string | null = null;
      try {
        const r = await fetch(`${api}${path}`, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        status = r.status;
        text = await r.text();
        retryAfter = r.headers.get('retry-after');
      } catch (e) {
        const err = e as Error & { cause?: { code?: string } };
        status = err.name === 'TimeoutError' ? 'timeout' : 'conn';
        text = `${err.cause?.code ?? err.name}: ${err.message}`;
        // Nothing reached the server: safe to send again whatever the call.
        if (!retryAll && err.cause?.code !== 'ECONNREFUSED') {
          this.attempts.push({ at: Date.now(), status, method, path, retryAfter: false });
          throw new StepError(`${method} ${path}: ${text} (not retried: the call may have landed)`);
        }
      }
      this.attempts.push({
        at: Date.now(),
        status,
        method,
        path,
        retryAfter: retryAfter !== null,
        awaited: typeof status === 'number' && [...(opts.awaited ?? []), ...(opts.accept ?? [])].includes(status),
      });
      if (typeof status === 'number' && ((status >= 200 && status < 300) || accept.includes(status))) {
        return text ? JSON.parse(text) : null;
      }
      if (status === 500 && this.findings.length < 50) this.findings.push(`${method} ${path} -> 500 ${text.slice(0, 300)}`);
      if (status === 503 && retryAfter === null && this.findings.length < 50)
        this.findings.push(`${method} ${path} -> 503 without Retry-After ${text.slice(0, 200)}`);
      const inFlight = status === 409 && text.includes('idempotency_key_in_use');
      const retryable = typeof status !== 'number' || status >= 500 || status === 429 || inFlight;
      last = `${method} ${path}: ${status} ${text.slice(0, 300)}`;
      if (!retryable || (!retryAll && typeof status === 'number') || Date.now() > deadline) {
        if (inFlight) this.keysGivenUpInUse.push(headers['Idempotency-Key']);
        throw new StepError(last);
      }
      const wait = retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Math.min(5000, Number(retryAfter) * 1000) : backoff;
      backoff = Math.min(2000, backoff * 2);
      await sleep(wait);
    }
  }

  /** `request` with a secret key. */
  key(key: string, method: string, path: string, body?: unknown, opts: RequestOpts = {}): Promise<any> {
    return this.request({ key }, method, path, { ...opts, body });
  }

  /** `request` with a dashboard session. */
  session(session: string, method: string, path: string, body?: unknown, opts: RequestOpts = {}): Promise<any> {
    return this.request({ session }, method, path, { ...opts, body });
  }

  /** `request` without credentials (payer routes, `/sim`). */
  anon(method: string, path: string, body?: unknown, opts: RequestOpts = {}): Promise<any> {
    return this.request(null, method, path, { ...opts, body });
  }

  /** Polls `read` every 500 ms until it returns a value other than null; throws `StepError` after `ms`. */
  async until<T>(what: string, read: () => Promise<T | null>, ms?: number): Promise<T> {
    const limit = ms ?? this.deadlineMs;
    const end = Date.now() + limit;
    for (;;) {
      const v = await read().catch(() => null);
      if (v !== null) return v;
      if (Date.now() > end) throw new StepError(`${what}: not within ${limit / 1000} s`);
      await sleep(500);
    }
  }
}
