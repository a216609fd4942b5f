/**
 * Off-ramp from the wallet to a bank (spec 4.5, 2.5, 3): quotes, the holder's external
 * bank accounts (`ba_`, raw details once, then masked), off-ramp intents (`ofr_`: create with the
 * transit deposit and its unsigned transfer, list, get: poll until terminal, cancel). Dark-flag:
 * resource switch `api_v1.offramp` (off: 503), flag `wallet.offramp` (closed: 409
 * capability_unavailable; open on sandbox stacks). Dashboard session only (writes owner/admin);
 * test mode unavailable. Rules in activities/offramp-intents/ and activities/wallet/ (external accounts).
 */
import type Router from '@koa/router';
import Joi from '../schemas/joi';
import { createExternalAccount } from '../../activities/wallet/commands';
import { cancelOfframpIntent, createOfframpIntent } from '../../activities/offramp-intents/commands';
import { externalAccountListQuery } from '../../activities/wallet/queries';
import { getOfframpIntent, offrampIntentListQuery, offrampQuote, transitTransaction } from '../../activities/offramp-intents/queries';
import { BANK_RAILS, RAIL_CURRENCY, type BeneficiaryInput } from '../../domain/bank-details';
import { OFFRAMP_STATUSES } from '../../domain/offramp';
import { paginate } from '../../lib/pagination';
import { chainAdapter } from '../../providers/chain';
import { listEnvelope } from '../../views/schema';
import type { WalletOfframpIntent } from '../../entities';
import {
  externalAccountResponse,
  externalAccountView,
  offrampIntentResponse,
  offrampIntentView,
  offrampQuoteResponse,
  offrampQuoteView,
} from '../../views/wallet-offramp';
import type { AppState } from '../context';
import { mount, type OperationDef } from '../operation';
import { bankDetailsBody } from '../schemas/beneficiary';
import { documentedAlso, documentedAs, idOf, listQuery, moneyPositive } from '../schemas/common';

const GATE: Pick<OperationDef, 'testMode' | 'switch' | 'flag' | 'callers'> = {
  testMode: 'unavailable',
  switch: 'api_v1.offramp',
  flag: 'wallet.offramp',
  callers: ['dashboard_session'],
};
const WRITE: Pick<OperationDef, 'testMode' | 'switch' | 'flag' | 'callers' | 'scope' | 'roles'> = {
  ...GATE,
  scope: 'wallet.write',
  roles: ['owner', 'admin'],
};
const OFFRAMP_CURRENCIES = ['USD', 'EUR', 'GBP', 'BRL', 'MXN'];

/** The terms shared by quotes and intents. */
const terms = {
  destination_currency: Joi.string()
    .valid(...OFFRAMP_CURRENCIES)
    .required(),
  destination_payment_rail: Joi.string()
    .valid(...BANK_RAILS)
    .required(),
  amount: moneyPositive.required(),
  // 0 to 5 with at most 2 decimals (domain/offramp developerFeeBps, 400 parameter_invalid): the document states the bound in the pattern.
  developer_fee_percent: documentedAs(
    Joi.string()
      .pattern(/^[0-9](\.[0-9]{1,2})?$/)
      .max(4),
    { type: 'string', pattern: '^(?:[0-4](?:\\.[0-9]{1,2})?|5(?:\\.0{1,2})?)$', examples: ['1.25'] },
  ),
};
/**
 * The rail pays the destination currency (activities/offramp-intents/queries.ts `priceTerms`, 400
 * parameter_invalid param destination_payment_rail): stated as one `anyOf` branch per currency.
 */
const railPaysCurrency = {
  anyOf: OFFRAMP_CURRENCIES.map((c) => ({
    properties: {
      destination_currency: { const: c },
      destination_payment_rail: { enum: BANK_RAILS.filter((r) => RAIL_CURRENCY[r] === c) },
    },
  })),
};
const termsOf = (b: {
  destination_currency: string;
  destination_payment_rail: string;
  amount: { amount: string; currency: string; decimals: number };
  developer_fee_percent?: string;
}) => ({
  destinationCurrency: b.destination_currency,
  destinationRail: b.destination_payment_rail,
  amount: b.amount,
  developerFeePercent: b.developer_fee_percent ?? null,
});
/** The intent with its transit transfer while it awaits funds. */
const intentView = (r: WalletOfframpIntent) => offrampIntentView(r, r.status === 'awaiting_funds' ? transitTransaction(r) : null);

