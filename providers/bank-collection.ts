/**
 * Inbound fiat collection provider (ARCHITECTURE.md "providers/"): issues the receiving
 * bank details of one payment on one rail (spec 2.1 BankDepositInstructions), receives inbound
 * bank credits and matches them to the payment by receiving account (a per-payment account
 * number, sort code + account number, CLABE or PIX key) or, on a pooled account, by the typed
 * reference; reports returns of received credits with its own reason text. Payouts to the
 * merchant's bank go through the fiat rail adapter (providers/fiat-rails.ts).
 *
 * The sandbox keeps what it issued in `sandbox_collection_accounts` and what it received in
 * `sandbox_bank_credits`; `/sim/bank/credits` and `/sim/bank/credits/{id}/return` act as the
 * outside world (ARCHITECTURE.md "Simulator"). Magic value: a credit whose `sender_name` is
 * SANDBOX_RETURN_SENDER is received and then returned by the sending bank with SANDBOX_RETURN_TEXT
 * (the simulator route applies it after delivering the credit; values in providers/sandbox-values.ts).
 */
import crypto from 'node:crypto';
import { BANK_MATCHING, type BankMatching } from '../domain/bank-collection';
import { db } from '../lib/db';
import { newId } from '../lib/ids';
import { faultValue } from './sandbox-faults';
import { instrumentProvider } from '../lib/metrics';

/** BankDepositInstructions (spec 2.1) as stored: every key present, null when the rail has none. */
export type BankInstructions = Record<string, string | null>;

/** What `issue` returns: the payer's instructions and the provider's matching keys. */
export interface IssuedCollection {
  instructions: BankInstructions;
  /** Normalised key of the receiving account a credit must be sent to. */
  accountKey: string;
  reference: string;
  matching: BankMatching;
}

/** An inbound credit as the provider reports it. Amount in minor units of `currency`. */
export interface ProviderCredit {
  id: string;
  rail: string;
  currency: string;
  amount: bigint;
  reference: string | null;
  to_account: string;
  sender_name: string | null;
  /** The payment the provider matched the credit to (its client reference), null when unmatched. */
  client_reference: string | null;
  state: 'received' | 'returned';
  return_reason: string | null;
}

/** Magic `sender_name` of the sandbox and its return text (defined in providers/sandbox-values.ts). */
export { SANDBOX_RETURN_SENDER, SANDBOX_RETURN_TEXT } from './sandbox-values';

/** Pooled SEPA collection account of the sandbox provider (reference matching). */
export const SANDBOX_SEPA_IBAN = 'DE89370400440532013000';
export const SANDBOX_SEPA_BIC = 'COBADEFFXXX';
/** Routing number of the sandbox US collection bank (ACH and wire). */
export const SANDBOX_US_ROUTING = '110000000';
/** Sort code of the sandbox UK collection bank. */
export const SANDBOX_SORT_CODE = '040004';

/** Upper-case, no spaces or hyphens: the form every receiving account key is compared in. */
export function normaliseAccount(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase();
}

const hashOf = (seed: string) => crypto.createHash('sha256').update(seed).digest();
const digitsOf = (seed: string, n: number) => {
  const h = hashOf(seed);
  let out = '';
  for (let i = 0; out.length < n; i++) out += String(h[i % h.length] % 10);
  return out;
};

/** An 18-digit CLABE: bank 646, plaza 180, 11-digit account, check digit (weights 3, 7, 1 mod 10). */
export function clabeFor(seed: string): string {
  const body = `646180${digitsOf(`clabe:${seed}`, 11)}`;
  const w = [3, 7, 1];
  const sum = [...body].reduce((acc, d, i) => acc + ((Number(d) * w[i % 3]) % 10), 0);
  return body + String((10 - (sum % 10)) % 10);
}

/** A payer-typable reference of 12 characters from [A-Z2-9] (no 0/O/1/I), unique per payment. */
export function referenceFor(seed: string): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const h = hashOf(`ref:${seed}`);
  let out = 'PL';
  for (let i = 0; i < 10; i++) out += alphabet[h[i] % alphabet.length];
  return out;
}

const EMPTY: BankInstructions = {
  bank_name: null,
  beneficiary_name: null,
  holder_kind: null,
  account_number: null,
  routing_number: null,
  sort_code: null,
  clabe: null,
  pix_key: null,
  bank_address: null,
  iban: null,
  bic: null,
};

