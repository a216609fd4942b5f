/** Wire projections of customers, verification links and associated persons (spec 2.8, 4.7; shapes ours where the spec is silent). */
import Joi from 'joi';
import { REJECTION_GUIDANCE } from '../domain/customers';
import type { Customer, CustomerVerificationLink } from '../entities';
import { at, atOrNull, bool, int, kind, strings, text, textOrNull } from './schema';
import type { CustomersAssociatedPersonsList, CustomersCreate, CustomersVerificationLinksCreate } from './wire';

/** A customer (`cus_`): no personal data; `requirements_outstanding` counts `requirements_due`. */
export function customerView(customer: Customer): CustomersCreate {
  return {
    id: customer.id,
    object: 'customer',
    livemode: customer.livemode,
    customer_type: customer.customer_type,
    country: customer.country,
    legal_name: customer.legal_name,
    verification_state: customer.verification_state,
    requirements_outstanding: customer.requirements_due.length,
    requirements_due: [...customer.requirements_due],
    endorsements: [...customer.endorsements],
    rejection_outcome: customer.rejection_outcome,
    rejection_guidance: customer.rejection_outcome ? (REJECTION_GUIDANCE[customer.rejection_outcome] ?? 'Contact support.') : null,
    compliance_profile: { ...customer.compliance_profile },
    verified_at: customer.verified_at?.toISOString() ?? null,
    created_at: customer.created_at.toISOString(),
    updated_at: customer.updated_at.toISOString(),
  };
}

export const customerResponse = Joi.object({
  id: text(),
  object: kind('customer'),
  livemode: bool(),
  customer_type: Joi.string().valid('individual', 'business').required(),
  country: textOrNull(),
  legal_name: textOrNull(),
  verification_state: text(),
  requirements_outstanding: int(),
  requirements_due: strings(),
  endorsements: strings(),
  rejection_outcome: textOrNull(),
  rejection_guidance: textOrNull(),
  compliance_profile: Joi.object().unknown(true).required(),
  verified_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});

/** A hosted verification link of the provider. */
export function verificationLinkView(customerVerificationLink: CustomerVerificationLink): CustomersVerificationLinksCreate {
  return {
    id: customerVerificationLink.id,
    object: 'verification_link',
    customer_id: customerVerificationLink.customer_id,
    kind: customerVerificationLink.kind,
    url: customerVerificationLink.url,
    expires_at: customerVerificationLink.expires_at.toISOString(),
    created_at: customerVerificationLink.created_at.toISOString(),
  };
}

export const verificationLinkResponse = Joi.object({
  id: text(),
  object: kind('verification_link'),
  customer_id: text(),
  kind: text(),
  url: text(),
  expires_at: at(),
  created_at: at(),
});

/** A person associated with a business customer, as the provider reports it (name masked). */
export function associatedPersonView(input: {
  id: string;
  role: string;
  name_masked: string;
  verification_state: string;
}): CustomersAssociatedPersonsList['data'][number] {
  return {
    id: input.id,
    object: 'associated_person',
    role: input.role,
    name_masked: input.name_masked,
    verification_state: input.verification_state,
  };
}

export const associatedPersonResponse = Joi.object({
  id: text(),
  object: kind('associated_person'),
  role: text(),
  name_masked: text(),
  verification_state: text(),
});
