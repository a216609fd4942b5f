/**
 * Virtual accounts funding the wallet (spec 4.5, 2.5): create per currency with
 * BankDepositInstructions, list (query `purpose`), get, deactivate, reactivate, history of bank
 * credits. Dark-flag: resource switch `api_v1.virtual_accounts` (off: 503), flag
 * `wallet.virtual_accounts` (closed: 409 capability_unavailable; open on sandbox stacks).
 * Dashboard session only; test mode unavailable. Rules in activities/virtual-accounts/.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createVirtualAccount, setVirtualAccountStatus } from '../../activities/virtual-accounts/commands';
import { getVirtualAccount, virtualAccountHistoryQuery, virtualAccountListQuery } from '../../activities/virtual-accounts/queries';
import { VIRTUAL_ACCOUNT_CURRENCIES, VIRTUAL_ACCOUNT_PURPOSES } from '../../domain/virtual-accounts';
import { paginate } from '../../lib/pagination';
import { listEnvelope } from '../../views/schema';
import {
  virtualAccountCreditResponse,
  virtualAccountCreditView,
  virtualAccountResponse,
  virtualAccountView,
} from '../../views/wallet-virtual-accounts';
import type { AppState } from '../context';
import { mount, type OperationDef } from '../operation';
import { listQuery } from '../schemas/common';

const GATE: Pick<OperationDef, 'testMode' | 'switch' | 'flag' | 'callers'> = {
  testMode: 'unavailable',
  switch: 'api_v1.virtual_accounts',
  flag: 'wallet.virtual_accounts',
  callers: ['dashboard_session'],
};

/** Registers the virtual account operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    ...GATE,
    id: 'wallet.virtual_accounts.create',
    method: 'post',
    path: '/wallet/virtual_accounts',
    scope: 'wallet.write',
    roles: ['owner', 'admin'],
    successStatus: 201,
    body: Joi.object({
      currency: Joi.string()
        .valid(...VIRTUAL_ACCOUNT_CURRENCIES)
        .required(),
    }),
    response: virtualAccountResponse,
    summary:
      'Open the wallet-funding bank account of a currency; its credits arrive in the wallet as USDC (409 collection_account_uses_currency, virtual_account_already_exists).',
    handler: async ({ scope, body }) => virtualAccountView(await createVirtualAccount(scope, { currency: body.currency })),
  });

  mount(router, {
    ...GATE,
    id: 'wallet.virtual_accounts.list',
    method: 'get',
    path: '/wallet/virtual_accounts',
    scope: 'wallet.read',
    query: Joi.object({ ...listQuery, purpose: Joi.string().valid(...VIRTUAL_ACCOUNT_PURPOSES) }),
    response: listEnvelope(virtualAccountResponse),
    summary:
      "The account's virtual accounts, newest first; `purpose=wallet_funding` for wallet screens, without it also collection and legacy_wallet rows.",
    handler: async ({ scope, query }) =>
      paginate(virtualAccountListQuery(scope, { purpose: query.purpose }), 'v', query, virtualAccountView),
  });

  mount(router, {
    ...GATE,
    id: 'wallet.virtual_accounts.get',
    method: 'get',
    path: '/wallet/virtual_accounts/:id',
    scope: 'wallet.read',
    response: virtualAccountResponse,
    handler: async ({ scope, params }) => virtualAccountView(await getVirtualAccount(scope, { id: params.id })),
  });

  for (const [action, to] of [
    ['deactivate', 'inactive'],
    ['reactivate', 'active'],
  ] as const) {
    mount(router, {
      ...GATE,
      id: `wallet.virtual_accounts.${action}`,
      method: 'post',
      path: `/wallet/virtual_accounts/:id/${action}`,
      scope: 'wallet.write',
      roles: ['owner', 'admin'],
      response: virtualAccountResponse,
      summary:
        action === 'deactivate'
          ? 'Stop funding the wallet from this account: later credits are returned to their senders (409 virtual_account_state_changed when inactive).'
          : 'Fund the wallet from this account again (409 virtual_account_state_changed when active).',
      handler: async ({ scope, params }) => virtualAccountView(await setVirtualAccountStatus(scope, { id: params.id, to })),
    });
  }

  mount(router, {
    ...GATE,
    id: 'wallet.virtual_accounts.history',
    method: 'get',
    path: '/wallet/virtual_accounts/:id/history',
    scope: 'wallet.read',
    query: Joi.object(listQuery),
    response: listEnvelope(virtualAccountCreditResponse),
    summary: 'The bank credits of this account, newest first: converted to USDC into the wallet, or returned.',
    handler: async ({ scope, params, query }) =>
      paginate(await virtualAccountHistoryQuery(scope, { id: params.id }), 'c', query, virtualAccountCreditView),
  });
}
