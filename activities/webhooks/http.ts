/**
 * The HTTP leg of one webhook attempt (spec 4.10, 6): a POST through the SSRF-guarded undici agent
 * (lib/safe-http.ts), redirects never followed, a 10 s budget, the first 500 characters of the
 * response kept. Not an activity module: activities/webhooks.ts calls it.
 */
import fs from 'node:fs';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { loadConfig } from '../../lib/config';
import { createGuardedAgent, isForbiddenDestination } from '../../lib/safe-http';

/** Total time budget of one HTTP attempt (connect, headers, body), ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Characters of the response body kept on the attempt row. */
export const RESPONSE_EXCERPT_CHARS = 500;
/** Concurrent connections per receiver origin from one worker process. */
export const CONNECTIONS_PER_ORIGIN = 64;

/**
 * Result of one POST: `statusCode` null when no response arrived; `error` null on 2xx, else
 * `http_status_<n>`, `redirect_not_followed[: <location>]`, `timeout`, `connection_error: <code>`
 * or `destination_forbidden: <why>`; `latencyMs` from send to the end of the excerpt; `excerpt`
 * the first RESPONSE_EXCERPT_CHARS characters of the body (null when empty).
 */
export interface HttpResult {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
  retryable: boolean;
}

let agent: Dispatcher | null = null;

/**
 * The process's delivery agent: guarded (public destinations only; loopback too under
 * WEBHOOKS_ALLOW_LOOPBACK), trusting the system roots plus WEBHOOKS_EXTRA_CA_FILE when set.
 */
export function deliveryAgent(): Dispatcher {
  if (!agent) {
    const cfg = loadConfig();
    agent = createGuardedAgent({
      allowLoopback: cfg.webhooksAllowLoopback,
      extraCa: cfg.webhooksExtraCaFile ? fs.readFileSync(cfg.webhooksExtraCaFile, 'utf8') : null,
      connectTimeoutMs: WEBHOOK_TIMEOUT_MS,
      connectionsPerOrigin: CONNECTIONS_PER_ORIGIN,
    });
  }
  return agent;
}

/** True for a 2xx status. */
export function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** POSTs `body` with `headers` to `url` through `dispatcher` (default: deliveryAgent()); never throws. */
export async function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  dispatcher: Dispatcher = deliveryAgent(),
): Promise<HttpResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    // Redirects are never followed: undici follows them only through its redirect interceptor, not used here.
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      headersTimeout: WEBHOOK_TIMEOUT_MS,
      bodyTimeout: WEBHOOK_TIMEOUT_MS,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const excerpt = await readExcerpt(res.body);
    const status = res.statusCode;
    let error: string | null = null;
    if (status >= 300 && status < 400) {
      const loc = res.headers.location;
      error = `redirect_not_followed${loc ? `: ${String(Array.isArray(loc) ? loc[0] : loc).slice(0, 200)}` : ''}`;
    } else if (!isSuccess(status)) error = `http_status_${status}`;
    return { statusCode: status, error, latencyMs: elapsed(), excerpt, retryable: true };
  } catch (e) {
    return { statusCode: null, error: classifyError(e), latencyMs: elapsed(), excerpt: null, retryable: true };
  }
}

/** First RESPONSE_EXCERPT_CHARS characters of a response body; reads at most 4 KiB, then drops the rest. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= 4096) break; // leaving the loop destroys the stream
    }
  } catch {
    /* body timed out or was cut: keep what arrived */
  } finally {
    body.destroy?.();
  }
  if (total === 0) return null;
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
}

function classifyError(e: unknown): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (isForbiddenDestination(e)) {
    const msg = err?.code === 'ERR_DESTINATION_FORBIDDEN' ? err.message : (err?.cause?.message ?? err?.message);
    return `destination_forbidden: ${msg ?? ''}`.slice(0, 500);
  }
  const code = err?.code ?? err?.cause?.code;
  if (
    err?.name === 'TimeoutError' ||
    err?.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_ABORTED'
  )
    return 'timeout';
  return `connection_error: ${code ?? err?.message ?? String(e)}`.slice(0, 500);
}
