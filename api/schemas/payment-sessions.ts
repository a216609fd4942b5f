/**
 * Request schemas of the payer session routes (spec 4.1 "Payer session routes"). The body of
 * `POST /payment_sessions/{token}/payments`: `rail` (the link rails and `crypto_transfer`), the
 * payer's declarations, and the fields of the cross-network (`network`, `stablecoin`,
 * `refund_address`) and transfer (`source_chain`, `source_asset`, `source_address`) rails, whose
 * rules beyond their shape are domain/xchain.ts's (`409 network_not_supported`, `400` params).
 */
import Joi from './joi';
import { CHAIN_NAMES } from '../../domain/addresses';
import { RAILS_CLOSED } from '../../domain/rails';

const PAYER_RAILS = [...RAILS_CLOSED, 'crypto_transfer'];

/** Body of `POST /payment_sessions/{token}/payments`. */
export const createPaymentBody = Joi.object({
  rail: Joi.string()
    .valid(...PAYER_RAILS)
    .required(),
  payer_type: Joi.string().valid('individual', 'business'),
  payer_state: Joi.string().pattern(/^[A-Z]{2}$/),
  payer_email: Joi.string().email({ tlds: { allow: false } }),
  // Closed chain catalogue (domain/addresses); which of them a rail takes is the rail's rule (spec 4.1: `409 network_not_supported`).
  network: Joi.string().valid(...CHAIN_NAMES),
  stablecoin: Joi.string().max(20),
  refund_address: Joi.string().max(200),
  source_chain: Joi.string().valid(...CHAIN_NAMES),
  source_asset: Joi.string().max(20),
  source_address: Joi.string().max(200),
});

/** Body of `POST /payment_sessions/{token}/receipt_email` (and of the payer page's receipt form). */
export const receiptEmailBody = Joi.object({
  email: Joi.string()
    .email({ tlds: { allow: false } })
    .required(),
});
