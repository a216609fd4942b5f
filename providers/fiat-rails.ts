/**
 * Fiat rail adapters (ARCHITECTURE.md "providers/"): the provider that pays a beneficiary's bank
 * account in fiat on one rail (ach, wire, sepa, faster_payments, pix, spei). Submitting is
 * idempotent by the caller's key; the payment then moves `submitted` -> `paid` (with the amount
 * the rail paid) -> optionally `returned`, or `failed`; the recipient's confirmation records what
 * actually arrived. Each rail mints its own kind of provider reference.
 *
 * The sandbox keeps payments in `sandbox_rail_payments`; `/sim/providers/fiat_rails/...` moves them
 * as the outside world would (ARCHITECTURE.md "Simulator"). A payment submitted with the
 * beneficiary's account identifier (payroll items) gets its outcome at once, as on an instant
 * rail, decided by the sandbox's test account numbers: an identifier whose digits end in
 * SANDBOX_FAILING_ACCOUNT_SUFFIX fails (SANDBOX_FAILING_REASON), one ending in SANDBOX_RETURNED_ACCOUNT_SUFFIX
 * is paid and then returned by the beneficiary's bank (SANDBOX_RETURNED_TEXT), any other is paid
 * (the values: providers/sandbox-values.ts).
 * Without an identifier (payouts) the payment stays `submitted` until the simulator moves it.
 */
import crypto from 'node:crypto';
import type { BankDetails } from '../domain/bank-details';
import { db } from '../lib/db';
import { newId } from '../lib/ids';
import { faultValue } from './sandbox-faults';
import {
  SANDBOX_FAILING_ACCOUNT_SUFFIX,
  SANDBOX_FAILING_REASON,
  SANDBOX_RETURNED_ACCOUNT_SUFFIX,
  SANDBOX_RETURNED_TEXT,
} from './sandbox-values';
import { instrumentProvider } from '../lib/metrics';

/** A rail payment as the provider reports it. Amounts in minor units of `currency`. */
export interface RailPayment {
  id: string;
  rail: string;
  currency: string;
  amount: bigint;
  state: 'submitted' | 'paid' | 'failed' | 'returned';
  paid: bigint | null;
  recipient_received: bigint | null;
  reason: string | null;
  provider_reference: string;
  client_reference: string;
}

export interface SubmitRailPayment {
  idempotencyKey: string;
  clientReference: string;
  rail: string;
  currency: string;
  amount: bigint;
  /** The beneficiary's account identifier (account number, IBAN, CLABE or PIX key), when the rail decides at once. */
  beneficiaryAccount?: string | null;
  /** The merchant the payment is for (sandbox faults are scoped to it). */
  accountId?: string;
}

/** The sandbox's test account numbers and return text (defined in providers/sandbox-values.ts). */
export { SANDBOX_FAILING_ACCOUNT_SUFFIX, SANDBOX_RETURNED_ACCOUNT_SUFFIX, SANDBOX_RETURNED_TEXT };

/** The account identifier a rail pays for bank details: account number, IBAN, CLABE or PIX key. */
export function beneficiaryAccountOf(bank: Pick<BankDetails, 'account_number' | 'iban' | 'clabe' | 'pix_key'>): string | null {
  return bank.account_number ?? bank.iban ?? bank.clabe ?? bank.pix_key ?? null;
}

/** The outcome the sandbox gives a payment submitted with `account` (see the module comment). */
function instantOutcome(account: string): { state: 'paid' | 'failed' | 'returned'; reason: string | null } {
  const digits = account.replace(/\D/g, '');
  if (digits.endsWith(SANDBOX_FAILING_ACCOUNT_SUFFIX)) return { state: 'failed', reason: SANDBOX_FAILING_REASON };
  if (digits.endsWith(SANDBOX_RETURNED_ACCOUNT_SUFFIX)) return { state: 'returned', reason: SANDBOX_RETURNED_TEXT };
  return { state: 'paid', reason: null };
}

export interface FiatRailAdapter {
  submit(input: SubmitRailPayment): Promise<RailPayment>;
  get(id: string): Promise<RailPayment>;
}

/** Provider reference in the rail's own format (ACH trace number, SEPA end-to-end id, PIX E2E id, SPEI tracking key, ...). */
export function railReference(rail: string, seed: string): string {
  const h = crypto.createHash('sha256').update(seed).digest('hex');
  const digits = BigInt(`0x${h.slice(0, 15)}`)
    .toString()
    .padStart(15, '0')
    .slice(0, 15);
  switch (rail) {
    case 'ach':
      return digits;
    case 'wire':
      return `FED${h.slice(0, 13).toUpperCase()}`;
    case 'sepa':
      return `E2E${h.slice(0, 29).toUpperCase()}`;
    case 'faster_payments':
      return `FP${h.slice(0, 16).toUpperCase()}`;
    case 'pix':
      return `E${h.slice(0, 31).toUpperCase()}`;
    case 'spei':
      return `SPEI${digits}`;
    default:
      return `REF${h.slice(0, 16).toUpperCase()}`;
  }
}

interface Row {
  id: string;
  rail: string;
  currency: string;
  amount_minor: string;
  state: RailPayment['state'];
  paid_minor: string | null;
  recipient_received_minor: string | null;
  reason: string | null;
  provider_reference: string;
  client_reference: string;
}

