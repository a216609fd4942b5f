/**
 * Input hygiene before routing (spec 7; docs/decisions/0027-hostile-input.md). Every
 * refusal is the error envelope, never a 500:
 * - request methods: a method the path does not serve is `405 invalid_request` code
 *   `method_not_allowed` with an `Allow` header; an unknown method on an unknown path is `404`;
 * - request bodies (POST, PUT, PATCH, DELETE), read by our own parser: over `BODY_LIMIT_BYTES`
 *   `413 invalid_request` code `request_too_large`; not `application/json` (UTF-8) or compressed
 *   `400 content_type_invalid`; invalid UTF-8 `400 body_encoding_invalid`; not JSON or not an
 *   object `400 body_invalid`; nested deeper than `MAX_BODY_DEPTH` `400 body_too_deep`; a
 *   `__proto__` key (or a `constructor` key holding `prototype`) at any depth
 *   `400 parameter_unknown`; a NUL character (PostgreSQL text cannot hold it) in any key or string
 *   at any depth `400 parameter_invalid`. `param` names the offending dotted path (`items.0.name`);
 * - NUL in a path segment: `404 not_found` (no object id contains it); in a query parameter:
 *   `400 parameter_invalid` naming it.
 */
import type { IncomingMessage } from 'node:http';
import type Router from '@koa/router';
import type Koa from 'koa';
import { DomainError } from '../../domain/errors';
import type { AppState } from '../context';

const NUL = '\u0000';
/** Largest accepted request body, in bytes (before decoding). */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Deepest accepted nesting of a request body: the body object itself is level 1. */
export const MAX_BODY_DEPTH = 32;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The methods the routers implement (koa-router's default list); others never match a route. */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);
const MAX_PARAM_CHARS = 200;

/** `s` with NUL characters shown as `\\0`, cut to 200 characters (for messages and `param`). */
const shown = (s: string) => {
  const t = s.split(NUL).join('\\0');
  return t.length > MAX_PARAM_CHARS ? `${t.slice(0, MAX_PARAM_CHARS)}…` : t;
};

/** Dotted path of the first query key or value containing NUL in the flat object `q`, null when clean. */
export function findNulInQuery(query: Record<string, unknown>): string | null {
  for (const [k, v] of Object.entries(query)) {
    if (k.includes(NUL)) return k;
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => typeof x === 'string' && x.includes(NUL))) return k;
  }
  return null;
}

/** A problem found in a parsed body: what, and the dotted path of the offending key or value. */
export interface BodyProblem {
  kind: 'nul' | 'proto' | 'depth';
  path: string;
}

interface Frame {
  v: unknown;
  key: string | null;
  parent: Frame | null;
  depth: number;
}

function pathOf(f: Frame): string {
  const parts: string[] = [];
  for (let x: Frame | null = f; x && x.key !== null; x = x.parent) parts.push(x.key);
  return parts.reverse().join('.');
}

const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

/**
 * First problem of the parsed JSON value `body`, in document order, or null: a NUL character in a
 * key or string (`nul`), a `__proto__` key or a `constructor` key whose object holds `prototype`
 * (`proto`), a container nested deeper than `maxDepth` levels (`depth`; the root is level 1).
 * Iterative, so any nesting is safe to inspect.
 */
export function findBodyProblem(body: unknown, maxDepth = MAX_BODY_DEPTH): BodyProblem | null {
  const stack: Frame[] = [{ v: body, key: null, parent: null, depth: 1 }];
  while (stack.length) {
    const f = stack.pop()!;
    if (typeof f.v === 'string') {
      if (f.v.includes(NUL)) return { kind: 'nul', path: pathOf(f) };
      continue;
    }
    if (!isContainer(f.v)) continue;
    if (f.depth > maxDepth) return { kind: 'depth', path: pathOf(f) };
    const entries = Object.entries(f.v);
    const children: Frame[] = [];
    for (const [k, x] of entries) {
      const child: Frame = { v: x, key: k, parent: f, depth: f.depth + 1 };
      if (k.includes(NUL)) return { kind: 'nul', path: pathOf(child) };
      if (!Array.isArray(f.v) && (k === '__proto__' || (k === 'constructor' && isContainer(x) && Object.hasOwn(x, 'prototype')))) {
        return { kind: 'proto', path: pathOf(child) };
      }
      children.push(child);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return null;
}

/** The envelope error for `p` (see the module doc). */
export function bodyProblemError(bodyProblem: BodyProblem): DomainError {
  const param = shown(bodyProblem.path);
  const opts = param ? { param } : {};
  if (bodyProblem.kind === 'proto')
    return new DomainError('invalid_request', 'parameter_unknown', `Unknown body parameter: \`${param}\`.`, opts);
  if (bodyProblem.kind === 'depth') {
    // `param` names the top-level field the deep value hangs from; the message shows where it goes too deep.
    const top = shown(bodyProblem.path.split('.')[0]);
    return new DomainError(
      'invalid_request',
      'body_too_deep',
      `The request body nests deeper than ${MAX_BODY_DEPTH} levels${param ? ` (in \`${top}\`, at \`${param}\`)` : ''}.`,
      top ? { param: top } : {},
    );
  }
  return new DomainError(
    'invalid_request',
    'parameter_invalid',
    param ? `\`${param}\` must not contain a NUL character.` : 'The request must not contain NUL characters.',
    opts,
  );
}

const tooLarge = (limit: number) =>
  new DomainError('invalid_request', 'request_too_large', `The request body exceeds ${limit} bytes.`, { status: 413 });

/** True when the request announces a body (a positive Content-Length or a Transfer-Encoding). */
function announcesBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const n = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(n) && n > 0;
}

/** Bytes of an oversize body read and discarded before the 413 is sent; past them (or 10 s) the connection is closed instead. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Discards the rest of an oversize request body, so the 413 reaches a client that is still
 * sending (closing at once makes its write fail with EPIPE before it reads the answer). Past
 * DRAIN_LIMIT_BYTES or DRAIN_TIMEOUT_MS it stops and marks the connection to close after the answer.
 */
function drain(ctx: Koa.Context, seen: number): Promise<void> {
  const req = ctx.req;
  return new Promise((resolve) => {
    if (req.readableEnded) {
      resolve();
      return;
    }
    let size = seen;
    const finish = () => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', finish);
      clearTimeout(timer);
      resolve();
    };
    const giveUp = () => {
      ctx.set('Connection', 'close');
      finish();
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > DRAIN_LIMIT_BYTES) giveUp();
    };
    const timer = setTimeout(giveUp, DRAIN_TIMEOUT_MS);
    req.on('data', onData);
    req.on('end', finish);
    req.on('error', finish);
    req.resume();
  });
}

