/**
 * `mount()` turns an operation definition (registry.ts) into a Koa route (paths relative to /v1)
 * that enforces, in order: caller class and role (spec 5 rule 4), scope (rule 3), test mode (spec 1
 * rule 5), resource switch / product flag (spec 1 "dark-flag") (authorize.ts); query and body
 * validation (unknown body key 400; validate.ts); for mutations the Idempotency-Key (spec 8;
 * idempotency.ts) with the terms gate (spec 1 rule 6, activities/legal/terms.ts) after a replay;
 * then calls the thin handler. `mountPublic` does the same for payer (public-token) routes: no
 * caller, gates or idempotency store. Both record the definition in the registry.
 */
import type Router from '@koa/router';
import { DomainError } from '../../domain/errors';
import { checkTerms } from '../../activities/legal/terms';
import { scopeOf } from '../../activities/scope';
import type { AppState } from '../context';
import { authorize } from './authorize';
import { runIdempotent } from './idempotency';
import { record, type HandlerArgs, type OperationDef, type PublicOperationDef } from './registry';
import { validate } from './validate';

/**
 * Registers a public-token route (paths relative to /v1) on `router` and in the registry with
 * caller class `public_token`, scope `''` and test mode `unavailable` (spec 1 rule 5: test mode
 * does not exist on token routes). Validates query and body like `mount`; no idempotency store
 * (the handlers are idempotent themselves, spec 1 rule 3).
 */
export function mountPublic(router: Router<AppState>, def: PublicOperationDef): void {
  record({
    ...def,
    scope: '',
    testMode: 'unavailable',
    callers: ['public_token'],
    idempotent: false,
    handler: () => Promise.reject(new Error(`${def.id} is a public-token route; it is served by mountPublic`)),
  });
  router[def.method](def.path, async (ctx) => {
    const query = validate(def.query, ctx.query, 'query');
    const rawBody = (ctx.request as unknown as { body?: unknown }).body;
    const body = validate(def.body, rawBody && typeof rawBody === 'object' ? rawBody : {}, 'body');
    ctx.status = def.successStatus ?? 200;
    ctx.body = await def.handler({ body, query, params: ctx.params as Record<string, string>, ctx });
  });
}

/** Registers `def` on `router` (paths relative to /v1) and in the registry. */
export function mount(router: Router<AppState>, def: OperationDef): void {
  if (def.terms && def.inlineIdempotency) throw new Error(`${def.id}: a terms-gated operation cannot write its idempotency record inline`);
  record(def);
  const mutation = def.idempotent ?? def.method !== 'get';
  router[def.method](def.path, async (ctx) => {
    const caller = ctx.state.caller;
    if (!caller) throw new DomainError('authentication_error', 'missing_credentials', 'Authentication required.');
    await authorize(def, caller);
    const query = validate(def.query, ctx.query, 'query');
    const rawBody = (ctx.request as unknown as { body?: unknown }).body;
    const body = validate(def.body, rawBody && typeof rawBody === 'object' ? rawBody : {}, 'body');
    const scope = scopeOf(caller, { id: ctx.state.requestId, idempotency_key: ctx.state.idempotencyKey ?? null });
    const args: HandlerArgs = { caller, scope, body, query, params: ctx.params as Record<string, string>, ctx };
    if (!mutation) {
      ctx.body = await def.handler(args);
      ctx.status = def.successStatus ?? 200;
      return;
    }
    const terms = def.terms;
    await runIdempotent(def, args, ctx, rawBody, terms ? () => checkTerms(scope, { terms }) : undefined);
  });
}
