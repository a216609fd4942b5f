/**
 * A real Server-Sent Events client for tests, benches and operators (npm `eventsource`, WHATWG semantics:
 * automatic reconnection with `Last-Event-ID`), authenticated with a key (`x-api-key`) or a
 * session (`Authorization: Bearer`), collecting every named event frame it receives.
 */
import { EventSource } from 'eventsource';
import { LIVE_EVENT_TYPES } from '../domain/event-types';

export interface Frame {
  id: string;
  type: string;
  data: any;
  at: number;
}

export interface StreamClient {
  es: EventSource;
  frames: Frame[];
  /** Connection errors seen (status code when the server answered non-200). */
  errors: Array<{ code?: number; message?: string }>;
  opens: number;
  /** Resolves once `n` frames have arrived (throws after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Frame[]>;
  close(): void;
}

/** Opens `GET {base}/v1/events/stream{query}`; `lastEventId` is sent on the first connection too. */
export function openStream(
  base: string,
  cred: string,
  options: { query?: string; lastEventId?: string; bearer?: boolean } = {},
): StreamClient {
  const auth: Record<string, string> =
    cred.startsWith('sk_') && !options.bearer ? { 'x-api-key': cred } : { authorization: `Bearer ${cred}` };
  const es = new EventSource(`${base}/v1/events/stream${options.query ?? ''}`, {
    fetch: (input, init) => {
      const headers: Record<string, string> = { ...(init?.headers as Record<string, string> | undefined), ...auth };
      if (options.lastEventId && !headers['Last-Event-ID']) headers['Last-Event-ID'] = options.lastEventId;
      return fetch(input, { ...init, headers });
    },
  });
  const c: StreamClient = {
    es,
    frames: [],
    errors: [],
    opens: 0,
    async waitFor(n, timeoutMs = 10000) {
      const end = Date.now() + timeoutMs;
      while (c.frames.length < n) {
        if (Date.now() > end)
          throw new Error(`stream: ${c.frames.length}/${n} frames after ${timeoutMs} ms; errors ${JSON.stringify(c.errors)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return c.frames;
    },
    close: () => es.close(),
  };
  for (const t of LIVE_EVENT_TYPES) {
    es.addEventListener(t, (ev) => {
      c.frames.push({ id: ev.lastEventId, type: ev.type, data: JSON.parse(ev.data), at: Date.now() });
    });
  }
  es.addEventListener('open', () => {
    c.opens += 1;
  });
  es.addEventListener('error', (e) => {
    c.errors.push({ code: (e as { code?: number }).code, message: (e as { message?: string }).message });
  });
  return c;
}

/** Waits until `es` reports `open` (throws on a non-200 answer). */
export async function opened(streamClient: StreamClient, timeoutMs = 10000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (streamClient.es.readyState !== EventSource.OPEN) {
    if (streamClient.es.readyState === EventSource.CLOSED) throw new Error(`stream closed: ${JSON.stringify(streamClient.errors)}`);
    if (Date.now() > end) throw new Error('stream did not open');
    await new Promise((r) => setTimeout(r, 20));
  }
}