/** Builds the instructions of `rail` for the payment `seed` (deterministic; also the order providers' receiving details). */
export function instructionsFor(
  rail: string,
  currency: string,
  seed: string,
  holderName: string,
  given?: string,
): { i: BankInstructions; accountKey: string } {
  const reference = given ?? referenceFor(seed);
  const base = { ...EMPTY, currency, rail, reference, matching: BANK_MATCHING[rail] };
  switch (rail) {
    case 'ach':
    case 'wire': {
      const account = `8${digitsOf(`us:${seed}`, 11)}`;
      return {
        i: {
          ...base,
          bank_name: 'Sandbox Community Bank',
          beneficiary_name: holderName,
          holder_kind: 'developer_name',
          account_number: account,
          routing_number: SANDBOX_US_ROUTING,
          bank_address: '1 Sandbox Plaza, New York, NY 10001, US',
        },
        accountKey: account,
      };
    }
    case 'sepa':
      return {
        i: {
          ...base,
          bank_name: 'Sandbox Collections GmbH',
          beneficiary_name: 'Sandbox Collections GmbH',
          holder_kind: 'provider_name',
          iban: SANDBOX_SEPA_IBAN,
          bic: SANDBOX_SEPA_BIC,
          bank_address: 'Sandboxstrasse 1, 60311 Frankfurt am Main, DE',
        },
        accountKey: SANDBOX_SEPA_IBAN,
      };
    case 'faster_payments': {
      const account = digitsOf(`uk:${seed}`, 8);
      return {
        i: {
          ...base,
          bank_name: 'Sandbox Bank UK',
          beneficiary_name: holderName,
          holder_kind: 'developer_name',
          sort_code: SANDBOX_SORT_CODE,
          account_number: account,
          bank_address: '1 Sandbox Lane, London EC2A 1AA, GB',
        },
        accountKey: `${SANDBOX_SORT_CODE}${account}`,
      };
    }
    case 'pix': {
      const h = hashOf(`pix:${seed}`).toString('hex');
      const key = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
      return {
        i: { ...base, bank_name: 'Banco Sandbox S.A.', beneficiary_name: holderName, holder_kind: 'developer_name', pix_key: key },
        accountKey: normaliseAccount(key),
      };
    }
    case 'spei': {
      const clabe = clabeFor(seed);
      return {
        i: { ...base, bank_name: 'Sandbox STP', beneficiary_name: holderName, holder_kind: 'developer_name', clabe },
        accountKey: clabe,
      };
    }
    default:
      throw new Error(`no collection on rail ${rail}`);
  }
}

interface CreditRow {
  id: string;
  rail: string;
  currency: string;
  amount_minor: string;
  reference: string | null;
  to_account: string;
  sender_name: string | null;
  client_reference: string | null;
  state: 'received' | 'returned';
  return_reason: string | null;
}

const toCredit = (r: CreditRow): ProviderCredit => ({
  id: r.id,
  rail: r.rail,
  currency: r.currency,
  amount: BigInt(r.amount_minor),
  reference: r.reference,
  to_account: r.to_account,
  sender_name: r.sender_name,
  client_reference: r.client_reference,
  state: r.state,
  return_reason: r.return_reason,
});

/** Deterministic sandbox collection provider backed by PostgreSQL. */
export class SandboxBankCollection {
  /**
   * Issues (or re-reads: idempotent by rail and `clientReference`) the receiving details of one
   * payment. `holderName` is the merchant's name on per-payment accounts (`holder_kind`
   * `developer_name`); the pooled SEPA account is in the provider's name (`provider_name`).
   * `reference` (optional; upper-case, no spaces) replaces the derived transfer reference, e.g. a
   * payroll run's `run_reference`, which the pooled account then matches on. `accountId` (the
   * merchant the call is made for) lets the sandbox fail on purpose for that account only
   * (`bank_collection.issue_fails`): throws the upstream error.
   */
  async issue(input: {
    rail: string;
    currency: string;
    clientReference: string;
    holderName: string;
    reference?: string;
    accountId?: string;
  }): Promise<IssuedCollection> {
    // The outside world failing on purpose for one account (`bank_collection.issue_fails`, POST /sim/providers/faults).
    if (input.accountId && (await faultValue(input.accountId, 'bank_collection.issue_fails')) === 'true') {
      throw new Error('Upstream 502: gateway timeout at bank.example');
    }
    const { i, accountKey } = instructionsFor(input.rail, input.currency, input.clientReference, input.holderName, input.reference);
    const reference = String(i.reference);
    if (BANK_MATCHING[input.rail] === 'account_number') {
      await db().query(
        `INSERT INTO sandbox_collection_accounts(account_key, rail, client_reference, reference) VALUES ($1,$2,$3,$4)
         ON CONFLICT DO NOTHING`,
        [accountKey, input.rail, input.clientReference, reference],
      );
    } else {
      await db().query(
        `INSERT INTO sandbox_collection_accounts(account_key, rail, client_reference, reference) VALUES ($1,$2,$3,$4)
         ON CONFLICT DO NOTHING`,
        [`${accountKey}:${reference}`, input.rail, input.clientReference, reference],
      );
    }
    return { instructions: i, accountKey, reference, matching: BANK_MATCHING[input.rail] };
  }

