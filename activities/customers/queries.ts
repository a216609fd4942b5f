/** Customer reads (spec 2.8, 4.7; issue 15). */
import { conflict, notFound } from '../../domain/errors';
import { Customer } from '../../entities';
import { db } from '../../lib/db';
import { kycProvider, type KycRecord } from '../../providers/kyc';

/** `GET /customers`: zero or one customer; a stale provider mapping answers `409 customer_mapping_stale`. */
export async function listCustomers(accountId: string, livemode: boolean): Promise<Customer[]> {
  const rows = await db().getRepository(Customer).findBy({ account_id: accountId, livemode });
  if (rows.some((c) => c.verification_state === 'stale_mapping')) {
    throw conflict('customer_mapping_stale', 'The customer\'s record at the verification provider is stale; it is being re-established. Retry later.', { customer_id: rows[0].id });
  }
  return rows;
}

/** `GET /customers/{id}` (`me`: the account's own customer): 404 `not_found` (param `id`). */
export async function getCustomer(accountId: string, livemode: boolean, id: string): Promise<Customer> {
  const c = id === 'me'
    ? await db().getRepository(Customer).findOneBy({ account_id: accountId, livemode })
    : await db().getRepository(Customer).findOneBy({ id, account_id: accountId, livemode });
  if (!c) throw notFound(`No such customer: ${id}.`, 'id');
  return c;
}

/** `GET /customers/{id}/associated_persons`: the persons the provider reports (masked names), from its record. */
export async function associatedPersons(accountId: string, livemode: boolean, id: string): Promise<KycRecord['associated_persons']> {
  const c = await getCustomer(accountId, livemode, id);
  return (await kycProvider().get(c.provider_customer_id)).associated_persons;
}

/** The verified legal name of the account's business customer (approved), or null: what payouts freeze as `legal_entity_name`. */
export async function verifiedLegalName(accountId: string): Promise<string | null> {
  const rows: Array<{ legal_name: string | null }> = await db().query(
    `SELECT legal_name FROM customers WHERE account_id = $1 AND customer_type = 'business' AND verification_state = 'approved'`, [accountId]);
  return rows[0]?.legal_name ?? null;
}
