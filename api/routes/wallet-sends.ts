/**
 * Sends out of the holder's wallet (spec 4.5, 2.5): the routes the wallet can send on
 * (business keys read them), send intents built for the holder to sign, and the hash the holder
 * signed (`source_tx`). Intents are dashboard-session only; test mode unavailable (503). Rules in
 * activities/send-intents/ and domain/wallet-sends.ts, wire names in views/wallet-sends.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createSendIntent, recordSendSourceTx } from '../../activities/send-intents/commands';
import { getSendIntent, pricedSendRoutes, sendIntentListQuery } from '../../activities/send-intents/queries';
import { SEND_INTENT_STATUSES, sendRoutes } from '../../domain/wallet-sends';
import { paginate } from '../../lib/pagination';
import { chainAdapter } from '../../providers/chain';
import { listEnvelope } from '../../views/schema';
import { sendIntentResponse, sendIntentView, sendRouteResponse, sendRouteView } from '../../views/wallet-sends';
import type { AppState } from '../context';
import { mount } from '../operation';
import { documentedAs, evmAddressDocument, listQuery, moneyPositive } from '../schemas/common';

/** A transaction hash: 0x and 64 hex digits. */
export const txHashParam = Joi.string()
  .pattern(/^0x[0-9a-fA-F]{64}$/)
  .messages({ 'string.pattern.base': 'must be a transaction hash: 0x and 64 hex digits' });

/** Registers the wallet send operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'wallet.send_routes.list',
    method: 'get',
    path: '/wallet/send_routes',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: listEnvelope(sendRouteResponse),
    summary:
      'Where the wallet can send: its own chain directly, other networks through the bridge (with the bridge fee and the smallest send).',
    handler: async ({ scope }) => {
      const routes = await pricedSendRoutes(scope);
      return { object: 'list', data: routes.map(sendRouteView), has_more: false, next_cursor: null };
    },
  });

  mount(router, {
    id: 'wallet.send_intents.create',
    method: 'post',
    path: '/wallet/send_intents',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    successStatus: 201,
    body: Joi.object({
      destination_chain: documentedAs(Joi.string().max(40), {
        type: 'string',
        enum: sendRoutes(chainAdapter().chain).map((x) => x.destination_chain),
        description: 'A chain of `GET /wallet/send_routes`.',
      }).required(),
      destination_address: documentedAs(Joi.string().max(100), { ...evmAddressDocument, not: { pattern: '^0x0{40}$' } }).required(),
      amount: moneyPositive.required(),
      note: Joi.string().max(500).allow(null),
    }),
    response: sendIntentResponse,
    summary:
      'Build a send from the wallet: returns the unsigned transaction for the holder to sign (400 balance_insufficient, amount_invalid below the route minimum, network_not_supported).',
    handler: async ({ scope, body }) =>
      sendIntentView(
        await createSendIntent(scope, {
          destinationChain: body.destination_chain,
          destinationAddress: body.destination_address,
          amount: body.amount,
          note: body.note ?? null,
        }),
      ),
  });

  mount(router, {
    id: 'wallet.send_intents.list',
    method: 'get',
    path: '/wallet/send_intents',
    scope: 'wallet.read',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    query: Joi.object({ ...listQuery, status: Joi.string().valid(...SEND_INTENT_STATUSES) }),
    response: listEnvelope(sendIntentResponse),
    summary: "The account's send intents, newest first, optionally one status.",
    handler: async ({ scope, query }) => paginate(sendIntentListQuery(scope, { status: query.status }), 's', query, sendIntentView),
  });

  mount(router, {
    id: 'wallet.send_intents.get',
    method: 'get',
    path: '/wallet/send_intents/:id',
    scope: 'wallet.read',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    response: sendIntentResponse,
    summary: 'One send intent; poll until settled, failed or expired.',
    handler: async ({ scope, params }) => sendIntentView(await getSendIntent(scope, { id: params.id })),
  });

  mount(router, {
    id: 'wallet.send_intents.source_tx',
    method: 'post',
    path: '/wallet/send_intents/:id/source_tx',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    body: Joi.object({ tx_hash: txHashParam.required() }),
    response: sendIntentResponse,
    summary:
      'Record the hash of the transaction the holder signed; the intent then follows it on chain (409 source_tx_already_recorded, send_intent_expired, source_tx_in_use).',
    handler: async ({ scope, params, body }) => sendIntentView(await recordSendSourceTx(scope, { id: params.id, tx_hash: body.tx_hash })),
  });
}
