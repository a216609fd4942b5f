/**
 * Error registry (domain/error-codes.ts), paying out: payouts (spec 4.3), their funding from an
 * external or the service wallet, and payroll runs, rows, recipients and their destinations
 * (spec 4.4). Pure data.
 */
import type { ErrorCodeSpec } from './entry';

export const PAYOUT_CODES: readonly ErrorCodeSpec[] = [
  // Payouts.
  {
    code: 'payer_type_mismatch', type: 'invalid_request', status: 422,
    when: 'A payout declares a `payer_type` other than the one the service derives from the account\'s customer.',
    param: '`payer_type`.',
    details: { expected: 'The payer type of this account.', received: 'The one sent.' },
    recovery: 'Leave `payer_type` out, or send `details.expected`.',
  },
  {
    code: 'beneficiary_required', type: 'conflict',
    when: 'Funding a payout that has no beneficiary yet.',
    recovery: 'Add the beneficiary (`POST /payouts/{id}/beneficiary`), then fund.',
  },
  {
    code: 'beneficiary_already_set', type: 'conflict',
    when: 'Setting the bank details of a payout, or of an address-book entry, that already has them (bank details cross once).',
    recovery: 'Replace the payout, or add a new address-book entry, to use other details.',
  },
  {
    code: 'payout_not_editable', type: 'conflict',
    when: 'Adding a beneficiary to a payout past the draft stage.',
    details: { status: 'The payout\'s status.' },
    recovery: 'Re-read the payout; replace it to change its beneficiary.',
  },
  {
    code: 'payout_not_fundable', type: 'conflict',
    when: 'Confirming funding of a payout that is not a draft (or whose corridor is gone).',
    details: { status: 'The payout\'s status.' },
    recovery: 'Re-read the payout; funding is confirmed once.',
  },
  {
    code: 'payout_source_chain_missing', type: 'invalid_request',
    when: 'Confirming funding from an external wallet without saying which chain the USDC comes from.',
    param: '`source_chain`.',
    recovery: 'Send `source_chain`.',
  },
  {
    code: 'payout_source_chain_locked', type: 'conflict',
    when: 'Changing the source chain after the provider transfer exists or is being created.',
    param: '`source_chain`.',
    details: { source_chain: 'The chain it stays on.' },
    recovery: 'Send the funds on `details.source_chain`, or cancel and replace the payout.',
  },
  {
    code: 'funding_source_locked', type: 'conflict',
    when: 'Changing the funding source of a payout whose funding was already confirmed.',
    param: '`funding_source`.',
    details: { funding_source: 'The source it stays on.' },
    recovery: 'Keep the funding source, or cancel and replace the payout.',
  },
  {
    code: 'refund_address_locked', type: 'conflict',
    when: 'Changing a payout\'s `refund_address` once it is past awaiting funds.',
    param: '`refund_address`.',
    details: { status: 'The payout\'s status.' },
    recovery: 'Re-read the payout; the refund address is final now.',
  },
  {
    code: 'funding_instructions_pending', type: 'temporarily_unavailable',
    when: 'The provider transfer behind the funding instructions is still being created.',
    retryAfter: true,
    recovery: 'Retry with the same Idempotency-Key after `Retry-After`.',
  },
  {
    code: 'funding_instructions_unavailable', type: 'conflict',
    when: 'Reading funding instructions of a payout whose funding was not confirmed yet.',
    details: { status: 'The payout\'s status.' },
    recovery: 'Confirm funding (`POST /payouts/{id}/funding_instructions`), then read them.',
  },
  {
    code: 'wallet_balance_insufficient', type: 'conflict',
    when: 'Funding a payout from the service wallet when its balance does not cover the payout and fees.',
    details: { shortfall: 'What is missing (Money, USDC).' },
    recovery: 'Top up the wallet by at least `details.shortfall`, or fund from an external wallet.',
  },
  {
    code: 'balance_unavailable', type: 'provider_error', status: 503,
    when: 'The wallet balance could not be read from the chain.',
    recovery: 'Retry later.',
  },
  {
    code: 'wallet_funding_pending', type: 'conflict',
    when: 'Cancelling a payout while a prepared wallet send for it can still be signed or land.',
    details: { retry_after: 'Seconds until cancel is possible.', retry_at: 'When cancel is possible (ISO 8601).' },
    recovery: 'Retry the cancel at `details.retry_at` (30 minutes after the send expires).',
  },
  {
    code: 'wallet_funding_cancel_failed', type: 'temporarily_unavailable',
    when: 'Cancelling a payout whose unsigned wallet sends could not be closed; the payout was not cancelled.',
    retryAfter: true,
    recovery: 'Retry the cancel after `Retry-After`.',
  },
  {
    code: 'payout_not_replaceable', type: 'conflict',
    when: 'Replacing a payout that is not failed, returned, expired or cancelled.',
    details: { status: 'The payout\'s status.' },
    recovery: 'Cancel it first where possible, or wait for its outcome.',
  },
  {
    code: 'payout_already_replaced', type: 'conflict',
    when: 'Replacing a payout that was already replaced.',
    details: { replaced_by: 'The payout that replaced it.' },
    recovery: 'Work with `details.replaced_by`.',
  },
  {
    code: 'receipt_unavailable', type: 'conflict',
    when: 'Asking for the receipt of a payout that is not settled (or was paid with a shortfall).',
    details: { status: 'The payout\'s status.' },
    recovery: 'Wait for the payout to settle.',
  },
  // Payroll runs and rows.
  {
    code: 'payroll_cap_exceeded', type: 'invalid_request', status: 422,
    when: 'A run has more than 500 rows, a row is over 10,000 USD, or the run is over 25,000 USD (checked on create and again at execute).',
    param: '`rows`, or the row\'s `amount`.',
    details: { cap: '`rows`, `item` or `run`.', limit: 'The cap.', row: 'The row, for the item cap.', usd_value: 'The value checked, in USD.', rows: 'The row count.' },
    recovery: 'Split the run, or lower the amounts.',
  },
  {
    code: 'duplicate_recipient', type: 'invalid_request',
    when: 'Two rows pay the same recipient.',
    param: 'The second row\'s recipient field.',
    details: { first_row: 'The row it repeats.' },
    recovery: 'Combine the two rows into one.',
  },
  {
    code: 'recipient_ambiguous', type: 'invalid_request',
    when: 'A row names its recipient both by `recipient_id` and by email and name.',
    param: 'The row\'s `recipient_id`.',
    recovery: 'Name the recipient one way.',
  },
  {
    code: 'recipient_required', type: 'invalid_request',
    when: 'A row names no recipient.',
    param: 'The row\'s `email`.',
    recovery: 'Send `recipient_id`, or `email` and `name`.',
  },
  {
    code: 'recipient_not_found', type: 'invalid_request',
    when: 'A row\'s `recipient_id` is unknown.',
    param: 'The row\'s `recipient_id`.',
    recovery: 'Use an id from `GET /payroll_recipients`, or name the recipient by email and name.',
  },
  {
    code: 'email_invalid', type: 'invalid_request',
    when: 'A row\'s email is not a valid address.',
    param: 'The row\'s `email`.',
    recovery: 'Fix the address.',
  },
  {
    code: 'pay_period_invalid', type: 'invalid_request',
    when: '`pay_period_end` is before `pay_period_start`.',
    param: '`pay_period_end`.',
    recovery: 'Send a period that ends after it starts.',
  },
  {
    code: 'payroll_run_not_approved', type: 'conflict',
    when: 'Requesting the funding instructions of a run not yet approved.',
    recovery: 'Approve the run, then ask again.',
  },
  {
    code: 'run_has_no_rows', type: 'conflict',
    when: 'Funding a run with no rows.',
    recovery: 'Add rows first.',
  },
  {
    code: 'funding_method_locked', type: 'conflict',
    when: 'Switching a run\'s funding method after money was observed for it.',
    details: { funding_method: 'The method it stays on.' },
    recovery: 'Keep funding with `details.funding_method`.',
  },
  {
    code: 'payroll_run_underfunded', type: 'conflict',
    when: 'Executing a run that is not fully funded yet.',
    details: { funding_state: 'How far funding got.', shortfall: 'What is missing (Money).' },
    recovery: 'Send `details.shortfall`, wait for it to be observed, then execute.',
  },
  // Recipients and their destinations.
  {
    code: 'recipient_session_closed', type: 'conflict',
    when: 'A recipient submits a destination after the payment can no longer take one (run cancelled or finished, item paid).',
    details: { reason: 'Why the session is closed.' },
    recovery: 'Nothing to submit: ask the business if something is wrong.',
  },
  {
    code: 'destination_already_submitted', type: 'conflict',
    when: 'A recipient submits a second destination through the same link.',
    recovery: 'Ask the business for a new link to change it.',
  },
  {
    code: 'no_pending_destination', type: 'conflict',
    when: 'Adopting a recipient\'s submitted destination when none is waiting.',
    recovery: 'Re-read the recipient.',
  },
  {
    code: 'pending_destination_changed', type: 'conflict',
    when: 'Adopting a submitted destination that the recipient has replaced since you read it.',
    param: '`expected_submitted_at`.',
    details: { submitted_at: 'When the current submission was made.' },
    recovery: 'Re-read the recipient and adopt what it shows (send its `submitted_at`).',
  },
  {
    code: 'destination_rail_keyless', type: 'invalid_request', status: 422,
    when: 'Adopting a destination that cannot pay some of the recipient\'s open items (their currency is not paid on its rail).',
    details: { rail: 'The destination\'s rail.', items: 'The items it cannot pay, with `currency` and `reason`.' },
    recovery: 'Cancel those runs, or ask the recipient for a destination that fits.',
  },
];
