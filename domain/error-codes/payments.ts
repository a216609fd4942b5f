/**
 * Error registry (domain/error-codes.ts), getting paid: money values, payment links, payments and
 * their rails (crypto, cross-network, bank), refunds, quotes and orders. Pure data.
 */
import type { ErrorCodeSpec } from './entry';

export const PAYMENT_CODES: readonly ErrorCodeSpec[] = [
  // Money (spec 2: amounts are strings of minor units with their currency and decimals).
  {
    code: 'amount_invalid', type: 'invalid_request', status: [400, 422],
    when: 'An amount is malformed (not a string of minor units, too many digits or decimals, wrong `decimals` for the currency), not positive where it must be, or outside the operation\'s minimum or maximum. 422 for a quote amount with more fractional digits than the asset takes.',
    param: 'The amount field (e.g. `amount`, `invoice_amount`, `from_amount`).',
    details: { minimum: 'The smallest accepted amount, when that was the rule.', max_amount: 'The largest accepted amount.', expected_decimals: 'The currency\'s decimals.', decimals: 'The fractional digits allowed.' },
    recovery: 'Send the amount as a string of minor units with the currency\'s decimals, within the limits.',
  },
  {
    code: 'currency_invalid', type: 'invalid_request',
    when: 'The currency is unknown, or not one the operation takes (payroll currencies, USDC for subscriptions, the wallet\'s assets).',
    param: 'The currency field.',
    recovery: 'Use a currency the operation takes (the message lists them where few).',
  },
  {
    code: 'currency_mismatch', type: 'invalid_request',
    when: 'Amounts that must share a currency do not: a line item or unit price in another currency than the link or product, a payroll row or template in another currency than the run, an invoice in another currency than the payout corridor.',
    param: 'The amount or currency that differs.',
    details: { currency: 'The currency expected.', corridor_id: 'Payouts: the corridor.', currencies: 'The two currencies combined.' },
    recovery: 'Send the amount in the expected currency.',
  },
  // Payment links: create, update, activate.
  {
    code: 'attestation_required', type: 'invalid_request',
    when: 'Activating a payment link without `attestation_accepted: true`.',
    param: '`attestation_accepted`.',
    recovery: 'Have a person confirm the attestation and send `attestation_accepted: true`.',
  },
  {
    code: 'account_not_eligible', type: 'permission_error',
    when: 'Activating a payment link while the account\'s access is not active (e.g. under review or restricted).',
    recovery: 'Resolve the account\'s access state (see `GET /account`), then activate.',
  },
  {
    code: 'allowed_rails_invalid_for_currency', type: ['invalid_request', 'conflict'],
    when: '400 on create and update: `allowed_rails` names a rail not offerable for the link\'s currency. 409 on activate: the stored draft\'s restriction no longer fits its currency.',
    param: '`allowed_rails`.',
    details: { offerable_rails: 'The rails offerable for the currency.', currency: 'The link\'s currency.', allowed_rails: 'The rails asked for.' },
    recovery: 'Send only rails in `details.offerable_rails`; on activate, patch the draft first (`allowed_rails: null` clears the restriction).',
  },
  {
    code: 'allowed_rails_invalid_for_settlement', type: 'invalid_request',
    when: 'A crypto-only link (settling to the service wallet) allows bank rails or expects a bank payer.',
    param: '`allowed_rails` or `expected_payer_type`.',
    details: { allowed_rails: 'The rails asked for.', bank_rails: 'The bank rails among them.', expected_payer_type: 'The payer type asked for.' },
    recovery: 'Drop the bank rails (or send `allowed_rails: null`), or settle to a destination instead.',
  },
  {
    code: 'crypto_only_currency_not_usd', type: 'invalid_request', status: 422,
    when: 'A crypto-only link is in a currency other than USD (crypto-only links settle in USD stablecoins).',
    param: '`amount`.',
    details: { currency: 'The link\'s currency.' },
    recovery: 'Price the link in USD, or settle it to a destination.',
  },
  {
    code: 'native_via_provider_not_enabled', type: 'invalid_request', status: 422,
    when: 'Crypto settlement is asked for a link in a currency other than USD.',
    param: '`amount`, when the link\'s amount set the currency.',
    details: { currency: 'The link\'s currency.' },
    recovery: 'Use USD for links paid in crypto.',
  },
  {
    code: 'settlement_conflicts_with_destination', type: 'invalid_request',
    when: 'A link asks both for crypto-only settlement (`accepted_rail_kinds: ["crypto"]`) and a `settlement_destination`.',
    param: '`settlement_destination`.',
    recovery: 'Choose one: crypto-only to the service wallet, or a settlement destination.',
  },
  {
    code: 'settlement_destination_required', type: 'invalid_request',
    when: 'Activating a link that has no settlement (no destination and not crypto-only), or whose destination was deleted.',
    param: '`settlement_destination`.',
    recovery: 'Patch the draft with a `settlement_destination` (or crypto-only settlement), then activate.',
  },
  {
    code: 'settlement_destination_currency_mismatch', type: 'conflict',
    when: 'Activating a link whose bank settlement destination receives another currency than the link\'s.',
    param: '`settlement_destination`.',
    details: { destination_currency: 'The bank account\'s currency.', currency: 'The link\'s currency.' },
    recovery: 'Choose a bank account in the link\'s currency, then activate.',
  },
  {
    code: 'payment_link_already_activated', type: 'conflict',
    when: 'Activating a link that is not a draft.',
    recovery: 'Nothing to do if it is active; re-read it to see its status.',
  },
  {
    code: 'payment_link_field_locked', type: 'conflict',
    when: 'Updating a field that is fixed once the link is activated (e.g. its amount or currency).',
    param: 'The locked field.',
    recovery: 'Leave the field out, or cancel the link and create a new one.',
  },
  {
    code: 'payment_link_not_editable', type: 'conflict',
    when: 'Updating a link, or its reminders, in a status that takes no changes (paid, settled, cancelled, expired, refunded).',
    recovery: 'Re-read the link; create a new one to charge differently.',
  },
  {
    code: 'payment_link_not_cancellable', type: 'conflict',
    when: 'Cancelling a link that is already paid, settled, cancelled, expired or refunded.',
    recovery: 'Re-read the link; a paid link is refunded, not cancelled.',
  },
  {
    code: 'payment_link_not_open', type: 'conflict',
    when: 'Sending the invoice email of a link that is not active or viewed.',
    recovery: 'Only open links are sent; re-read the link.',
  },
  {
    code: 'payer_email_required', type: 'conflict',
    when: 'Sending the invoice email of a link with no `payer_email`.',
    recovery: 'Set `payer_email` on the link, then send.',
  },
  {
    code: 'payment_link_not_paid', type: 'conflict',
    when: 'Asking for the receipt of a link that is not paid or settled.',
    recovery: 'Wait for `payment_link.paid`, then ask again.',
  },
  {
    code: 'payment_link_not_payable', type: 'conflict',
    when: 'Starting a payment on a link that takes no payment (a draft, or paid, cancelled, expired, refunded).',
    recovery: 'Re-read the link; pay only active or viewed links.',
  },
  {
    code: 'payment_link_not_refundable', type: 'conflict',
    when: 'Refunding a link that is not paid or settled, or holds no paid payment.',
    recovery: 'Re-read the link and its payments.',
  },
  {
    code: 'reminder_schedule_not_supported', type: 'invalid_request', status: 422,
    when: 'Setting a reminder schedule on a crypto-only link.',
    param: '`reminder_schedule`.',
    recovery: 'Leave the reminders out for crypto-only links.',
  },
  {
    code: 'client_archived', type: ['invalid_request', 'conflict'],
    when: '400: a link names an archived client. 409: updating an archived client.',
    param: '`client_id` (400).',
    recovery: 'Use an active client; archived clients do not change.',
  },
  {
    code: 'product_archived', type: ['invalid_request', 'conflict'],
    when: '400: a line item names an archived product. 409: updating an archived product.',
    param: 'The line item\'s `product_id` (400).',
    recovery: 'Use an active product; archived products do not change.',
  },
  {
    code: 'address_book_entry_incomplete', type: 'conflict',
    when: 'A bank address-book entry without bank details is named as a settlement destination.',
    details: { address_book_id: 'The entry.' },
    recovery: 'Add its bank details (`POST /address_book/{id}/beneficiary`), then retry.',
  },
  // Refunds.
  {
    code: 'refund_unavailable', type: 'capability_unavailable',
    when: 'Refunding a crypto payment that settled into your own wallet, or whose sender is unknown.',
    recovery: 'Do not retry: send the refund from your wallet yourself.',
  },
  {
    code: 'settlement_in_progress', type: 'conflict',
    when: 'Refunding a link while its settlement payout to your bank is in flight.',
    recovery: 'Retry once the settlement has settled.',
  },
  // Payments and rails.
  {
    code: 'rail_not_allowed', type: 'invalid_request',
    when: 'A payment is started on a rail the link does not offer now.',
    param: '`rail`.',
    details: { rails: 'The rails payable for this link now.' },
    recovery: 'Pay on one of `details.rails`.',
  },
  {
    code: 'payment_in_progress', type: 'conflict',
    when: 'A cross-network payment with another network or refund address is already in progress for the link.',
    details: { payment_id: 'The payment in progress.' },
    recovery: 'Finish or wait out that payment, or repeat it with the same network and refund address.',
  },
  {
    code: 'no_payment_in_progress', type: 'conflict',
    when: 'Marking a link as sent when no payment is in progress.',
    recovery: 'Start a payment first.',
  },
  {
    code: 'payment_not_payable', type: 'conflict',
    when: 'Paying a payment from a browser wallet when the payment no longer takes money.',
    details: { payment_id: 'The payment.', status: 'Its status.' },
    recovery: 'Re-read the payment; start a new one if the link is still open.',
  },
  {
    code: 'network_not_supported', type: ['conflict', 'invalid_request'],
    when: '409: the network is not one the operation covers (cross-network payments, transfers, wallet deposits, screening, traces) or an address cannot exist on it. 400: a wallet send\'s destination chain, or a sandbox chain, is not served.',
    param: 'The network or address field (`network`, `source_chain`, `chain`, `destination_chain`, `address`).',
    details: { networks: 'The networks accepted, where listed.' },
    recovery: 'Use one of the networks in `details.networks` (or the message).',
  },
  {
    code: 'fiat_cap_exceeded', type: 'capability_unavailable',
    when: 'A bank payment is over the cap for this payer type.',
    details: { cap: 'The cap (Money).', payer_type: 'The payer type it applies to.' },
    recovery: 'Do not retry: pay a smaller amount, or on a crypto rail.',
  },
  {
    code: 'payer_state_unsupported', type: 'capability_unavailable',
    when: 'A person-to-person US bank payment from a payer in a state where it is not offered.',
    details: { payer_state: 'The state.' },
    recovery: 'Do not retry: pay on another rail.',
  },
  // Quotes and orders (spec 4.9).
  {
    code: 'asset_invalid', type: 'invalid_request',
    when: 'A quote names an unknown asset.',
    param: '`from_asset`.',
    recovery: 'Use an asset listed by the buy/sell capabilities.',
  },
  {
    code: 'asset_invalid_for_side', type: 'invalid_request',
    when: 'A quote\'s assets do not fit its side (a buy takes fiat to crypto, a sell crypto to fiat), or both are the same.',
    param: '`from_asset` or `to_asset`.',
    recovery: 'Swap the assets or change the side.',
  },
  {
    code: 'network_invalid_for_side', type: 'invalid_request',
    when: 'A buy names `from_network`, or a sell names `to_network`.',
    param: 'The network field that does not apply.',
    recovery: 'A buy names `to_network`; a sell names `from_network`.',
  },
  {
    code: 'destination_invalid', type: 'invalid_request',
    when: 'An order\'s destination is missing or ambiguous (exactly one of `destination_id`, `wallet_address`, `payment_link_id`), not on the offer\'s network, or not of the kind the side delivers.',
    param: '`destination_id`, `wallet_address` or `payment_link_id`.',
    recovery: 'Name exactly one destination that fits the offer.',
  },
  {
    code: 'refund_address_invalid', type: 'invalid_request',
    when: 'An order\'s `refund_address` is not an address on the offer\'s network.',
    param: '`refund_address`.',
    recovery: 'Send an address on the offer\'s network.',
  },
  {
    code: 'refund_address_not_applicable', type: 'invalid_request',
    when: 'A buy order names a `refund_address` (nothing is deposited in crypto).',
    param: '`refund_address`.',
    recovery: 'Leave `refund_address` out of buys.',
  },
  {
    code: 'offer_already_used', type: 'conflict',
    when: 'The quote offer was already executed by another order.',
    param: '`offer_id`.',
    details: { order_id: 'The order that used it.' },
    recovery: 'Request a new quote.',
  },
  {
    code: 'offer_expired', type: 'conflict',
    when: 'The quote offer expired.',
    param: '`offer_id`.',
    recovery: 'Request a new quote.',
  },
  {
    code: 'order_not_cancellable', type: 'conflict',
    when: 'Cancelling an order whose money is held or captured, or that is past awaiting payment.',
    details: { status: 'The order\'s status.', money_state: 'Where its money is.' },
    recovery: 'Re-read the order; it completes or fails on its own.',
  },
  {
    code: 'payment_link_pay_in', type: 'conflict',
    when: 'Cancelling an order that pays a payment link.',
    details: { status: 'The order\'s status.', money_state: 'Where its money is.' },
    recovery: 'Cancel the payment link instead.',
  },
  {
    code: 'cancel_unavailable', type: 'conflict',
    when: 'A cancel that cannot happen: an order that funds a payout (cancel the payout), an order the provider refuses to cancel, a payout past the point of cancelling, an off-ramp whose transit deposit is already broadcast.',
    details: { status: 'The object\'s status.', order_id: 'Orders: the order.', tx_hash: 'Off-ramps: the broadcast deposit.' },
    recovery: 'Re-read the object; cancel the object that owns it where the message says so.',
  },
];
