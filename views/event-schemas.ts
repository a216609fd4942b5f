/**
 * The shape of every event type (spec 6, 2.11): for each name of the catalogue
 * (domain/event-types.ts), the joi schema of its `data.object` (the view the emitters put there)
 * and of its whole envelope (views/event.ts `eventView`). One source for the `webhooks` of the
 * `/v1` document (api/openapi-webhooks.ts) and for the outbox's drift check (lib/outbox.ts, on
 * with `EVENT_SCHEMA_CHECK`).
 *
 * `data.object` is the object's view as the event's emitter projects it, with `id` and `type` (the
 * event row's object type, which wins over a view's own `type` key, views/event.ts). Per family:
 * the resource view (payment link, payment, payout's event form, payroll run's and item's event
 * forms, subscription or invoice, customer, order, wallet objects, credit ledger row, address-book
 * entry), `test.ping` a short endpoint reference, `webhook_endpoint.disabled` the endpoint.
 * `capability.*` and `account.access_state_changed` are never written by this product (no state
 * change of ours they would describe: domain/event-types.ts UNWRITTEN_EVENT_TYPES,
 * docs/decisions/0068-every-catalogued-family-ships-by-its-switch.md): their `data.object` is stated only as `{ id, type, ... }`.
 *
 * Pure: no I/O.
 */
import Joi from 'joi';
import {
  CATALOGUED_EVENT_TYPES,
  LIVE_EVENT_TYPES,
  TEST_PING_EVENT_TYPE,
  ENDPOINT_DISABLED_EVENT_TYPE,
  eventFamily,
} from '../domain/event-types';
import { addressBookEntryOut } from './address-book';
import { creditEventOut } from './credits';
import { customerResponse } from './customer';
import { eventResponse, type EventView } from './event';
import { orderResponse } from './order';
import { paymentResponse } from './payment';
import { paymentLinkResponse } from './payment-link';
import { payoutResponse } from './payout';
import { payrollFundsReturnResponse, payrollItemResponse, payrollRunResponse, payrollTemplateResponse } from './payroll';
import { bool, int, kind, text } from './schema';
import { screeningResponse } from './screening';
import { invoiceResponse, subscriptionResponse } from './subscription';
import { walletResponse } from './wallet';
import { conversionResponse, depositIntentResponse } from './wallet-deposits';
import { offrampIntentResponse } from './wallet-offramp';
import { sendIntentResponse } from './wallet-sends';
import { virtualAccountCreditResponse, virtualAccountResponse } from './wallet-virtual-accounts';
import { webhookEndpointOut } from './webhook';

/** What one event type carries: its `data.object` (joi), the object type, and a component name for the document. */
export interface EventObjectShape {
  /** `data.object.type` (the event row's object type, e.g. `payment_link`). */
  objectType: string;
  /** Name of the schema component in the `/v1` document (shared by the types carrying the same object). */
  component: string;
  /** The view this shape is (for the document's descriptions). */
  describes: string;
  /** The exact `data.object`, `id` and `type` included. */
  schema: Joi.ObjectSchema;
}

/** `view` without `keys` (a projection that drops fields of its resource view), rebuilt from its description. */
function without(view: Joi.ObjectSchema, ...keys: string[]): Joi.ObjectSchema {
  const d = view.describe() as { keys: Record<string, unknown> };
  for (const k of keys) delete d.keys[k];
  return Joi.build(d) as Joi.ObjectSchema;
}

function shape(objectType: string, component: string, describes: string, view: Joi.ObjectSchema): EventObjectShape {
  return { objectType, component, describes, schema: view.keys({ type: Joi.string().valid(objectType).required() }) };
}

