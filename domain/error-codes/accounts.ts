/**
 * Error registry (domain/error-codes.ts), everything around the money: accounts and customers,
 * the address book, the service wallet (sends, deposits, conversions, virtual accounts), webhooks
 * and the event stream, screenings and credits, subscriptions, and the sandbox simulator. Pure data.
 */
import type { ErrorCodeSpec } from './entry';

export const ACCOUNT_CODES: readonly ErrorCodeSpec[] = [
  // Accounts and customers.
  {
    code: 'account_already_exists', type: 'conflict',
    when: 'Creating a live account for a login that already owns one.',
    recovery: 'Use the existing account (`GET /account`).',
  },
  {
    code: 'country_invalid', type: 'invalid_request',
    when: 'A `country` is not an ISO 3166-1 alpha-2 code the service knows.',
    param: '`country`.',
    recovery: 'Send a two-letter country code such as `US`.',
  },
  {
    code: 'customer_already_exists', type: 'conflict',
    when: 'Creating the account\'s customer when it already has one.',
    details: { customer_id: 'The existing customer.' },
    recovery: 'Use `details.customer_id`.',
  },
  {
    code: 'customer_type_conflict', type: 'conflict',
    when: 'Creating a customer of the other type than the account\'s existing one (individual or business).',
    details: { customer_id: 'The existing customer.' },
    recovery: 'Use the existing customer; an account has one customer type.',
  },
  {
    code: 'customer_mapping_stale', type: 'conflict',
    when: 'The customer\'s record at the verification provider is being re-established.',
    details: { customer_id: 'The customer.' },
    recovery: 'Retry later.',
  },
  {
    code: 'tos_link_required', type: 'conflict',
    when: 'Creating an identity verification link before the provider\'s terms (`tos`) link.',
    recovery: 'Create the `tos` link first.',
  },
  // Address book.
  {
    code: 'address_invalid', type: 'invalid_request',
    when: 'An address is not valid on its chain (format or checksum).',
    param: '`address`.',
    details: { chain: 'The chain checked.', reason: 'What is wrong.' },
    recovery: 'Fix the address, or pick the right chain.',
  },
  {
    code: 'address_book_entry_exists', type: 'conflict',
    when: 'Adding an address already in the address book on that chain.',
    details: { address_book_id: 'The existing entry.' },
    recovery: 'Use `details.address_book_id`.',
  },
  {
    code: 'address_book_entry_in_use', type: 'conflict',
    when: 'Deleting an entry that payment links still settle to.',
    details: { payment_link_ids: 'The links using it.' },
    recovery: 'Cancel those links, or point them elsewhere, then delete.',
  },
  {
    code: 'address_book_entry_kind_mismatch', type: 'invalid_request',
    when: 'An operation for the other kind of entry: screening a bank entry, or adding bank details to a crypto entry.',
    details: { kind: 'The entry\'s kind.' },
    recovery: 'Use an entry of the right kind.',
  },
  // Service wallet.
  {
    code: 'wallet_already_exists', type: 'conflict',
    when: 'Creating a wallet when the account has an active one on this network.',
    details: { wallet_id: 'The existing wallet.' },
    recovery: 'Use `details.wallet_id`.',
  },
  {
    code: 'wallet_not_found', type: ['not_found', 'conflict'],
    when: '404: the account has no wallet on this network (wallet reads, deposits; the sandbox signer knows no such wallet). 409: an operation needs the service wallet and there is none (crypto-only link activation, payout funding from the wallet).',
    param: 'Sandbox signing: `from`.',
    recovery: 'Create the wallet (`POST /wallets`), then retry.',
  },
  {
    code: 'balance_insufficient', type: 'invalid_request',
    when: 'A wallet send or off-ramp is larger than the wallet\'s balance.',
    param: '`amount`.',
    details: { available: 'The balance, in minor units.' },
    recovery: 'Send at most `details.available`, or top up first.',
  },
  {
    code: 'chain_unavailable', type: 'temporarily_unavailable',
    when: 'The wallet\'s transactions could not be read from the chain.',
    recovery: 'Retry later.',
  },
  {
    code: 'send_intent_expired', type: 'conflict',
    when: 'Recording the transaction of a send intent that expired before it was signed.',
    recovery: 'Build a new send intent.',
  },
  {
    code: 'source_tx_already_recorded', type: 'conflict',
    when: 'Recording another transaction for a send intent that already has one.',
    details: { source_tx_hash: 'The recorded transaction.' },
    recovery: 'Track `details.source_tx_hash`; build a new intent for another send.',
  },
  {
    code: 'source_tx_in_use', type: 'conflict',
    when: 'The transaction is already recorded for another send intent.',
    recovery: 'Send the hash of this intent\'s own transaction.',
  },
  {
    code: 'source_tx_already_used', type: 'conflict',
    when: 'The transaction hash is already recorded for another conversion.',
    param: '`tx_hash`.',
    recovery: 'Send the hash of this conversion\'s own transaction.',
  },
  {
    code: 'conversion_expired', type: 'conflict',
    when: 'Submitting a conversion after its signing window closed.',
    details: { signable_until: 'When the window closed.' },
    recovery: 'Build a new conversion.',
  },
  {
    code: 'conversion_pair_unsupported', type: 'invalid_request',
    when: 'No conversion exists between the two assets.',
    param: '`to_asset`.',
    recovery: 'Pick a pair from `GET /v1/wallet/conversion_pairs`.',
  },
  {
    code: 'virtual_account_already_exists', type: 'conflict',
    when: 'Creating a virtual account in a currency the account already has one in.',
    details: { virtual_account_id: 'The existing one.' },
    recovery: 'Use the existing virtual account.',
  },
  {
    code: 'collection_account_uses_currency', type: 'conflict',
    when: 'Creating a wallet-funding virtual account in a currency a collection account already receives.',
    details: { currency: 'The currency.' },
    recovery: 'Use another currency, or the collection account.',
  },
  {
    code: 'virtual_account_not_managed', type: 'conflict',
    when: 'Deactivating or reactivating a virtual account that is not managed here (e.g. a collection account).',
    recovery: 'Leave it; its lifecycle follows its owner.',
  },
  // Webhooks and events (spec 6).
  {
    code: 'url_invalid', type: 'invalid_request',
    when: 'A webhook `url` is not an absolute URL, is too long, or carries credentials or a fragment.',
    param: '`url`.',
    recovery: 'Send a plain absolute https URL.',
  },
  {
    code: 'url_not_https', type: 'invalid_request',
    when: 'A webhook `url` does not use https.',
    param: '`url`.',
    recovery: 'Serve the endpoint over https.',
  },
  {
    code: 'url_destination_forbidden', type: 'invalid_request',
    when: 'A webhook `url` points at a private, loopback, internal or platform address.',
    param: '`url`.',
    recovery: 'Use a public host you own.',
  },
  {
    code: 'webhook_endpoint_limit_reached', type: 'invalid_request',
    when: 'The account already has the most webhook endpoints allowed in this mode.',
    recovery: 'Delete an endpoint first, or subscribe an existing one to more event types.',
  },
  {
    code: 'webhook_endpoint_disabled', type: 'conflict',
    when: 'Sending a test event to, or replaying a delivery of, a disabled endpoint.',
    recovery: 'Enable the endpoint, then retry.',
  },
  {
    code: 'webhook_endpoint_deleted', type: 'conflict',
    when: 'Replaying a delivery whose endpoint was deleted.',
    recovery: 'Nothing to replay; read missed events with `GET /events`.',
  },
  {
    code: 'event_type_unknown', type: 'invalid_request',
    when: 'An event type filter or subscription names an unknown event type.',
    param: '`type` or `event_types`.',
    details: { event_type: 'The unknown type.' },
    recovery: 'Use the event types of the reference.',
  },
  {
    code: 'stream_resume_gap', type: 'conflict',
    when: 'Resuming the event stream from a `Last-Event-ID` older than the replay window.',
    param: '`Last-Event-ID`.',
    details: { fallback: 'The list request that catches up.', resume_window_seconds: 'How far back the stream replays.' },
    recovery: 'Catch up with `details.fallback`, then reconnect without `Last-Event-ID`.',
  },
  {
    code: 'stream_unavailable', type: 'temporarily_unavailable',
    when: 'The event stream is briefly unavailable.',
    retryAfter: true,
    recovery: 'Reconnect after `Retry-After` (with `Last-Event-ID`).',
  },
  // Screenings and credits.
  {
    code: 'screening_unavailable', type: 'temporarily_unavailable',
    when: 'The screening provider cannot answer right now (an address-book entry keeps its previous result).',
    retryAfter: true,
    recovery: 'Retry after `Retry-After`.',
  },
  {
    code: 'quota_exhausted', type: 'quota_exhausted',
    when: 'A screening needs a credit and none is left.',
    details: { credit_event_id: 'The ledger entry of the refusal.' },
    recovery: 'Buy credits (`POST /credit_checkouts`), then retry.',
  },
  {
    code: 'credit_not_refundable', type: 'conflict',
    when: 'Refunding a credit event that is not a consumed check.',
    recovery: 'Refund only consumed checks.',
  },
  {
    code: 'credit_already_refunded', type: 'conflict',
    when: 'Refunding a check that was already refunded.',
    recovery: 'Nothing to do.',
  },
  {
    code: 'checkout_provider_error', type: 'provider_error',
    when: 'The checkout provider could not open a credit checkout.',
    recovery: 'Retry with a new Idempotency-Key.',
  },
  // Subscriptions.
  {
    code: 'settlement_destination_invalid', type: 'invalid_request',
    when: 'A subscription\'s settlement destination is not a crypto entry on the chain subscriptions settle on.',
    param: '`settlement_destination_id`.',
    recovery: 'Choose a crypto address-book entry on that chain.',
  },
  {
    code: 'subscription_not_pausable', type: 'conflict',
    when: 'Pausing a subscription that is not active or past due.',
    details: { status: 'The subscription\'s status.' },
    recovery: 'Re-read the subscription.',
  },
  {
    code: 'subscription_not_paused', type: 'conflict',
    when: 'Resuming a subscription that is not paused.',
    details: { status: 'The subscription\'s status.' },
    recovery: 'Re-read the subscription.',
  },
  {
    code: 'subscription_not_cancellable', type: 'conflict',
    when: 'Cancelling a completed subscription.',
    details: { status: 'The subscription\'s status.' },
    recovery: 'Nothing to cancel.',
  },
  // The sandbox simulator (`/sim` and the sandbox pages; never answered by `/v1`).
  {
    code: 'sim_action_refused', type: 'conflict', surface: 'simulator',
    when: 'A simulated provider action does not apply to the provider\'s state (e.g. abandoning a paid order checkout).',
    recovery: 'Read the object\'s state and choose an action that applies.',
  },
  {
    code: 'sim_transition_refused', type: 'conflict', surface: 'simulator',
    when: 'A simulated bank credit return or rail payment event does not apply to its state.',
    recovery: 'Read the simulated object and choose a transition that applies.',
  },
  {
    code: 'sim_sign_refused', type: 'conflict', surface: 'simulator',
    when: 'The sandbox signer refuses to sign a wallet send.',
    recovery: 'Read the message; fix the send or build a new one.',
  },
  {
    code: 'checkout_session_closed', type: 'conflict', surface: 'simulator',
    when: 'A simulated checkout action on a checkout session that is already closed.',
    recovery: 'Start a new checkout.',
  },
];
