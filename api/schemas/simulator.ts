/**
 * The simulator's routes as a contract (ARCHITECTURE.md "Simulator"; served as `GET
 * /sim/openapi.json` by api/sim-openapi.ts): each route's joi request body (the one its handler in
 * api/routes/simulator.ts validates with), what it answers, and one worked example. Amounts are
 * minor units in digit strings, as on `/v1`.
 */
import Joi from 'joi';
import { BANK_RAILS } from '../../domain/rails';
import { FAULT_NAMES, KYC_DECISION_STATES, KYC_REJECTION_OUTCOMES, SANDBOX_RETURN_SENDER } from '../../providers/sandbox-values';
import { FAILURE_KINDS } from '../../domain/orders';

const minorUnits = Joi.string().pattern(/^[0-9]+$/);
/**
 * A positive amount in minor units: digits, not all zeros. One named pattern states both (the
 * document shows it as is: joi-to-json keeps the last pattern), and `"0"` answers
 * "`<param>` must be greater than 0".
 */
const positiveMinorUnits = Joi.string()
  .pattern(/^[0-9]+$/)
  .pattern(/^[0-9]*[1-9][0-9]*$/, { name: 'positive' })
  .messages({ 'string.pattern.name': '{{#label}} must be greater than 0' });

/** `POST /sim/chain/transfers`: a transfer the chain adapter then observes. */
export const chainTransferBody = Joi.object({
  chain: Joi.string().required(),
  to_address: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{40}$/)
    .required(),
  asset: Joi.string().required(),
  amount: positiveMinorUnits.required(),
  from_address: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/),
  tx_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
  status: Joi.string().valid('confirmed', 'pending'),
});

/** `POST /sim/wallet/sign`: the holder's passkey signs a built transaction (the `unsigned_transaction` of a send). */
export const walletSignBody = Joi.object({
  from: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{40}$/)
    .required(),
  chain_id: Joi.number()
    .integer()
    .min(1)
    .max(2 ** 53 - 1)
    .required(),
  to: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{40}$/)
    .required(),
  data: Joi.string()
    .pattern(/^0x[0-9a-fA-F]*$/)
    .max(10_000)
    .required(),
  value: Joi.string().valid('0'),
  chain: Joi.string().max(40),
  status: Joi.string().valid('confirmed', 'pending'),
  // A conversion's description of the token transfer its router call makes (informational; the call data decides).
  token_transfer: Joi.object().unknown(true),
});

/** `POST /sim/legal/acceptances`: a person accepts the current terms (the account's owner, or a member for their own wallet). */
export const termsAcceptanceBody = Joi.object({
  account_id: Joi.string()
    .pattern(/^acct_[A-Za-z0-9]+$/)
    .required(),
  user_id: Joi.string().max(64),
  scope: Joi.string().valid('account', 'personal').default('account'),
});

/** `POST /sim/kyc/decisions`: the KYC provider's decision on a customer. */
export const kycDecisionBody = Joi.object({
  customer_id: Joi.string()
    .pattern(/^cus_[A-Za-z0-9]+$/)
    .required(),
  state: Joi.string()
    .valid(...KYC_DECISION_STATES)
    .required(),
  requirements_due: Joi.array().items(Joi.string().max(100)).max(50),
  rejection_outcome: Joi.string().valid(...KYC_REJECTION_OUTCOMES),
  endorsements: Joi.array().items(Joi.string().max(40)).max(50),
  associated_persons: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().max(64).required(),
        role: Joi.string().max(64).required(),
        name_masked: Joi.string().max(200).required(),
        verification_state: Joi.string().max(40).required(),
      }),
    )
    .max(50),
});

/** `POST /sim/bank/credits`: an inbound bank transfer as the fiat collection provider reports it. */
export const bankCreditBody = Joi.object({
  rail: Joi.string()
    .valid(...BANK_RAILS)
    .required(),
  currency: Joi.string()
    .pattern(/^[A-Z]{3}$/)
    .required(),
  amount: positiveMinorUnits.max(18).required(),
  reference: Joi.string().allow('').max(140).required(),
  to_account: Joi.string().max(64).required(),
  sender_name: Joi.string().max(140),
});

