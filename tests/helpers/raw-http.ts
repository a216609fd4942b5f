/**
 * Raw HTTP requests to the product under test, for what `fetch` cannot send: any method (TRACE is
 * forbidden to fetch) and arbitrary body bytes (invalid UTF-8). Answers like helpers/api.ts `call`.
 */
import http from 'node:http';
import { API, type Res } from './api';

/**
 * Sends `method path` with `headers` and the exact `body` bytes (none when undefined); resolves
 * with the status, the body (parsed JSON when it is JSON, else the text) and the headers.
 */
export function rawRequest(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Res> {
  const url = new URL(path, API());
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            /* not JSON */
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: h });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
