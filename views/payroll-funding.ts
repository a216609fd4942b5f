/**
 * Wire projection of a payroll run's funding instructions (spec 2.7 "Funding instructions", 4.4):
 * one funding attempt (`prf_`) with its bank object (BankDepositInstructions-shaped, spec 2.1) or
 * crypto object (`address` case preserved, `chain`, `asset`, `amount` in USDC), and its response
 * schemas. The only place these wire names are spelled.
 */
import Joi from 'joi';
import { currencyDecimals } from '../domain/money';
import type { PayrollFundingAttempt } from '../entities';
import { FUNDING_ATTEMPT_STATUSES } from '../domain/payroll-funding';
import { at, atOrNull, bool, kind, listEnvelope, money, moneyOrNull, textOrNull } from './schema';
import type { PayrollRunsFundingInstructionsGet } from './wire';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The attempt as `payroll_funding_instructions`; `amount_due` is what must arrive (run currency, or USDC for crypto). */
export function payrollFundingInstructionsView(payrollFundingAttempt: PayrollFundingAttempt): PayrollRunsFundingInstructionsGet {
  return {
    id: payrollFundingAttempt.id,
    object: 'payroll_funding_instructions',
    livemode: payrollFundingAttempt.livemode,
    created_at: payrollFundingAttempt.created_at.toISOString(),
    updated_at: payrollFundingAttempt.updated_at.toISOString(),
    run_id: payrollFundingAttempt.run_id,
    status: payrollFundingAttempt.status,
    run_reference: payrollFundingAttempt.run_reference,
    retryable: payrollFundingAttempt.retryable,
    funding_method: payrollFundingAttempt.funding_method,
    funding_route_type: payrollFundingAttempt.funding_route_type,
    // jsonb stored in the wire shape when the funding attempt got its instructions.
    bank: payrollFundingAttempt.bank as PayrollRunsFundingInstructionsGet['bank'],
    crypto: payrollFundingAttempt.crypto as PayrollRunsFundingInstructionsGet['crypto'],
    amount_due:
      payrollFundingAttempt.required_minor === null
        ? null
        : {
            amount: payrollFundingAttempt.required_minor,
            currency: payrollFundingAttempt.required_currency,
            decimals: currencyDecimals(payrollFundingAttempt.required_currency),
          },
    failure_reason: payrollFundingAttempt.failure_reason,
    superseded_at: iso(payrollFundingAttempt.superseded_at),
  };
}

const str = () => Joi.string().allow(null).required();

/** The bank object: every BankDepositInstructions key, null when the rail has none, plus the run total. */
const bankResponse = Joi.object({
  bank_name: str(),
  beneficiary_name: str(),
  holder_kind: str(),
  account_number: str(),
  routing_number: str(),
  sort_code: str(),
  clabe: str(),
  pix_key: str(),
  bank_address: str(),
  iban: str(),
  bic: str(),
  currency: str(),
  rail: str(),
  reference: str(),
  matching: str(),
  amount: money(),
});

const cryptoResponse = Joi.object({
  address: Joi.string().required(),
  chain: Joi.string().required(),
  asset: Joi.string().required(),
  amount: money(),
});

export const payrollFundingInstructionsResponse = Joi.object({
  id: Joi.string().required(),
  object: kind('payroll_funding_instructions'),
  livemode: bool(),
  created_at: at(),
  updated_at: at(),
  run_id: Joi.string().required(),
  status: Joi.string()
    .valid(...FUNDING_ATTEMPT_STATUSES)
    .required(),
  run_reference: Joi.string().required(),
  retryable: bool(),
  funding_method: Joi.string().valid('fiat', 'crypto').required(),
  funding_route_type: Joi.string().valid('bank', 'crypto_deposit_to_wallet').required(),
  bank: bankResponse.allow(null).required(),
  crypto: cryptoResponse.allow(null).required(),
  amount_due: moneyOrNull(),
  failure_reason: textOrNull(),
  superseded_at: atOrNull(),
});

export const payrollFundingAttemptListResponse = listEnvelope(payrollFundingInstructionsResponse);
