/** Wire projections of customers, verification links and associated persons (spec 2.8, 4.7; shapes ours where the spec is silent). */
import Joi from 'joi';
import { REJECTION_GUIDANCE } from '../domain/customers';
import type { Customer, CustomerVerificationLink } from '../entities';
import { at, atOrNull, bool, int, kind, strings, text, textOrNull } from './schema';
import type { CustomersAssociatedPersonsList, CustomersCreate, CustomersVerificationLinksCreate } from './wire';

/** A customer (`cus_`): no personal data; `requirements_outstanding` counts `requirements_due`. */
export function customerView(c: Customer): CustomersCreate {
  return {
    id: c.id, object: 'customer', livemode: c.livemode, customer_type: c.customer_type, country: c.country, legal_name: c.legal_name,
    verification_state: c.verification_state, requirements_outstanding: c.requirements_due.length, requirements_due: [...c.requirements_due],
    endorsements: [...c.endorsements], rejection_outcome: c.rejection_outcome,
    rejection_guidance: c.rejection_outcome ? (REJECTION_GUIDANCE[c.rejection_outcome] ?? 'Contact support.') : null,
    compliance_profile: { ...c.compliance_profile }, verified_at: c.verified_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(), updated_at: c.updated_at.toISOString(),
  };
}

export const customerResponse = Joi.object({
  id: text(), object: kind('customer'), livemode: bool(), customer_type: Joi.string().valid('individual', 'business').required(), country: textOrNull(),
  legal_name: textOrNull(), verification_state: text(), requirements_outstanding: int(), requirements_due: strings(), endorsements: strings(),
  rejection_outcome: textOrNull(), rejection_guidance: textOrNull(), compliance_profile: Joi.object().unknown(true).required(), verified_at: atOrNull(),
  created_at: at(), updated_at: at(),
});

/** A hosted verification link of the provider. */
export function verificationLinkView(l: CustomerVerificationLink): CustomersVerificationLinksCreate {
  return { id: l.id, object: 'verification_link', customer_id: l.customer_id, kind: l.kind, url: l.url, expires_at: l.expires_at.toISOString(), created_at: l.created_at.toISOString() };
}

export const verificationLinkResponse = Joi.object({
  id: text(), object: kind('verification_link'), customer_id: text(), kind: text(), url: text(), expires_at: at(), created_at: at(),
});

/** A person associated with a business customer, as the provider reports it (name masked). */
export function associatedPersonView(p: { id: string; role: string; name_masked: string; verification_state: string }): CustomersAssociatedPersonsList['data'][number] {
  return { id: p.id, object: 'associated_person', role: p.role, name_masked: p.name_masked, verification_state: p.verification_state };
}

export const associatedPersonResponse = Joi.object({ id: text(), object: kind('associated_person'), role: text(), name_masked: text(), verification_state: text() });
