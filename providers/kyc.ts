/**
 * KYC provider (spec 2.8, 4.7): the customer record the provider keeps, hosted
 * verification links, and its decisions. Nothing personal crosses our API: the person gives their
 * data to the provider's hosted pages.
 *
 * Sandbox: `sandbox_kyc_customers`; a decision is played by `POST /sim/kyc/decisions`
 * (`setDecision`), which the customer's workflow then reads back (`get`). Its hosted links are
 * product-served sandbox pages on the payer host (`<PAYER_HOST>/sandbox/kyc/<provider_customer_id>/<kind>?t=<token>`,
 * api/pages/sandbox/), where the same decisions are buttons.
 */
import crypto from 'node:crypto';
import { loadConfig } from '../lib/config';
import { db } from '../lib/db';
import { instrumentProvider } from '../lib/metrics';

/** What the provider says about a customer now. */
export interface KycRecord {
  provider_customer_id: string;
  state: string;
  requirements_due: string[];
  endorsements: string[];
  rejection_outcome: string | null;
  associated_persons: Array<{ id: string; role: string; name_masked: string; verification_state: string }>;
}

/** Deterministic sandbox KYC provider backed by PostgreSQL. */
export class SandboxKyc {
  /** Creates (or returns, same client reference) the provider's customer; returns its id. */
  async createCustomer(clientReference: string, customerType: string): Promise<string> {
    const id = `kyc_${crypto.createHash('sha256').update(clientReference).digest('hex').slice(0, 20)}`;
    await db().query(
      `INSERT INTO sandbox_kyc_customers(provider_customer_id, client_reference, customer_type, state) VALUES ($1,$2,$3,'not_started') ON CONFLICT DO NOTHING`,
      [id, clientReference, customerType],
    );
    return id;
  }

  /**
   * A hosted verification link of `kind` (valid 7 days): the sandbox page
   * `<PAYER_HOST>/sandbox/kyc/<provider_customer_id>/<kind>?t=<32 hex>`; the provider starts its review (`pending`).
   */
  async createLink(providerCustomerId: string, kind: string): Promise<{ url: string; expires_at: Date }> {
    await db().query(
      `UPDATE sandbox_kyc_customers SET state = 'pending', updated_at = now() WHERE provider_customer_id = $1 AND state = 'not_started'`,
      [providerCustomerId],
    );
    const token = crypto.randomBytes(16).toString('hex');
    return {
      url: `${loadConfig().payerHost}/sandbox/kyc/${providerCustomerId}/${kind}?t=${token}`,
      expires_at: new Date(Date.now() + 7 * 86_400_000),
    };
  }

  /** The hosted page's read: the provider's record with whose it is (`client_reference`: our `cus_` id) and its type; null when unknown. */
  async find(providerCustomerId: string): Promise<(KycRecord & { client_reference: string; customer_type: string }) | null> {
    const rows: Array<KycRecord & { client_reference: string; customer_type: string }> = await db().query(
      `SELECT provider_customer_id, client_reference, customer_type, state, requirements_due, endorsements, rejection_outcome, associated_persons
         FROM sandbox_kyc_customers WHERE provider_customer_id = $1`,
      [providerCustomerId],
    );
    return rows[0] ?? null;
  }

  /** The provider's record; throws when unknown. */
  async get(providerCustomerId: string): Promise<KycRecord> {
    const rows: KycRecord[] = await db().query(
      'SELECT provider_customer_id, state, requirements_due, endorsements, rejection_outcome, associated_persons FROM sandbox_kyc_customers WHERE provider_customer_id = $1',
      [providerCustomerId],
    );
    if (!rows[0]) throw new Error(`kyc customer ${providerCustomerId} not found`);
    return rows[0];
  }

  /** Simulator: the provider decides for the customer whose client reference is `clientReference`; false when unknown. */
  async setDecision(
    clientReference: string,
    input: {
      state: string;
      requirements_due?: string[];
      rejection_outcome?: string | null;
      endorsements?: string[];
      associated_persons?: KycRecord['associated_persons'];
    },
  ): Promise<boolean> {
    const r: unknown[] = await db().query(
      `WITH u AS (UPDATE sandbox_kyc_customers SET state = $2, requirements_due = COALESCE($3, requirements_due), rejection_outcome = $4,
         endorsements = COALESCE($5, endorsements), associated_persons = COALESCE($6, associated_persons), updated_at = now()
        WHERE client_reference = $1 RETURNING provider_customer_id) SELECT * FROM u`,
      [
        clientReference,
        input.state,
        input.requirements_due ?? null,
        input.rejection_outcome ?? null,
        input.endorsements ?? null,
        input.associated_persons ? JSON.stringify(input.associated_persons) : null,
      ],
    );
    return r.length > 0;
  }
}

let kyc: SandboxKyc | null = null;

/** The process's KYC provider (sandbox). */
export function kycProvider(): SandboxKyc {
  if (!kyc) kyc = instrumentProvider('kyc', new SandboxKyc());
  return kyc;
}