/** `POST /sim/bank/credits/{id}/return`: the sending bank returns the credit. */
export const bankReturnBody = Joi.object({ reason: Joi.string().max(200) });

/** `POST /sim/providers/fiat_rails/payments/{ref}`: the fiat rail reports a payout's outcome. */
export const railEventBody = Joi.object({
  state: Joi.string().valid('paid', 'failed', 'returned'),
  paid_amount: minorUnits,
  reason: Joi.string().max(200),
  recipient_received_amount: minorUnits,
}).or('state', 'recipient_received_amount');

/** `POST /sim/bridge/transfers/{id}`: drives a cross-network pay-in transfer. */
export const bridgeTransferBody = Joi.object({
  state: Joi.string().valid('delivered', 'failed', 'delayed').required(),
  delivered_amount: positiveMinorUnits,
});

/** `POST /sim/providers/reconciliation`. */
export const reconciliationBody = Joi.object({ payout_id: Joi.string().required(), needs_attention: Joi.boolean().required() });

/** `POST /sim/providers/faults`: a provider fault for one account's transfers. */
export const faultBody = Joi.object({
  account_id: Joi.string()
    .pattern(/^acct_/)
    .required(),
  name: Joi.string()
    .valid(...FAULT_NAMES)
    .required(),
  value: Joi.string().allow(null).required(),
});

/** `POST /sim/providers/orders/{id}`: the quote provider acts on an order. */
export const orderActionBody = Joi.object({
  action: Joi.string().valid('authorize', 'capture', 'fail', 'refund', 'complete').required(),
  failure_kind: Joi.string().valid(...FAILURE_KINDS),
  reason: Joi.string().min(1).max(500),
});

/** `POST /sim/providers/checkout/{checkout_id}/complete`: the amount paid (default the price). */
export const checkoutCompleteBody = Joi.object({ amount: minorUnits });

/** `POST /sim/providers/screening/signals`: what the screening provider reports for an address from now on. */
export const screeningSignalBody = Joi.object({
  chain: Joi.alternatives(Joi.string(), Joi.number()).required(),
  address: Joi.string().required(),
  risk_score: Joi.number().integer().min(0).max(100).required(),
  flags: Joi.array().items(Joi.string().max(100)).max(50).default([]),
  unavailable: Joi.boolean().default(false),
});

/** One simulator route: koa path (under `/sim`), its body schema, answer and worked example. */
export interface SimOperation {
  id: string;
  method: 'get' | 'post';
  /** Koa path under `/sim`, e.g. `/bank/credits/:id/return`. */
  path: string;
  summary: string;
  description: string;
  body?: Joi.ObjectSchema;
  params?: Record<string, string>;
  query?: Record<string, string>;
  status: number;
  /** The `object` of the answer. */
  object: string;
  answers: string;
  example: { params?: Record<string, string>; query?: Record<string, string>; body?: Record<string, unknown> };
}