/** Registers the off-ramp operations on `r`. */
export function register(router: Router<AppState>): void {
  mount(router, {
    ...WRITE,
    id: 'wallet.offramp_quotes.create',
    method: 'post',
    path: '/wallet/offramp_quotes',
    body: documentedAlso(Joi.object(terms), railPaysCurrency),
    response: offrampQuoteResponse,
    summary:
      'Price an off-ramp: the service and developer fees, what the bank receives in the destination currency, the rate, the expiry (indicative).',
    handler: async ({ body }) => offrampQuoteView(offrampQuote(termsOf(body)), chainAdapter().stablecoin),
  });

  mount(router, {
    ...WRITE,
    id: 'wallet.external_accounts.create',
    method: 'post',
    path: '/wallet/external_accounts',
    successStatus: 201,
    body: bankDetailsBody('required'),
    response: externalAccountResponse,
    summary: 'Add a bank account an off-ramp can pay: raw details cross once and are read back masked.',
    handler: async ({ scope, body }) => externalAccountView(await createExternalAccount(scope, body as BeneficiaryInput)),
  });

  mount(router, {
    ...GATE,
    id: 'wallet.external_accounts.list',
    method: 'get',
    path: '/wallet/external_accounts',
    scope: 'wallet.read',
    query: Joi.object(listQuery),
    response: listEnvelope(externalAccountResponse),
    summary: "The holder's external bank accounts (masked), newest first.",
    handler: async ({ scope, query }) => paginate(externalAccountListQuery(scope), 'b', query, externalAccountView),
  });

  mount(router, {
    ...WRITE,
    id: 'wallet.offramp_intents.create',
    terms: 'personal',
    method: 'post',
    path: '/wallet/offramp_intents',
    successStatus: 201,
    body: documentedAlso(Joi.object({ external_account_id: idOf('ba_').required(), ...terms }), railPaysCurrency),
    response: offrampIntentResponse,
    summary:
      'Off-ramp USDC to an external bank account: answers the transit deposit (address, amount, memo on pooled rails) and the unsigned transfer for the holder to sign.',
    handler: async ({ scope, body }) =>
      intentView(await createOfframpIntent(scope, { external_account_id: body.external_account_id, terms: termsOf(body) })),
  });

  mount(router, {
    ...GATE,
    id: 'wallet.offramp_intents.list',
    method: 'get',
    path: '/wallet/offramp_intents',
    scope: 'wallet.read',
    query: Joi.object({ ...listQuery, status: Joi.string().valid(...OFFRAMP_STATUSES) }),
    response: listEnvelope(offrampIntentResponse),
    summary: "The holder's off-ramp intents, newest first, optionally one status.",
    handler: async ({ scope, query }) => paginate(offrampIntentListQuery(scope, { status: query.status }), 'o', query, intentView),
  });

  mount(router, {
    ...GATE,
    id: 'wallet.offramp_intents.get',
    method: 'get',
    path: '/wallet/offramp_intents/:id',
    scope: 'wallet.read',
    response: offrampIntentResponse,
    summary:
      'One off-ramp intent; poll until payment_processed, refunded, refund_failed, canceled or failed (settled_amount is set only once payment_processed).',
    handler: async ({ scope, params }) => intentView(await getOfframpIntent(scope, { id: params.id })),
  });

  mount(router, {
    ...WRITE,
    id: 'wallet.offramp_intents.cancel',
    method: 'post',
    path: '/wallet/offramp_intents/:id/cancel',
    response: offrampIntentResponse,
    summary: 'Cancel while awaiting funds; refused (409 cancel_unavailable) once the transit deposit is signed and broadcast.',
    handler: async ({ scope, params }) => intentView(await cancelOfframpIntent(scope, { id: params.id })),
  });
}
