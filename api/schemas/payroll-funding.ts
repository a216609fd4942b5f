/**
 * joi schemas of payroll funding (spec 2.7, 4.4): the body of `POST /payroll_runs/{id}/funding_instructions`
 * (`funding_method` optional: absent keeps the run's method; a different one switches it). The
 * refusals that depend on the run's state (409s) are checked by activities/payroll/funding-instructions.ts.
 */
import Joi from './joi';

export const fundingInstructionsBody = Joi.object({
  funding_method: Joi.string()
    .valid('fiat', 'crypto')
    .description(
      '`fiat` (bank transfer) or `crypto` (USDC deposit); switching is refused once money was observed (409 funding_method_locked).',
    ),
});
