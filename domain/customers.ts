/**
 * Customers (spec 2.8, 4.7): who the account's owner is to the KYC provider. Verification
 * states and their transition table, the verification link kinds (`tos` first, then the identity
 * kinds of the customer type), and the create rules (no personal data in the body).
 *
 * Pure: no I/O.
 */
import { invalidRequest } from './errors';
import { transitionTable } from './transitions';

export type CustomerType = 'individual' | 'business';

/** `verification_state` (open enum on the wire; these are the states this build produces). */
export const VERIFICATION_STATES = Object.freeze([
  'not_started',
  'pending',
  'under_review',
  'approved',
  'rejected',
  'stale_mapping',
  'action_required',
] as const);
export type VerificationState = (typeof VERIFICATION_STATES)[number];

/** Transition table of `verification_state` (409 `customer_state_changed`): the provider moves it; never back to `not_started`. */
export const verificationTransitions = transitionTable<VerificationState>('customer', {
  not_started: ['pending', 'under_review', 'action_required', 'approved', 'rejected', 'stale_mapping'],
  pending: ['under_review', 'action_required', 'approved', 'rejected', 'stale_mapping'],
  under_review: ['pending', 'action_required', 'approved', 'rejected', 'stale_mapping'],
  action_required: ['pending', 'under_review', 'approved', 'rejected', 'stale_mapping'],
  approved: ['under_review', 'action_required', 'rejected', 'stale_mapping'],
  rejected: ['pending', 'under_review', 'stale_mapping'],
  stale_mapping: ['pending', 'under_review', 'action_required', 'approved', 'rejected'],
});

/** Link kinds per customer type: `tos` first (the provider's flow starts with its terms), then identity. */
export const VERIFICATION_LINK_KINDS: Readonly<Record<CustomerType, readonly string[]>> = Object.freeze({
  individual: Object.freeze(['tos', 'identity_document', 'proof_of_address']),
  business: Object.freeze(['tos', 'business_registration', 'beneficial_owners', 'proof_of_address']),
});
export const ALL_LINK_KINDS: readonly string[] = Object.freeze([...new Set(Object.values(VERIFICATION_LINK_KINDS).flat())]);

/** Rejection outcomes the provider reports, with the guidance shown to the account. */
export const REJECTION_GUIDANCE: Readonly<Record<string, string>> = Object.freeze({
  final: 'The provider cannot onboard this customer. Contact support for the options left.',
  resubmission_allowed: 'Correct the flagged documents and start a new verification link.',
  unsupported_jurisdiction: "The customer's country is not supported for this product.",
});

/**
 * The trimmed legal name of a create request: business only, 1 to 200 characters trimmed. 400
 * `parameter_invalid` (param `legal_name`) on an individual or outside the bounds.
 */
export function legalNameFor(type: CustomerType, raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  if (type === 'individual') throw invalidRequest('parameter_invalid', '`legal_name` applies to business customers only.', 'legal_name');
  const name = raw.trim();
  if (name.length < 1 || [...name].length > 200)
    throw invalidRequest('parameter_invalid', '`legal_name` is 1 to 200 characters once trimmed.', 'legal_name');
  return name;
}
