/**
 * One route match per request and router. A `/v1` request asks each router
 * whether it serves the path up to four times: the request log's and the public rate limit's
 * "is this a public route?", the 405 check (api/middleware/input.ts) and the router's own
 * dispatch. Each ask tests every layer's regular expression (the `/v1` router has hundreds).
 * `memoizeRouteMatch` makes the repeated asks of one request cost a map lookup.
 */
import type Router from '@koa/router';

type MatchResult = ReturnType<Router['match']>;

/** Entries kept per router; the map is emptied when full (a request's asks come within microseconds of each other). */
const MAX_ENTRIES = 512;

/**
 * Replaces `router.match` with a memo keyed by method and path. A match depends only on the
 * router's layers, so the memo is emptied whenever a layer is added (`router.stack` grows).
 * Each call returns fresh arrays: koa-router appends to the `path` array it is given
 * (`ctx.matched`), so a cached array must never be handed out. Idempotent. Returns `router`.
 */
export function memoizeRouteMatch<R extends Router<any, any>>(router: R): R {
  const r = router as R & { __matchMemo?: true };
  if (r.__matchMemo) return router;
  r.__matchMemo = true;
  const original = router.match.bind(router);
  const memo = new Map<string, MatchResult>();
  let layers = router.stack.length;
  router.match = (path: string, method: string): MatchResult => {
    if (router.stack.length !== layers) {
      memo.clear();
      layers = router.stack.length;
    }
    const key = `${method} ${path}`;
    let m = memo.get(key);
    if (!m) {
      m = original(path, method);
      if (memo.size >= MAX_ENTRIES) memo.clear();
      memo.set(key, m);
    }
    return { path: [...m.path], pathAndMethod: [...m.pathAndMethod], route: m.route };
  };
  return router;
}
