/**
 * Customer commands (spec 2.8, 4.7): create the account owner's customer, issue
 * verification links, update the compliance profile, and apply what the KYC provider decided
 * (the customer workflow's step). Each status change goes through the verification transition
 * table with its `customer.*` event in the same transaction.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { COUNTRIES } from '../../domain/countries';
import { legalNameFor, VERIFICATION_LINK_KINDS, type CustomerType, type VerificationState } from '../../domain/customers';
import { conflict, invalidRequest } from '../../domain/errors';
import { Customer, CustomerVerificationLink } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { accountWide } from '../../lib/scoped';
import { kycProvider } from '../../providers/kyc';
import { customerView } from '../../views/customer';
import { applyCustomerVerificationReport, lockCustomer } from '../records/customers';
import type { Scope } from '../scope';
import { getCustomer } from './queries';
import { signalCustomer } from './signals';

/**
 * `POST /customers` (owner only): `customer_type`, `country` (registry: 400 `country_invalid`;
 * set on the account only when it has none), `legal_name` (legalNameFor). One customer per
 * account: an existing one of the same type `409 customer_already_exists`, of another type (two
 * creates racing, or a later create with the other type) `409 customer_type_conflict`. The
 * account's `customer_type` follows. The provider's customer is created (idempotent by our id);
 * `verification_state: not_started`. The owner is the scope's caller (a dashboard user; Error without one).
 */
export async function createCustomer(
  scope: Scope,
  input: { customer_type: CustomerType; country?: string | null; legal_name?: string | null },
): Promise<Customer> {
  const userId = scope.caller?.userId;
  if (!userId) throw new Error('createCustomer: the caller is not a dashboard user');
  const a = { accountId: scope.accountId, livemode: scope.livemode, userId, customerType: input.customer_type };
  const country = input.country ? input.country.toUpperCase() : null;
  if (country !== null && !COUNTRIES.has(country))
    throw invalidRequest('country_invalid', '`country` must be an ISO 3166-1 alpha-2 country code of the registry.', 'country');
  const legalName = legalNameFor(a.customerType, input.legal_name);
  const id = newId('cus_');
  const providerId = await kycProvider().createCustomer(id, a.customerType);
  return transaction(async (m) => {
    const inserted: Array<{ id: string }> = await m.query(
      `INSERT INTO customers(id, account_id, owner_user_id, livemode, customer_type, country, legal_name, verification_state, provider_customer_id)
       VALUES ($1,$2,$3,$4,$5,$6,$7,'not_started',$8) ON CONFLICT (account_id) DO NOTHING RETURNING id`,
      [id, a.accountId, a.userId, a.livemode, a.customerType, country, legalName, providerId],
    );
    if (!inserted[0]) {
      const own = accountWide(a.accountId, m).sql(null, 1);
      const existing = (await m.query(`SELECT id, customer_type FROM customers WHERE ${own.where}`, own.params))[0] as {
        id: string;
        customer_type: string;
      };
      if (existing.customer_type !== a.customerType) {
        throw conflict(
          'customer_type_conflict',
          `This account's customer is ${existing.customer_type}; it cannot also be ${a.customerType}.`,
          { customer_id: existing.id },
        );
      }
      throw conflict('customer_already_exists', 'This account already has its customer.', { customer_id: existing.id });
    }
    await m.query('UPDATE accounts SET customer_type = $2, country = COALESCE(country, $3) WHERE id = $1', [
      a.accountId,
      a.customerType,
      country,
    ]);
    return m.findOneByOrFail(Customer, { id });
  });
}

/**
 * `POST /customers/{id}/verification_links`: a hosted link of `kind` from the provider. `tos`
 * comes first: another kind before a `tos` link `409 tos_link_required`; a kind not of the
 * customer's type `400 parameter_invalid` (param `kind`). Wakes the customer's workflow. 404 param
 * `id` when the customer is not the scope's (`me`: the account's own).
 */
export async function createVerificationLink(
  scope: Scope,
  input: { id: string; kind: string },
): Promise<{ customer: Customer; link: CustomerVerificationLink }> {
  const { kind } = input;
  const c = await getCustomer(scope, { id: input.id });
  if (!VERIFICATION_LINK_KINDS[c.customer_type].includes(kind)) {
    throw invalidRequest(
      'parameter_invalid',
      `A ${c.customer_type} customer verifies with ${VERIFICATION_LINK_KINDS[c.customer_type].join(', ')}.`,
      'kind',
    );
  }
  const links = db().getRepository(CustomerVerificationLink);
  if (kind !== 'tos' && !(await links.countBy({ customer_id: c.id, kind: 'tos' }))) {
    throw conflict('tos_link_required', "The provider's terms come first: create a `tos` link before the identity links.");
  }
  const issued = await kycProvider().createLink(c.provider_customer_id, kind);
  const link = await links.save(
    links.create({ id: newId('cvl_'), customer_id: c.id, kind, url: issued.url, expires_at: issued.expires_at }),
  );
  await signalCustomer(c.id, c.account_id);
  return { customer: c, link };
}

/**
 * `PATCH /customers/{id}/compliance_profile` (owner/admin): merges `profile` (no personal data:
 * business activity, expected volume, purpose, source of funds). A `compliance_profile`
 * requirement is then met: removed from `requirements_due` with `customer.requirements_updated`.
 * 404 param `id` when the customer is not the scope's.
 */
export async function updateComplianceProfile(scope: Scope, input: { id: string; profile: Record<string, unknown> }): Promise<Customer> {
  const { accountId, livemode, request } = scope;
  const { profile } = input;
  const c0 = await getCustomer(scope, { id: input.id });
  return transaction(async (m) => {
    const c = await m.findOneOrFail(Customer, { where: { id: c0.id }, lock: { mode: 'pessimistic_write' } });
    c.compliance_profile = { ...c.compliance_profile, ...profile };
    const had = c.requirements_due.includes('compliance_profile');
    c.requirements_due = c.requirements_due.filter((r) => r !== 'compliance_profile');
    const saved = await m.save(c);
    if (had)
      await emitEvent(m, {
        accountId,
        livemode,
        type: 'customer.requirements_updated',
        objectType: 'customer',
        objectId: c.id,
        object: customerView(saved),
        request,
      });
    return saved;
  });
}

/**
 * The workflow's step: reads the provider's record and applies it: a new state through the
 * transition table (`customer.verification_state_changed`, and `customer.rejected` when
 * rejected), changed requirements (`customer.requirements_updated`), endorsements and the
 * rejection outcome; `verified_at` when approved. Returns the state. Throws ApplicationFailure
 * `NotFound` when the customer is gone.
 */
export async function syncCustomerVerification(id: string): Promise<VerificationState> {
  const c0 = await db().getRepository(Customer).findOneBy({ id });
  if (!c0) throw ApplicationFailure.nonRetryable(`customer ${id} not found`, 'NotFound');
  const p = await kycProvider().get(c0.provider_customer_id);
  return transaction(async (m) => {
    const saved = await applyCustomerVerificationReport(m, await lockCustomer(m, id), p);
    return saved.verification_state;
  });
}