  /**
   * The outside world: a bank transfer of `amount` minor units of `currency` arrives on `rail` at
   * `toAccount` with `reference`. Matched by receiving account on per-payment accounts (the
   * reference is then only recommended), by exact reference on the pooled account; unmatched
   * credits are received with `client_reference` null (held for support). `returnedWith`: the
   * sending bank returned it at once with that reason (the SANDBOX_RETURN_SENDER magic value): the
   * credit is written `returned`, so no reader ever sees it received.
   */
  async receive(input: {
    rail: string;
    currency: string;
    amount: bigint;
    reference: string | null;
    toAccount: string;
    senderName: string | null;
    returnedWith?: string;
  }): Promise<ProviderCredit> {
    const key = normaliseAccount(input.toAccount);
    // Matched as a payer types it: trimmed, upper-case, inner spaces dropped (normalizeRunReference).
    const ref = input.reference ? input.reference.trim().toUpperCase().replace(/\s+/g, '') : null;
    let rows: Array<{ client_reference: string }>;
    if (BANK_MATCHING[input.rail] === 'reference') {
      rows = ref
        ? await db().query(`SELECT client_reference FROM sandbox_collection_accounts WHERE account_key = $1 AND rail = $2`, [
            `${key}:${ref}`,
            input.rail,
          ])
        : [];
    } else {
      rows = await db().query(`SELECT client_reference FROM sandbox_collection_accounts WHERE account_key = $1 AND rail = $2`, [
        key,
        input.rail,
      ]);
    }
    const id = newId('bcp_');
    const inserted: CreditRow[] = await db().query(
      `INSERT INTO sandbox_bank_credits(id, rail, currency, amount_minor, reference, to_account, sender_name, client_reference, state, return_reason)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING *`,
      [
        id,
        input.rail,
        input.currency,
        input.amount.toString(),
        input.reference,
        input.toAccount,
        input.senderName,
        rows[0]?.client_reference ?? null,
        input.returnedWith === undefined ? 'received' : 'returned',
        input.returnedWith ?? null,
      ],
    );
    return toCredit(inserted[0]);
  }

  /** Every credit matched to `clientReference`, oldest first (returned ones included, with their state). */
  async creditsFor(clientReference: string): Promise<ProviderCredit[]> {
    const rows: CreditRow[] = await db().query('SELECT * FROM sandbox_bank_credits WHERE client_reference = $1 ORDER BY created_at, id', [
      clientReference,
    ]);
    return rows.map(toCredit);
  }

  /** The credit `id` (`bcp_`), or null. */
  async get(id: string): Promise<ProviderCredit | null> {
    const rows: CreditRow[] = await db().query('SELECT * FROM sandbox_bank_credits WHERE id = $1', [id]);
    return rows[0] ? toCredit(rows[0]) : null;
  }

  /**
   * The sending bank returns a received credit with `reason` (provider text). Returns the credit,
   * null when unknown; throws an Error when it was returned already.
   */
  async returnCredit(id: string, reason: string): Promise<ProviderCredit | null> {
    const c = await this.get(id);
    if (!c) return null;
    if (c.state === 'returned') throw new Error(`credit ${id} was returned already`);
    await db().query(`UPDATE sandbox_bank_credits SET state = 'returned', return_reason = $2, updated_at = now() WHERE id = $1`, [
      id,
      reason,
    ]);
    return this.get(id);
  }
}

let provider: SandboxBankCollection | null = null;

/** The process's inbound collection provider (sandbox). */
export function bankCollection(): SandboxBankCollection {
  if (!provider) provider = instrumentProvider('bank_collection', new SandboxBankCollection());
  return provider;
}
