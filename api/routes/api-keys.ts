/** Developers area, API keys (spec 4.10, 5): list/get by key or session; create/roll/revoke by session only. */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createApiKey, revokeKey, rollKey } from '../../activities/accounts/commands';
import { apiKeyListQuery, getApiKey } from '../../activities/accounts/queries';
import { clearAuthCache } from '../middleware/auth';
import type { AppState } from '../context';
import { mount } from '../operation';
import { listQuery } from '../schemas/common';
import { versionDate } from '../schemas/version';
import { paginate } from '../../lib/pagination';
import { ALL_SCOPES, SCOPE_ALIASES } from '../../domain/scopes';
import { apiKeyResponse, apiKeyView, apiKeyWithSecretResponse } from '../../views/account';
import { listEnvelope } from '../../views/schema';

const SESSION_ONLY = ['dashboard_session'] as const;

export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'api_keys.list',
    method: 'get',
    path: '/api_keys',
    scope: 'developers.read',
    testMode: 'full',
    response: listEnvelope(apiKeyResponse),
    query: Joi.object({ ...listQuery, status: Joi.string().valid('active', 'revoked') }),
    handler: async ({ scope, query }) => paginate(apiKeyListQuery(scope, { status: query.status }), 'k', query, (k) => apiKeyView(k)),
  });

  mount(router, {
    id: 'api_keys.get',
    method: 'get',
    path: '/api_keys/:id',
    scope: 'developers.read',
    testMode: 'full',
    response: apiKeyResponse,
    handler: async ({ scope, params }) => apiKeyView(await getApiKey(scope, { id: params.id })),
  });

  mount(router, {
    id: 'api_keys.create',
    method: 'post',
    path: '/api_keys',
    scope: 'developers.write',
    testMode: 'unavailable',
    response: apiKeyWithSecretResponse,
    callers: [...SESSION_ONLY],
    roles: ['owner', 'admin'],
    successStatus: 201,
    body: Joi.object({
      name: Joi.string().trim().max(100).allow(null),
      scopes: Joi.array()
        .items(Joi.string().valid(...ALL_SCOPES, ...SCOPE_ALIASES))
        .min(1)
        .unique()
        .required()
        .messages({ 'array.min': '`scopes` must name at least one scope' }),
      livemode: Joi.boolean().default(true),
      ip_allowlist: Joi.array()
        .items(Joi.string().ip({ version: ['ipv4', 'ipv6'], cidr: 'forbidden' }))
        .max(50)
        .default([]),
      expires_at: Joi.date().iso().greater('now'),
      default_version: versionDate,
    }),
    handler: async ({ scope, body, ctx }) => {
      const { key, secret } = await createApiKey(scope, body);
      ctx.state.redact.push('secret');
      return apiKeyView(key, secret);
    },
  });

  mount(router, {
    id: 'api_keys.roll',
    method: 'post',
    path: '/api_keys/:id/roll',
    scope: 'developers.write',
    testMode: 'unavailable',
    response: apiKeyWithSecretResponse,
    callers: [...SESSION_ONLY],
    roles: ['owner', 'admin'],
    handler: async ({ scope, params, ctx }) => {
      const { key, secret } = await rollKey(scope, { id: params.id });
      clearAuthCache();
      ctx.state.redact.push('secret');
      return apiKeyView(key, secret);
    },
  });

  mount(router, {
    id: 'api_keys.revoke',
    method: 'post',
    path: '/api_keys/:id/revoke',
    scope: 'developers.write',
    testMode: 'unavailable',
    response: apiKeyResponse,
    callers: [...SESSION_ONLY],
    roles: ['owner', 'admin'],
    handler: async ({ scope, params }) => {
      const key = await revokeKey(scope, { id: params.id });
      clearAuthCache();
      return apiKeyView(key);
    },
  });
}
