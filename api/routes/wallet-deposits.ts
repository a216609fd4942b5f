/**
 * Wallet deposits from another chain and conversions (spec 2.5, 4.5, 5). Business keys
 * read `deposit_routes` and `conversion_pairs`; quotes, deposit intents and conversions are
 * dashboard session only (`wallet.write` reaches no business key). Test mode unavailable like the
 * other wallet routes. Rules in activities/deposit-intents/ and activities/conversions/, wire names in
 * views/wallet-deposits.ts.
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createDepositIntent } from '../../activities/deposit-intents/commands';
import { createConversion, submitConversionSourceTx } from '../../activities/conversions/commands';
import { depositIntentListQuery, depositQuote, depositRoutes, getDepositIntent } from '../../activities/deposit-intents/queries';
import { getConversion, walletConversionPairs } from '../../activities/conversions/queries';
import { paginate } from '../../lib/pagination';
import { conversionPairs, WALLET_ASSET_DECIMALS } from '../../domain/wallet-deposits';
import {
  conversionPairResponse,
  conversionPairView,
  conversionResponse,
  conversionView,
  depositIntentListResponse,
  depositIntentResponse,
  depositIntentView,
  depositQuoteResponse,
  depositQuoteView,
  depositRouteResponse,
  depositRouteView,
} from '../../views/wallet-deposits';
import { listEnvelope } from '../../views/schema';
import type { AppState } from '../context';
import { mount } from '../operation';
import { documentedAlso, documentedAs, evmAddressDocument, listQuery, moneyPositive, moneyPositiveIn } from '../schemas/common';

const all = <T>(data: T[]) => ({ object: 'list' as const, data, has_more: false, next_cursor: null });
const sourceChain = Joi.string().max(40).required();
const asset = Joi.string().min(1).max(20).required();

/**
 * The document's statement of `createConversion`'s rules over two fields: `from_asset`
 * and `to_asset` are a pair of conversion_pairs and `amount` is in `from_asset`; one `anyOf` branch
 * per pair of either network (the stablecoin is USDC on the test network, USDC.e on mainnet: which
 * network a stack runs is its configuration, the one part left to `400 conversion_pair_unsupported`).
 */
function conversionPairRules(): Record<string, unknown> {
  const pairs = ['USDC', 'USDC.e'].flatMap((stablecoin) => conversionPairs(stablecoin));
  return {
    anyOf: pairs.map((p) => ({
      properties: {
        from_asset: { const: p.from },
        to_asset: { const: p.to },
        amount: { properties: { currency: { const: p.from }, decimals: { const: WALLET_ASSET_DECIMALS } } },
      },
    })),
  };
}

/** Registers the wallet deposit and conversion operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    id: 'wallet.deposit_routes.list',
    method: 'get',
    path: '/wallet/deposit_routes',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: listEnvelope(depositRouteResponse),
    summary: 'Source chains USDC can be deposited from into the wallet through the bridge, with the bridge fee of each.',
    handler: async () => all(depositRoutes().map(depositRouteView)),
  });

  mount(router, {
    id: 'wallet.conversion_pairs.list',
    method: 'get',
    path: '/wallet/conversion_pairs',
    scope: 'wallet.read',
    testMode: 'unavailable',
    response: listEnvelope(conversionPairResponse),
    summary: 'Stablecoin pairs the wallet can convert between on its chain, with rate and fee.',
    handler: async () => all(walletConversionPairs().map(conversionPairView)),
  });

  mount(router, {
    id: 'wallet.deposit_quotes.create',
    method: 'post',
    path: '/wallet/deposit_quotes',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    // 409 network_not_supported (source_chain); 400 currency_invalid / amount_invalid.
    // The amount is documented in USDC, the asset the wallet receives (another currency is `400 currency_invalid`).
    body: Joi.object({ source_chain: sourceChain, amount: moneyPositiveIn(['USDC']).required() }),
    response: depositQuoteResponse,
    summary:
      'Quote a deposit from another chain: for `amount` to land in the wallet, the amount to send on the source chain, the bridge fee and the expiry.',
    handler: async ({ body }) => depositQuoteView(depositQuote(body)),
  });

  mount(router, {
    id: 'wallet.deposit_intents.create',
    method: 'post',
    path: '/wallet/deposit_intents',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    successStatus: 201,
    // 404 wallet_not_found; 409 network_not_supported (source_chain); 400 refund_address, currency_invalid / amount_invalid.
    body: Joi.object({
      source_chain: sourceChain,
      amount: moneyPositiveIn(['USDC']),
      refund_address: documentedAs(Joi.string(), { ...evmAddressDocument, not: { pattern: '^0x0{40}$' } }).allow(null),
    }),
    response: depositIntentResponse,
    summary:
      'Open a deposit into the wallet from another chain: a bridge deposit address on the source chain; the intent follows the transfer until USDC lands in the wallet.',
    handler: async ({ scope, body }) => depositIntentView(await createDepositIntent(scope, body)),
  });

  mount(router, {
    id: 'wallet.deposit_intents.list',
    method: 'get',
    path: '/wallet/deposit_intents',
    scope: 'wallet.read',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    query: Joi.object(listQuery),
    response: depositIntentListResponse,
    summary: "The account's deposit intents, newest first.",
    handler: async ({ scope, query }) => paginate(depositIntentListQuery(scope), 'd', query, depositIntentView),
  });

  mount(router, {
    id: 'wallet.deposit_intents.get',
    method: 'get',
    path: '/wallet/deposit_intents/:id',
    scope: 'wallet.read',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    response: depositIntentResponse,
    summary: 'One deposit intent.',
    handler: async ({ scope, params }) => depositIntentView(await getDepositIntent(scope, { id: params.id })),
  });

  mount(router, {
    id: 'wallet.conversions.create',
    method: 'post',
    path: '/wallet/conversions',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    successStatus: 201,
    // 404 wallet_not_found; 400 conversion_pair_unsupported (to_asset), currency_invalid / amount_invalid.
    body: documentedAlso(Joi.object({ from_asset: asset, to_asset: asset, amount: moneyPositive.required() }), conversionPairRules()),
    response: conversionResponse,
    summary:
      'Build a conversion between a pair of conversion_pairs: `built`, with the unsigned transaction the holder signs with the passkey.',
    handler: async ({ scope, body }) => conversionView(await createConversion(scope, body)),
  });

  mount(router, {
    id: 'wallet.conversions.get',
    method: 'get',
    path: '/wallet/conversions/:id',
    scope: 'wallet.read',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    response: conversionResponse,
    summary: 'One conversion.',
    handler: async ({ scope, params }) => conversionView(await getConversion(scope, { id: params.id })),
  });

  mount(router, {
    id: 'wallet.conversions.source_tx',
    method: 'post',
    path: '/wallet/conversions/:id/source_tx',
    scope: 'wallet.write',
    testMode: 'unavailable',
    callers: ['dashboard_session'],
    roles: ['owner', 'admin'],
    // 400 parameter_invalid (tx_hash); 409 conversion_expired, source_tx_already_used, conversion_state_changed.
    body: Joi.object({
      tx_hash: Joi.string()
        .pattern(/^0x[0-9a-fA-F]{64}$/)
        .required(),
    }),
    response: conversionResponse,
    summary:
      'Record the hash of the conversion transaction the holder signed: `submitted`; the conversion then settles once the chain shows it.',
    handler: async ({ scope, params, body }) =>
      conversionView(await submitConversionSourceTx(scope, { id: params.id, tx_hash: body.tx_hash })),
  });
}
