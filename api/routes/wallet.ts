/**
 * Wallet area, as far as the payment-link journey needs (spec 4.5, 2.5): the service wallet
 * (create/re-sync by dashboard session, list, get) and balances read from the chain adapter for
 * the account's own wallet (never a client-supplied address; a read error is a 503, never a zero).
 */
import type Router from '@koa/router';
import Joi from 'joi';
import { getAddress, isAddress } from 'viem';
import { DomainError } from '../../domain/errors';
import { Wallet } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { chainAdapter } from '../../providers/chain';
import type { AppState, Caller } from '../context';
import { mount } from '../operation';
import { listQuery } from '../schemas/common';
import { paginate } from '../pagination';
import { balancesResponse, balancesView, walletResponse, walletView } from '../../views/wallet';
import { listEnvelope } from '../../views/schema';

async function activeWallet(caller: Caller): Promise<Wallet | null> {
  return db().getRepository(Wallet).findOneBy({ account_id: caller.accountId, network: chainAdapter().network, status: 'active' });
}

export function register(r: Router<AppState>): void {
  mount(r, {
    id: 'wallet.wallets.list', method: 'get', path: '/wallet/wallets', scope: 'wallet.read', testMode: 'unavailable',
    response: listEnvelope(walletResponse),
    query: Joi.object(listQuery),
    handler: async ({ caller, query }) => {
      const qb = db().getRepository(Wallet).createQueryBuilder('w')
        .where('w.account_id = :a AND w.network = :n', { a: caller.accountId, n: chainAdapter().network });
      return paginate(qb, 'w', query, walletView);
    },
  });

  mount(r, {
    id: 'wallet.wallets.get', method: 'get', path: '/wallet/wallets/:id', scope: 'wallet.read', testMode: 'unavailable',
    response: walletResponse,
    handler: async ({ caller, params }) => {
      const w = await db().getRepository(Wallet).findOneBy({ id: params.id, account_id: caller.accountId, network: chainAdapter().network });
      if (!w) throw new DomainError('not_found', 'not_found', `No such wallet: ${params.id}.`, { param: 'id' });
      return walletView(w);
    },
  });

  mount(r, {
    id: 'wallet.wallets.create', method: 'post', path: '/wallet/wallets', scope: 'wallet.write', testMode: 'unavailable',
    response: walletResponse,
    callers: ['dashboard_session'], roles: ['owner', 'admin'], successStatus: 201,
    body: Joi.object({
      address: Joi.string().required(),
      credential_id: Joi.string().min(1).max(512).required(),
      label: Joi.string().max(100).allow(null),
    }),
    handler: async ({ caller, body }) => {
      if (!isAddress(body.address, { strict: false })) throw new DomainError('invalid_request', 'parameter_invalid', '`address` must be an EVM address.', { param: 'address' });
      if (body.address !== body.address.toLowerCase() && !isAddress(body.address, { strict: true })) {
        throw new DomainError('invalid_request', 'parameter_invalid', '`address` has an invalid EIP-55 checksum.', { param: 'address' });
      }
      const chain = chainAdapter();
      const w = await transaction(async (m) => {
        const existing = await m.findOne(Wallet, { where: { account_id: caller.accountId, network: chain.network }, lock: { mode: 'pessimistic_write' } });
        if (existing) {
          throw new DomainError('conflict', 'wallet_already_exists', 'This account already has an active wallet on this network.', { details: { wallet_id: existing.id } });
        }
        const row = m.create(Wallet, {
          id: newId('wlt_'), account_id: caller.accountId, livemode: true, address: getAddress(body.address), chain: chain.chain,
          network: chain.network, status: 'active', label: body.label ?? null, credential_id: body.credential_id,
        });
        return m.save(row);
      });
      return walletView(w);
    },
  });

  mount(r, {
    id: 'wallet.balances.get', method: 'get', path: '/wallet/balances', scope: 'wallet.read', testMode: 'unavailable',
    response: balancesResponse,
    handler: async ({ caller }) => {
      const w = await activeWallet(caller);
      if (!w) throw new DomainError('not_found', 'wallet_not_found', 'This account has no wallet on this network yet.');
      const chain = chainAdapter();
      let minor: bigint;
      try {
        minor = await chain.balanceOf(w.address, chain.stablecoin);
      } catch (e) {
        logger.error({ err: e, wallet_id: w.id }, 'balance read failed');
        throw new DomainError('provider_error', 'balance_unavailable', 'The wallet balance could not be read right now. Retry later.', { status: 503 });
      }
      return balancesView(w, chain.chainId, [{ asset: chain.stablecoin, minor, decimals: 6 }]);
    },
  });
}