/** A payout event: the payout with its stored `source_chain` (null while unchosen) and no `source_chain_chosen` (spec 6). */
const payoutEventObject = without(payoutResponse, 'source_chain_chosen').keys({ source_chain: Joi.string().allow(null).required() });
/** A payroll run event: the run without `item_counts`, with `item_count` (views/payroll.ts `payrollRunEventView`). */
const payrollRunEventObject = without(payrollRunResponse, 'item_counts').keys({ item_count: int() });
/** A payroll item event: the item with its recipient by id only (views/payroll.ts `payrollItemEventView`). */
const payrollItemEventObject = without(payrollItemResponse, 'recipient').keys({ recipient_id: text() });
/** `test.ping`: the endpoint it is sent to. */
const testPingObject = Joi.object({
  id: Joi.string().pattern(/^whe_/).required(),
  object: kind('webhook_endpoint'),
  livemode: bool(),
  url: text(),
});
/** Never written by this product (capability, account): only `id` and `type` are fixed. */
const openObject = Joi.object({ id: text() }).unknown(true);

const S = {
  paymentLink: shape('payment_link', 'PaymentLinkEventObject', 'the payment link', paymentLinkResponse),
  payment: shape('payment', 'PaymentEventObject', 'the payment', paymentResponse),
  subscription: shape('subscription', 'SubscriptionEventObject', 'the subscription', subscriptionResponse),
  invoice: shape('subscription_invoice', 'SubscriptionInvoiceEventObject', 'the subscription invoice with its pay-in', invoiceResponse),
  payout: shape('payout', 'PayoutEventObject', 'the payout (stored `source_chain`, null while unchosen)', payoutEventObject),
  payrollRun: shape('payroll_run', 'PayrollRunEventObject', 'the payroll run (`item_count`, no `item_counts`)', payrollRunEventObject),
  payrollRunFundsReturn: shape(
    'payroll_run',
    'PayrollRunFundsReturnEventObject',
    'the payroll run (`item_count`, no `item_counts`) with the `funds_return`',
    payrollRunEventObject.keys({ funds_return: payrollFundsReturnResponse.required() }),
  ),
  payrollItem: shape(
    'payroll_item',
    'PayrollItemEventObject',
    'the payroll item (recipient by `recipient_id` only)',
    payrollItemEventObject,
  ),
  payrollTemplate: shape('payroll_template', 'PayrollTemplateEventObject', 'the payroll template', payrollTemplateResponse),
  customer: shape('customer', 'CustomerEventObject', 'the customer', customerResponse),
  order: shape('order', 'OrderEventObject', 'the order', orderResponse),
  testPing: shape('webhook_endpoint', 'TestPingEventObject', 'the endpoint the test event is sent to', testPingObject),
  endpoint: shape('webhook_endpoint', 'WebhookEndpointEventObject', 'the webhook endpoint (never its secret)', webhookEndpointOut),
  depositIntent: shape('wallet_deposit_intent', 'DepositIntentEventObject', 'the wallet deposit intent', depositIntentResponse),
  sendIntent: shape('send_intent', 'SendIntentEventObject', 'the send intent', sendIntentResponse),
  offrampIntent: shape('offramp_intent', 'OfframpIntentEventObject', 'the off-ramp intent', offrampIntentResponse),
  virtualAccount: shape('virtual_account', 'VirtualAccountEventObject', 'the virtual account', virtualAccountResponse),
  virtualAccountDeposit: shape(
    'virtual_account',
    'VirtualAccountDepositEventObject',
    'the virtual account with the converted `deposit`',
    virtualAccountResponse.keys({ deposit: virtualAccountCreditResponse.required() }),
  ),
  wallet: shape('wallet', 'WalletEventObject', 'the wallet', walletResponse),
  conversion: shape('wallet_conversion', 'ConversionEventObject', 'the wallet conversion', conversionResponse),
  screening: shape('screening', 'ScreeningEventObject', 'the screening', screeningResponse),
  addressBookEntry: shape(
    'address_book_entry',
    'AddressBookEntryEventObject',
    'the address-book entry with its `previous_screening`',
    addressBookEntryOut.keys({ previous_screening: addressBookEntryOut.extract('screening') }),
  ),
  credit: shape(
    'credit_event',
    'CreditEventObject',
    'the credit ledger row (its row type is replaced by `type: credit_event`)',
    creditEventOut,
  ),
  capability: shape(
    'capability',
    'CapabilityEventObject',
    'no emitter yet: only `id` and `type` are fixed until the type ships',
    openObject,
  ),
  account: shape('account', 'AccountEventObject', 'no emitter yet: only `id` and `type` are fixed until the type ships', openObject),
} satisfies Record<string, EventObjectShape>;