/** The raw bytes of `req`, refused with 413 past `limit` bytes (the rest drained first). */
function readRaw(ctx: Koa.Context, limit: number): Promise<Buffer> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= limit) {
        chunks.push(c);
        return;
      }
      done();
      void drain(ctx, size).then(() => reject(tooLarge(limit)));
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    // A body cut off by the client (aborted, reset) is the client's error, never a 500.
    const onError = () => {
      done();
      reject(new DomainError('invalid_request', 'body_invalid', 'The request body could not be read to its end.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Koa middleware: reads and checks the JSON body of POST, PUT, PATCH and DELETE requests (see the
 * module doc) into `ctx.request.body` (a plain object; `{}` when there is no body). `limit`: bytes.
 */
export function parseJsonBody(limit = BODY_LIMIT_BYTES): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const request = ctx.request as unknown as { body?: unknown };
    if (!BODY_METHODS.has(ctx.method) || !announcesBody(ctx.req)) {
      if (BODY_METHODS.has(ctx.method)) request.body = {};
      return next();
    }
    if (Number(ctx.get('Content-Length') || 0) > limit) {
      await drain(ctx, 0);
      throw tooLarge(limit);
    }
    const charset = (ctx.request.charset || 'utf-8').toLowerCase();
    const encoding = (ctx.get('Content-Encoding') || 'identity').toLowerCase();
    if (!ctx.is('application/json') || !['utf-8', 'utf8'].includes(charset) || encoding !== 'identity') {
      throw new DomainError(
        'invalid_request',
        'content_type_invalid',
        'Request bodies must be uncompressed UTF-8 JSON (`Content-Type: application/json`).',
      );
    }
    const raw = await readRaw(ctx, limit);
    let text: string;
    try {
      text = UTF8.decode(raw);
    } catch {
      throw new DomainError('invalid_request', 'body_encoding_invalid', 'The request body is not valid UTF-8.');
    }
    let body: unknown = {};
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new DomainError('invalid_request', 'body_invalid', 'The request body is not valid JSON.');
      }
    }
    if (!isContainer(body) || Array.isArray(body))
      throw new DomainError('invalid_request', 'body_invalid', 'The request body must be a JSON object.');
    const problem = findBodyProblem(body);
    if (problem) throw bodyProblemError(problem);
    request.body = body;
    await next();
  };
}

/** Koa middleware: refuses NUL characters in the path (404) and the query (400 naming the parameter). */
export function rejectNulCharacters(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.path.includes(NUL) || /%00/i.test(ctx.path)) throw new DomainError('not_found', 'not_found', 'No such object.');
    // `limit` is never rejected (spec 8: non-numeric falls back to 25) and unrecognised `expand`
    // values are ignored (spec 4); neither is ever stored, so a NUL there is just unrecognised.
    const { limit: _limit, expand: _expand, ...query } = ctx.query as Record<string, unknown>;
    const found = findNulInQuery(query);
    if (found !== null) {
      const param = shown(found);
      throw new DomainError('invalid_request', 'parameter_invalid', `\`${param}\` must not contain a NUL character.`, { param });
    }
    await next();
  };
}

/**
 * Koa middleware, before authentication: a method none of `routers` serves on a path they serve is
 * `405 invalid_request` code `method_not_allowed` with `Allow` listing the path's methods; a method
 * no router implements (e.g. TRACE) on a path none serves is `404 not_found`. OPTIONS is left to
 * the routers. `routers` is read at request time (routes may be added after this is built).
 */
export function refuseUnservedMethods(routers: () => Router<AppState>[]): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.method === 'OPTIONS') return next();
    const allow = new Set<string>();
    for (const r of routers()) {
      const m = r.match(ctx.path, ctx.method);
      if (m.route) return next();
      for (const layer of m.path) for (const x of layer.methods) allow.add(x);
    }
    if (allow.size > 0) {
      ctx.set('Allow', [...allow].join(', '));
      throw new DomainError(
        'invalid_request',
        'method_not_allowed',
        `${shown(ctx.method)} is not allowed on ${shown(ctx.path)}; use ${[...allow].join(', ')}.`,
        { status: 405 },
      );
    }
    if (!KNOWN_METHODS.has(ctx.method))
      throw new DomainError('not_found', 'not_found', `No route for ${shown(ctx.method)} ${shown(ctx.path)}.`);
    return next();
  };
}
