/**
 * The API request a piece of work runs for: its `request_id` (the `Request-Id`
 * header, `req_` + 24 characters), kept in an AsyncLocalStorage for the duration of the request so
 * that code far from the handler (the logger's mixin, the Temporal client's start options, metrics)
 * can name it without threading it through every call. Outside a request it is undefined.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What is known about the request being served. */
export interface RequestContext {
  /** The request's id (`req_...`), as answered in `Request-Id`. */
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context (the API's request-id middleware). */
export function runInRequest<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current request's context, or undefined outside an API request (workers, sweeps, timers). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
