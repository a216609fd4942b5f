/**
 * A local webhook receiver for tests: each `path()` gets scripted replies answered in order (then
 * 200), optionally after a hook or a hang (timeouts); every request's raw body and headers are kept.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received { path: string; headers: Record<string, string>; body: string; at: number }
export interface Reply { status?: number; headers?: Record<string, string>; body?: string; hangMs?: number; before?: () => Promise<void> }

export class Receiver {
  readonly server = http.createServer((req, res) => this.handle(req, res));
  base = '';
  private readonly got = new Map<string, Received[]>();
  private readonly plans = new Map<string, Reply[]>();

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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
