/**
 * A local webhook receiver for tests: each `path()` gets scripted replies answered in order (then
 * 200), optionally after a hook or a hang (timeouts); every request's raw body and headers are kept.
 * `new Receiver({ tls: testTls() })` serves https with the test stack's self-signed certificate
 * (scripts/local-tls.ts), which the product trusts through WEBHOOKS_EXTRA_CA_FILE; without `tls`
 * it serves plain http (loopback http under the development switch).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { webhookPipelineReport } from './webhook-report';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hangMs?: number;
  before?: () => Promise<void>;
}
export interface ReceiverTls {
  cert: string;
  key: string;
}

/** The test stack's receiver certificate and key (set by tests/setup/global-setup.ts). */
export function testTls(): ReceiverTls {
  const certFile = process.env.WEBHOOKS_EXTRA_CA_FILE;
  const keyFile = process.env.WEBHOOKS_TEST_TLS_KEY_FILE;
  if (!certFile || !keyFile) throw new Error('WEBHOOKS_EXTRA_CA_FILE / WEBHOOKS_TEST_TLS_KEY_FILE are not set (global setup)');
  return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
}

/** Verifies a receipt with endpoint `secret` (Standard Webhooks, spec 6); returns the parsed event or throws. */
export function verify(secret: string, received: Received): any {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': received.headers['webhook-id'],
    'webhook-timestamp': received.headers['webhook-timestamp'],
    'webhook-signature': received.headers['webhook-signature'],
  });
}

export class Receiver {
  readonly server: http.Server | https.Server;
  base = '';
  port = 0;
  private readonly got = new Map<string, Received[]>();
  private readonly plans = new Map<string, Reply[]>();
  private readonly scheme: 'http' | 'https';

  /** `tls`: serve https with this certificate; `host`: the host name used in `base` (default 127.0.0.1). */
  constructor(private readonly opts: { tls?: ReceiverTls; host?: string } = {}) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => this.handle(req, res);
    this.scheme = opts.tls ? 'https' : 'http';
    this.server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.base = `${this.scheme}://${this.opts.host ?? '127.0.0.1'}:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A fresh path on this receiver; `replies` are answered in order, then 200. */
  path(name: string, replies: Reply[] = []): { url: string; path: string } {
    const p = `/${name}-${crypto.randomBytes(4).toString('hex')}`;
    this.plans.set(p, [...replies]);
    return { url: `${this.base}${p}`, path: p };
  }

  /** Requests received on `path`, oldest first. */
  received(path: string): Received[] {
    return this.got.get(path) ?? [];
  }

  /**
   * Waits until `path` has received at least `count` requests and returns them all, oldest first.
   * On timeout (default 30 s) throws with the webhook pipeline's state for that URL
   * (./webhook-report.ts), so a slow CI run says where the deliveries stopped.
   */
  async waitFor(path: string, count: number, what: string, timeoutMs = 30_000): Promise<Received[]> {
    const end = Date.now() + timeoutMs;
    while (this.received(path).length < count) {
      if (Date.now() > end) {
        throw new Error(
          `timed out waiting for ${what} (${this.received(path).length} of ${count} received)\n${await webhookPipelineReport(`${this.base}${path}`)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return this.received(path);
  }

  /** Every request received, on any path. */
  total(): number {
    let n = 0;
    for (const r of this.got.values()) n += r.length;
    return n;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0];
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      this.got.set(path, [...this.received(path), { path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }]);
      const reply = this.plans.get(path)?.shift() ?? { status: 200, body: '{"received":true}' };
      if (reply.before) await reply.before();
      if (reply.hangMs) await new Promise((r) => setTimeout(r, reply.hangMs));
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.body ?? '');
    });
  }
}