const toPayment = (r: Row): RailPayment => ({
  id: r.id,
  rail: r.rail,
  currency: r.currency,
  amount: BigInt(r.amount_minor),
  state: r.state,
  paid: r.paid_minor === null ? null : BigInt(r.paid_minor),
  recipient_received: r.recipient_received_minor === null ? null : BigInt(r.recipient_received_minor),
  reason: r.reason,
  provider_reference: r.provider_reference,
  client_reference: r.client_reference,
});

/** Deterministic sandbox rails backed by PostgreSQL. */
export class SandboxFiatRails implements FiatRailAdapter {
  async submit(input: SubmitRailPayment): Promise<RailPayment> {
    const id = newId('rpm_');
    const o = input.beneficiaryAccount ? instantOutcome(input.beneficiaryAccount) : { state: 'submitted' as const, reason: null };
    const paid = o.state === 'paid' || o.state === 'returned' ? input.amount.toString() : null;
    await db().query(
      `INSERT INTO sandbox_rail_payments(id, idempotency_key, client_reference, rail, currency, amount_minor, state, provider_reference, paid_minor, reason)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (idempotency_key) DO NOTHING`,
      [
        id,
        input.idempotencyKey,
        input.clientReference,
        input.rail,
        input.currency,
        input.amount.toString(),
        o.state,
        railReference(input.rail, id),
        paid,
        o.reason,
      ],
    );
    // Fault `fiat_rails.submit_delay_ms`: the provider has accepted the payment but answers late (a caller may die waiting).
    const delay = input.accountId ? Number((await faultValue(input.accountId, 'fiat_rails.submit_delay_ms')) ?? '0') : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const rows: Row[] = await db().query('SELECT * FROM sandbox_rail_payments WHERE idempotency_key = $1', [input.idempotencyKey]);
    return toPayment(rows[0]);
  }

  async get(id: string): Promise<RailPayment> {
    const rows: Row[] = await db().query('SELECT * FROM sandbox_rail_payments WHERE id = $1', [id]);
    if (!rows[0]) throw new Error(`rail payment ${id} not found`);
    return toPayment(rows[0]);
  }

  /**
   * Simulator: the rail reports an outcome. `paid` (amount paid, default the submitted amount),
   * `failed` / `returned` (with the rail's reason), or the recipient's confirmation of what arrived
   * (`recipientReceived`, on a paid payment). Returns the payment, or null when unknown.
   * The same state reported again changes nothing (a duplicate callback). Refuses impossible moves
   * (e.g. failing a paid payment) with an Error.
   */
  async simulate(
    idOrReference: string,
    change: { state?: 'paid' | 'failed' | 'returned'; paid?: bigint; reason?: string | null; recipientReceived?: bigint },
  ): Promise<RailPayment | null> {
    const rows: Row[] = await db().query(
      'SELECT * FROM sandbox_rail_payments WHERE id = $1 OR client_reference = $1 ORDER BY created_at DESC LIMIT 1',
      [idOrReference],
    );
    if (!rows[0]) return null;
    const p = toPayment(rows[0]);
    // The same report again (a provider delivers its callbacks at least once): nothing changes, and
    // the caller tells the product again, so a report whose first delivery was lost still arrives.
    if (change.state !== undefined && change.state === p.state && (change.paid === undefined || change.paid === p.paid)) {
      // no change
    } else if (change.state === 'paid') {
      if (p.state !== 'submitted') throw new Error(`a ${p.state} payment cannot become paid`);
      await db().query(`UPDATE sandbox_rail_payments SET state = 'paid', paid_minor = $2, updated_at = now() WHERE id = $1`, [
        p.id,
        (change.paid ?? p.amount).toString(),
      ]);
    } else if (change.state === 'failed') {
      if (p.state !== 'submitted') throw new Error(`a ${p.state} payment cannot fail`);
      await db().query(`UPDATE sandbox_rail_payments SET state = 'failed', reason = $2, updated_at = now() WHERE id = $1`, [
        p.id,
        change.reason ?? 'rail_rejected',
      ]);
    } else if (change.state === 'returned') {
      if (p.state !== 'paid' && p.state !== 'submitted') throw new Error(`a ${p.state} payment cannot be returned`);
      await db().query(`UPDATE sandbox_rail_payments SET state = 'returned', reason = $2, updated_at = now() WHERE id = $1`, [
        p.id,
        change.reason ?? 'beneficiary_account_closed',
      ]);
    }
    if (change.recipientReceived !== undefined) {
      const now = await this.get(p.id);
      if (now.state !== 'paid') throw new Error('only a paid payment can be confirmed by the recipient');
      await db().query('UPDATE sandbox_rail_payments SET recipient_received_minor = $2, updated_at = now() WHERE id = $1', [
        p.id,
        change.recipientReceived.toString(),
      ]);
    }
    return this.get(p.id);
  }
}

let rails: SandboxFiatRails | null = null;

/** The process's fiat rail adapter (sandbox). */
export function fiatRails(): SandboxFiatRails {
  if (!rails) rails = instrumentProvider('fiat_rails', new SandboxFiatRails());
  return rails;
}
