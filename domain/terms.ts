/**
 * Terms acceptance (spec 1 rule 6): which revision a person must have accepted before a
 * gated operation runs, and what the refusal says. Inactive until the operator switch
 * `legal.terms_acceptance` is on. Two kinds of gate: `account` (the account's terms, accepted by
 * its owner; any caller of the account may then proceed, keys included) and `personal` (a
 * personal wallet intent: the acting user's own acceptance). Keys and agents never accept.
 *
 * Pure: no I/O.
 */
import { DomainError } from './errors';

/** The current terms revision (a date). */
export const TERMS_REVISION = '2026-11-01';

export type TermsGate = 'account' | 'personal';

/** The 409 of a gated operation without the needed acceptance: `details.revision` and `details.action`. */
export function termsAcceptanceRequired(gate: TermsGate): DomainError {
  return new DomainError(
    'capability_unavailable',
    'terms_acceptance_required',
    gate === 'account'
      ? `The account owner must accept the terms (revision ${TERMS_REVISION}) before this operation.`
      : `You must accept the terms (revision ${TERMS_REVISION}) for your own wallet before this operation.`,
    {
      details: {
        revision: TERMS_REVISION,
        action: gate === 'account' ? 'owner_accepts_terms' : 'user_accepts_terms',
        accepted_by: gate === 'account' ? 'account_owner' : 'acting_user',
      },
    },
  );
}

/** The 503 when the acceptance registry cannot be read (Retry-After 30 s). */
export function legalAcceptanceUnavailable(): DomainError {
  return new DomainError(
    'temporarily_unavailable',
    'legal_acceptance_unavailable',
    'Terms acceptance cannot be checked right now. Retry later.',
    { details: { retry_after_seconds: 30 } },
  );
}
