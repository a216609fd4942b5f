/**
 * The operation layer of `/v1`, one module per role under api/operation/: `registry.ts` (the
 * `OperationDef` type and `REGISTRY`), `authorize.ts` (caller classes, roles, scopes, test mode,
 * gates), `validate.ts` (joi validation of query and body), `idempotency.ts` (claim and replay
 * around a mutation's handler) and `mount.ts` (`mount` / `mountPublic` tie them into a Koa route).
 * This file re-exports their public names, so routes, pages and tests import `api/operation`.
 */
export { REGISTRY, type OperationDef } from './operation/registry';
export { allowedCallers, allowedRoles, isPublicOperation } from './operation/authorize';
export { validate } from './operation/validate';
export { mount, mountPublic } from './operation/mount';