/** Every `/sim` route, in the order a sandbox journey meets them. */
export const SIM_OPERATIONS: readonly SimOperation[] = Object.freeze([
  {
    id: 'sim.chain.transfers.create',
    method: 'post',
    path: '/chain/transfers',
    body: chainTransferBody,
    status: 201,
    object: 'sim.chain_transfer',
    summary: 'A transfer lands on a chain',
    description:
      'The chain adapter observes this transfer exactly as a chain watcher would: a payer paying deposit instructions, a payout funding, a late deposit. `amount` in minor units of `asset` (USDC: 6 decimals). Chains: the sandbox chain and the payout source chains. `status: pending` only broadcasts it: in the mempool, not in any balance, until `/sim/chain/transfers/{tx_hash}/confirm`.',
    answers: 'The recorded transfer, with its `tx_hash`.',
    example: { body: { chain: 'base', asset: 'USDC', to_address: '0x52908400098527886e0f7030069857d2e4169ee7', amount: '125000000' } },
  },
  {
    id: 'sim.bank.credits.create',
    method: 'post',
    path: '/bank/credits',
    body: bankCreditBody,
    status: 201,
    object: 'sim.bank_credit',
    summary: 'An inbound bank transfer arrives',
    description:
      'The fiat collection provider reports a credit to a virtual account, matched by `reference` or by `to_account` (account number, IBAN, CLABE, PIX key, or sort code and account number from `bank_deposit_instructions`). `amount` in minor units of `currency`. ' +
      `Magic value: \`sender_name: "${SANDBOX_RETURN_SENDER}"\` makes the sending bank return the credit at once.`,
    answers:
      'The credit as the provider holds it, with `matched` (to a payment, or to a payroll run by its run reference) and `payment_id`.',
    example: {
      body: {
        rail: 'sepa',
        currency: 'EUR',
        amount: '50000',
        reference: 'PL7K2M9QX4',
        to_account: 'DE89370400440532013000',
        sender_name: 'Ada Lovelace',
      },
    },
  },
  {
    id: 'sim.bank.credits.return',
    method: 'post',
    path: '/bank/credits/:id/return',
    body: bankReturnBody,
    status: 200,
    object: 'sim.bank_credit',
    params: { id: 'The credit id from `POST /sim/bank/credits`.' },
    summary: 'The sending bank returns a credit',
    description: "A bank return: the payment records the provider's text as `return_reason`.",
    answers: 'The returned credit.',
    example: { params: { id: 'bcp_3kq9ZLm2Xv8Tn1' }, body: { reason: 'R01 Insufficient funds' } },
  },
  {
    id: 'sim.bridge.transfers.update',
    method: 'post',
    path: '/bridge/transfers/:id',
    body: bridgeTransferBody,
    status: 200,
    object: 'sim.bridge_transfer',
    params: { id: 'The bridge transfer id, or the `pay_` id of the cross-network payment.' },
    summary: 'A cross-network transfer moves',
    description:
      'Drives the bridge of a `crypto_xchain` payment: `delivered` (optionally less than received, `delivered_amount` in USDC minor units), `failed`, or `delayed`.',
    answers: 'The bridge transfer with what it received and delivered.',
    example: { params: { id: 'pay_7Hq2Lk9Wm3Zx5Rt8Yv1Nc4Bd' }, body: { state: 'delivered', delivered_amount: '99500000' } },
  },
  {
    id: 'sim.emails.list',
    method: 'get',
    path: '/emails',
    status: 200,
    object: 'list',
    query: { related_object_id: 'Only emails about this object (a link, payment or payout id).' },
    summary: 'Emails the sandbox sent',
    description: 'What the sandbox email provider recorded: invoices, reminders, receipts, payout notices.',
    answers: 'A list of recorded emails.',
    example: { query: { related_object_id: 'pl_1ZvTMuqqp2Rtf4Yc68gZ7WvY' } },
  },
  {
    id: 'sim.process.get',
    method: 'get',
    path: '/process',
    status: 200,
    object: 'sim.process',
    summary: 'The sandbox API process, inspected',
    description:
      'What a hostile request could have changed in the API process: the own property names of `Object.prototype` and `Array.prototype` (a prototype-pollution probe; spec part 7 input rules). Sandbox only.',
    answers: 'The process id and the prototype property names.',
    example: {},
  },
  {
    id: 'sim.fiat_rails.payments.update',
    method: 'post',
    path: '/providers/fiat_rails/payments/:ref',
    body: railEventBody,
    status: 200,
    object: 'sim.rail_payment',
    params: { ref: 'The rail payment id or the `po_` id of its payout.' },
    summary: 'A fiat rail reports a payout',
    description:
      "`paid` (optionally `paid_amount` short of the amount), `failed` or `returned` with the rail's `reason`; `recipient_received_amount` records what the recipient confirms. Amounts in minor units.",
    answers: 'The rail payment as the provider holds it.',
    example: { params: { ref: 'po_nZaihAeIJJdhkPoeuqqG2RZe' }, body: { state: 'paid' } },
  },
  {
    id: 'sim.bridge.payout_transfers.list',
    method: 'get',
    path: '/providers/bridge/transfers',
    status: 200,
    object: 'list',
    query: { client_reference: 'Only the transfers of this payout (`po_` id).' },
    summary: "The payout bridge's transfers",
    description: 'What the sandbox payout bridge holds for a payout: deposit address, received amount, state.',
    answers: 'A list of bridge transfers.',
    example: { query: { client_reference: 'po_nZaihAeIJJdhkPoeuqqG2RZe' } },
  },
  {
    id: 'sim.reconciliation.create',
    method: 'post',
    path: '/providers/reconciliation',
    body: reconciliationBody,
    status: 202,
    object: 'sim.reconciliation',
    summary: 'Reconciliation flags a payout',
    description: 'The reconciliation signal a payout workflow waits for after paying.',
    answers: 'The signal as sent.',
    example: { body: { payout_id: 'po_nZaihAeIJJdhkPoeuqqG2RZe', needs_attention: false } },
  },
  {
    id: 'sim.chain.transfers.confirm',
    method: 'post',
    path: '/chain/transfers/:tx_hash/confirm',
    status: 200,
    object: 'sim.chain_transfer',
    params: { tx_hash: 'The pending transfer (broadcast with `status: pending`).' },
    summary: 'A broadcast transfer confirms',
    description: 'Moves a pending transfer from the mempool onto the chain: it now counts in balances and the chain watchers see it.',
    answers: 'The confirmed transfer.',
    example: { params: { tx_hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' } },
  },
  {
    id: 'sim.legal.acceptances.create',
    method: 'post',
    path: '/legal/acceptances',
    body: termsAcceptanceBody,
    status: 201,
    object: 'sim.terms_acceptance',
    summary: 'A person accepts the terms',
    description:
      'Plays the person in the hosted terms flow (spec 1 rule 6): `scope: account` is the account owner accepting for the account (default; another member is refused `terms_acceptance_owner_only`), `scope: personal` a member (`user_id`) accepting for their own wallet. Keys and agents never accept. Idempotent per person, scope and revision.',
    answers: 'The acceptance on record (who, revision, when).',
    example: { body: { account_id: 'acct_4Gh7Kp2Ld9Qw', scope: 'account' } },
  },
  {
    id: 'sim.kyc.decisions.create',
    method: 'post',
    path: '/kyc/decisions',
    body: kycDecisionBody,
    status: 201,
    object: 'sim.kyc_decision',
    summary: 'The KYC provider decides on a customer',
    description: `Plays the provider's verification outcome for a \`cus_\` customer: \`state\` (${KYC_DECISION_STATES.map((x) => `\`${x}\``).join(', ')}), \`requirements_due\` (e.g. \`compliance_profile\`, \`proof_of_address\`), \`rejection_outcome\` (${KYC_REJECTION_OUTCOMES.map((x) => `\`${x}\``).join(', ')}), \`endorsements\` (rail codes such as \`base\`, \`sepa\`, \`spei\`), \`associated_persons\`. The customer's workflow then reads it and emits the \`customer.*\` events.`,
    answers: 'The decision as recorded.',
    example: { body: { customer_id: 'cus_8Hk2Lm4Np6Qr', state: 'approved', endorsements: ['base', 'sepa'] } },
  },
  {
    id: 'sim.faults.set',
    method: 'post',
    path: '/providers/faults',
    body: faultBody,
    status: 200,
    object: 'sim.fault',
    summary: 'A provider misbehaves for one account',
    description: `Sets (or clears, with \`value: null\`) a provider fault for one account's transfers, never globally: ${FAULT_NAMES.join(', ')}.`,
    answers: 'The fault as set.',
    example: { body: { account_id: 'acct_4Gh7Kp2Ld9Qw', name: 'bridge.create_delay_ms', value: '2000' } },
  },
  {
    id: 'sim.orders.act',
    method: 'post',
    path: '/providers/orders/:id',
    body: orderActionBody,
    status: 200,
    object: 'sim.provider_order',
    params: { id: 'The order (`ord_`).' },
    summary: 'A quote provider acts on an order',
    description:
      "Plays the provider of an order: `authorize` (a card hold: money_state `hold_placed`), `capture` (money taken or the bank payment or deposit received: `processing`), `complete` (delivered; a crypto delivery gets a tx hash), `fail` (`failure_kind`, default `payment_declined`; `reason` is the provider's own text), `refund` (after capture; `reason` becomes `return_reason`). The order's workflow then reads it and emits the `order.*` events. An action that does not apply to the provider's state is `409 sim_action_refused`.",
    answers: "The provider's report of its order.",
    example: { params: { id: 'ord_8Hk2Lm4Np6Qr' }, body: { action: 'capture' } },
  },
  {
    id: 'sim.wallet.sends.sign',
    method: 'post',
    path: '/wallet/sends/:id/sign',
    status: 201,
    object: 'sim.wallet_send_signature',
    params: { id: 'The prepared service-wallet send.' },
    summary: 'The holder signs a wallet send',
    description: 'The holder signs a prepared service-wallet send with a passkey; the send is then broadcast.',
    answers: "The signature's transaction hash.",
    example: { params: { id: 'wsd_8Jk2Lm4Np6Qr' } },
  },
  {
    id: 'sim.wallet.sign',
    method: 'post',
    path: '/wallet/sign',
    body: walletSignBody,
    status: 201,
    object: 'sim.signed_transaction',
    summary: 'The holder signs and broadcasts a built transaction',
    description:
      "Plays the holder's passkey: pass the `unsigned_transaction` of a send intent, conversion, off-ramp deposit or `pay_with_wallet` answer as is. The sandbox signs an ERC-20 `transfer` on the stablecoin contract of the sandbox chain or of a bridged network, from a wallet registered on this service when the balance covers it, or from the sandbox payer wallet (minted what it lacks first), and broadcasts it (the chain watchers see it at once). Record the returned `tx_hash` with the object's `source_tx` call. Refusals: `network_not_supported`, `parameter_invalid` (not a transfer or another contract), `wallet_not_found`, `balance_insufficient`.",
    answers: 'The broadcast transfer with its `tx_hash`.',
    example: {
      body: {
        from: '0x52908400098527886E0F7030069857D2E4169EE7',
        chain_id: 42429,
        to: '0x1aE0EA34a72D944a8C7603FfB3eC30a6669E454C',
        value: '0',
        data: '0xa9059cbb000000000000000000000000de0b295669a9fd93d5f28d9ec85e40f4cb697bae00000000000000000000000000000000000000000000000000000000000f4240',
      },
    },
  },
  {
    id: 'sim.checkout.act',
    method: 'post',
    path: '/providers/checkout/:checkout_id/:action',
    body: checkoutCompleteBody,
    status: 200,
    object: 'sim.checkout_notification',
    params: { checkout_id: 'The `cco_` credit checkout.', action: '`complete`, `fail` or `expire`.' },
    summary: 'A person pays at, fails at or abandons a hosted checkout',
    description:
      '`complete` takes an optional `amount` in minor units (default the price); the provider then notifies the product, and credits are granted once.',
    answers: 'The notification outcome and the checkout.',
    example: { params: { checkout_id: 'cco_5Tg8Hj2Kl4Mn', action: 'complete' }, body: {} },
  },
  {
    id: 'sim.screening.signals.create',
    method: 'post',
    path: '/providers/screening/signals',
    body: screeningSignalBody,
    status: 201,
    object: 'sim.screening_signal',
    summary: 'What address screening reports',
    description: 'From now on the screening provider reports this risk for the address (or is unavailable for it).',
    answers: 'The signal as recorded.',
    // An address of its own: the example is sent as written on the shared test stack (tests/api/sim-document.test.ts), and a
    // signal is global to the sandbox, so it must not be an address other tests screen expecting a clear result.
    example: { body: { chain: 'ethereum', address: '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a', risk_score: 85, flags: ['sanctions'] } },
  },
] as SimOperation[]);
