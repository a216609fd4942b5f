/** Customer reads (spec 2.8, 4.7). */
import { conflict, notFound } from '../../domain/errors';
import { Customer } from '../../entities';
import { scoped } from '../../lib/scoped';
import { kycProvider, type KycRecord } from '../../providers/kyc';
import type { AccountScope } from '../scope';

/** `GET /customers`: the scope's zero or one customer; a stale provider mapping answers `409 customer_mapping_stale`. */
export async function listCustomers(scope: AccountScope): Promise<Customer[]> {
  const rows = await scoped(scope).find(Customer);
  if (rows.some((c) => c.verification_state === 'stale_mapping')) {
    throw conflict(
      'customer_mapping_stale',
      "The customer's record at the verification provider is stale; it is being re-established. Retry later.",
      { customer_id: rows[0].id },
    );
  }
  return rows;
}

/** `GET /customers/{id}` (`me`: the account's own customer): the scope's customer `input.id`; 404 `not_found` (param `id`). */
export async function getCustomer(scope: AccountScope, input: { id: string }): Promise<Customer> {
  const { id } = input;
  return scoped(scope).getOne(Customer, id === 'me' ? {} : { id }, () => notFound(`No such customer: ${id}.`, 'id'));
}

/** `GET /customers/{id}/associated_persons`: the persons the provider reports (masked names), from its record; 404 as `getCustomer`. */
export async function associatedPersons(scope: AccountScope, input: { id: string }): Promise<KycRecord['associated_persons']> {
  const c = await getCustomer(scope, input);
  return (await kycProvider().get(c.provider_customer_id)).associated_persons;
}