/** The shape of a type named outright (before its family's). */
const BY_TYPE: Readonly<Record<string, EventObjectShape>> = {
  [TEST_PING_EVENT_TYPE]: S.testPing,
  [ENDPOINT_DISABLED_EVENT_TYPE]: S.endpoint,
  'virtual_account.deposit_received': S.virtualAccountDeposit,
  'payroll_run.funds_returned': S.payrollRunFundsReturn,
  'payroll_run.funds_return_failed': S.payrollRunFundsReturn,
};

/** The shape of every other type of a family. */
const BY_FAMILY: Readonly<Record<string, EventObjectShape>> = {
  payment_link: S.paymentLink,
  payment: S.payment,
  subscription: S.subscription,
  payout: S.payout,
  payroll_run: S.payrollRun,
  payroll_item: S.payrollItem,
  payroll_template: S.payrollTemplate,
  customer: S.customer,
  order: S.order,
  deposit_intent: S.depositIntent,
  send_intent: S.sendIntent,
  offramp_intent: S.offrampIntent,
  virtual_account: S.virtualAccount,
  wallet: S.wallet,
  conversion: S.conversion,
  capability: S.capability,
  screening: S.screening,
  account: S.account,
  address_book: S.addressBookEntry,
  credit: S.credit,
};

function shapeOf(type: string): EventObjectShape | undefined {
  if (BY_TYPE[type]) return BY_TYPE[type];
  if (type.startsWith('subscription.invoice_')) return S.invoice;
  return BY_FAMILY[eventFamily(type)];
}

/** One entry per catalogued event type: its `data.object` shape, and whether it is live (shipped) or catalogued only. */
export interface EventSchemaEntry extends EventObjectShape {
  type: string;
  live: boolean;
}

const LIVE = new Set(LIVE_EVENT_TYPES);

/** Every catalogued type (spec 6) that has a shape, in catalogue order. A type missing here fails the outbox check. */
export const EVENT_SCHEMAS: ReadonlyMap<string, EventSchemaEntry> = new Map(
  CATALOGUED_EVENT_TYPES.flatMap((type) => {
    const s = shapeOf(type);
    return s ? [[type, { ...s, type, live: LIVE.has(type) }] as const] : [];
  }),
);

/** The joi envelope of an event of `type` whose `data.object` is `object` (views/event.ts `eventResponse`, narrowed). */
export function eventEnvelopeSchema(type: string, object: Joi.Schema): Joi.ObjectSchema {
  return eventResponse.keys({
    type: Joi.string().valid(type).required(),
    data: Joi.object({ object: object.required() }).required(),
  });
}

const envelopes = new Map<string, Joi.ObjectSchema>();

/**
 * Checks an event's wire form (views/event.ts `eventView`) against the entry of its type: null
 * when it matches, else what is wrong (a type without an entry is wrong too).
 */
export function eventSchemaProblem(wire: EventView): string | null {
  const entry = EVENT_SCHEMAS.get(wire.type);
  if (!entry) return `event type \`${wire.type}\` has no entry in views/event-schemas.ts`;
  let schema = envelopes.get(wire.type);
  if (!schema) envelopes.set(wire.type, (schema = eventEnvelopeSchema(wire.type, entry.schema)));
  const { error } = schema.validate(wire, { abortEarly: false, convert: false });
  return error ? error.details.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ') : null;
}
