/**
 * Wallet area (spec 4.5, 2.5): the service wallet (create/re-sync by dashboard session, list,
 * get), balances and transactions read from the chain adapter for the account's own wallet (never
 * a client-supplied address; a read error is a 503, never a zero or an empty history).
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createWallet } from '../../activities/wallet/commands';
import { getWallet, walletBalance, walletListQuery, walletTransaction, walletTransactions } from '../../activities/wallet/queries';
import type { AppState } from '../context';
import { mount } from '../operation';
import { documentedAs, evmAddressDocument, listQuery } from '../schemas/common';
import { paginate } from '../../lib/pagination';
import {
  balancesResponse,
  balancesView,
  walletResponse,
  walletTransactionResponse,
  walletTransactionView,
  walletView,
} from '../../views/wallet';
import { listEnvelope } from '../../views/schema';

export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'wallet.wallets.list',
    method: 'get',
    path: '/wallet/wallets',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: listEnvelope(walletResponse),
    query: Joi.object(listQuery),
    handler: async ({ scope, query }) => paginate(walletListQuery(scope), 'w', query, walletView),
  });

  mount(router, {
    id: 'wallet.wallets.get',
    method: 'get',
    path: '/wallet/wallets/:id',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: walletResponse,
    handler: async ({ scope, params }) => walletView(await getWallet(scope, { id: params.id })),
  });

  mount(router, {
    id: 'wallet.wallets.create',
    method: 'post',
    path: '/wallet/wallets',
    scope: 'wallet.write',
    testMode: 'unavailable',
    response: walletResponse,
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    successStatus: 201,
    body: Joi.object({
      address: documentedAs(Joi.string(), evmAddressDocument).required(),
      credential_id: Joi.string().min(1).max(512).required(),
      label: Joi.string().max(100).allow(null),
    }),
    handler: async ({ scope, body }) =>
      walletView(await createWallet(scope, { address: body.address, credential_id: body.credential_id, label: body.label ?? null })),
  });

  mount(router, {
    id: 'wallet.balances.get',
    method: 'get',
    path: '/wallet/balances',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: balancesResponse,
    handler: async ({ scope }) => {
      const b = await walletBalance(scope);
      return balancesView(b.wallet, b.chainId, [{ asset: b.asset, minor: b.minor, decimals: b.decimals }]);
    },
  });

  mount(router, {
    id: 'wallet.transactions.list',
    method: 'get',
    path: '/wallet/transactions',
    scope: 'wallet.read',
    testMode: 'unavailable',
    query: Joi.object(listQuery),
    response: listEnvelope(walletTransactionResponse),
    summary: "The active wallet's stablecoin transfers in and out, newest first, with confirmations; 503 when the chain cannot be read.",
    handler: async ({ scope, query }) => {
      const page = await walletTransactions(scope, query);
      return { object: 'list', data: page.data.map(walletTransactionView), has_more: page.has_more, next_cursor: page.next_cursor };
    },
  });

  mount(router, {
    id: 'wallet.transactions.get',
    method: 'get',
    path: '/wallet/transactions/:hash',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: walletTransactionResponse,
    summary: "One transfer of the active wallet by transaction hash; 404 when it is not the wallet's.",
    handler: async ({ scope, params }) => walletTransactionView(await walletTransaction(scope, { hash: params.hash })),
  });
}
