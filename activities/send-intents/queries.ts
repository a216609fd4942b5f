/**
 * The send intent's reads for the routes (spec 2.5): the routes of the account's wallet with their
 * price now, and its intents. Another account's (or mode's) intent is 404: every lookup goes
 * through the scoped finder (lib/scoped.ts). Amounts in the stablecoin's 6-decimal minor units.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import { MIN_SEND_MINOR, sendRoutes, type SendRoute } from '../../domain/wallet-sends';
import { WalletSendIntent } from '../../entities';
import { scoped } from '../../lib/scoped';
import { payInBridgeAdapter } from '../../providers/bridge';
import { chainAdapter } from '../../providers/chain';
import { activeWallet } from '../records/wallets';
import type { AccountScope } from '../scope';

/** A route with what it costs now: the bridge's fee (0 direct), minor units of the stablecoin. */
export interface PricedSendRoute extends SendRoute {
  chain: string;
  asset: string;
  fee: bigint;
  minimum: bigint;
}

/** `GET /wallet/send_routes`: every route of the scope's wallet with its fee and minimum at `now` (default: now; 404 `wallet_not_found`). */
export async function pricedSendRoutes(scope: AccountScope, { now = new Date() }: { now?: Date } = {}): Promise<PricedSendRoute[]> {
  await activeWallet(scope);
  const chain = chainAdapter();
  return sendRoutes(chain.chain).map((r) => {
    const fee = r.kind === 'bridge' ? payInBridgeAdapter().quote(r.destination_chain, now).fee : 0n;
    return { ...r, chain: chain.chain, asset: chain.stablecoin, fee, minimum: fee + MIN_SEND_MINOR };
  });
}

/** `GET /wallet/send_intents/{id}`: 404 `not_found` (param `id`) for an unknown or another account's intent. */
export async function getSendIntent(scope: AccountScope, { id }: { id: string }): Promise<WalletSendIntent> {
  return scoped(scope).getOne(WalletSendIntent, { id }, () => notFound(`No such send intent: ${id}.`, 'id'));
}

/** `GET /wallet/send_intents`: the scope's intents (alias `s`), optionally one `status`; the caller paginates newest first. */
export function sendIntentListQuery(scope: AccountScope, { status }: { status?: string }): SelectQueryBuilder<WalletSendIntent> {
  const qb = scoped(scope).query(WalletSendIntent, 's');
  if (status) qb.andWhere('s.status = :st', { st: status });
  return qb;
}
