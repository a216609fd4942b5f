/**
 * Bank-rail helpers for HTTP tests (issue 12): a merchant with a bank address-book entry on the
 * rail of a currency, an activated link settling to it, the payer session calls and the
 * `/sim/bank/credits` call that delivers an inbound bank transfer.
 */
import type { DevCredentials } from '../../activities/accounts/commands';
import { call, client, expectOk, newAccount } from './api';

/** One valid beneficiary per settlement rail (the merchant's own bank account). */
export const BENEFICIARY: Record<string, Record<string, string>> = {
  ach: { rail: 'ach', account_number: '000123456789', routing_number: '021000021' },
  wire: { rail: 'wire', account_number: '987654321', routing_number: '021000021' },
  sepa: { rail: 'sepa', iban: 'DE89370400440532013000', bic: 'DEUTDEFF' },
  faster_payments: { rail: 'faster_payments', account_number: '12345678', sort_code: '12-34-56' },
  pix: { rail: 'pix', pix_key: '+5511912345678' },
  spei: { rail: 'spei', clabe: '032180000118359719' },
};

/** Currency and decimals of each bank rail. */
export const RAIL_CURRENCY: Record<string, { currency: string; decimals: number }> = {
  ach: { currency: 'USD', decimals: 2 },
  wire: { currency: 'USD', decimals: 2 },
  sepa: { currency: 'EUR', decimals: 2 },
  faster_payments: { currency: 'GBP', decimals: 2 },
  pix: { currency: 'BRL', decimals: 2 },
  spei: { currency: 'MXN', decimals: 2 },
};

/** A bank address-book entry of the account (dashboard session) with its details on `rail`; returns its `adr_` id. */
export async function bankDestination(creds: DevCredentials, rail: string): Promise<string> {
  const ses = client(creds.session_token);
  const e = expectOk(await ses.post('/v1/address_book', { kind: 'bank', label: `Operating ${rail}` }), 201);
  expectOk(
    await ses.post(`/v1/address_book/${e.id}/beneficiary`, {
      account_owner_type: 'business',
      account_holder_name: 'Acme Ltd',
      ...BENEFICIARY[rail],
    }),
  );
  return e.id;
}

/** An active link of `amount` minor units in the currency of `destRail`, settling to a bank entry on `destRail`. */
export async function activeBankLink(
  destRail: string,
  amount: string,
  opts: { creds?: DevCredentials; extra?: Record<string, unknown> } = {},
) {
  const creds = opts.creds ?? (await newAccount());
  const api = client(creds.live_key);
  const dest = await bankDestination(creds, destRail);
  const { currency, decimals } = RAIL_CURRENCY[destRail];
  const l = expectOk(
    await api.post('/v1/payment_links', {
      amount: { amount, currency, decimals },
      title: `Invoice on ${destRail}`,
      settlement_destination: { address_book_id: dest },
      ...(opts.extra ?? {}),
    }),
    201,
  );
  const a = expectOk(await api.post(`/v1/payment_links/${l.id}/activate`, { attestation_accepted: true }));
  return { creds, api, link: a, dest, token: String(a.url).split('/pay/')[1] };
}

/** A payer session call (no key, no Idempotency-Key). */
export const session = (token: string, suffix = '', body?: unknown) =>
  call(body === undefined ? 'GET' : 'POST', `/v1/payment_sessions/${token}${suffix}`, body, { idem: null });

/** The account a payer sends to, as `/sim/bank/credits` takes it, from the payment's instructions. */
export function toAccountOf(bdi: Record<string, string | null>): string {
  switch (bdi.rail) {
    case 'sepa':
      return String(bdi.iban);
    case 'faster_payments':
      return `${bdi.sort_code} ${bdi.account_number}`;
    case 'pix':
      return String(bdi.pix_key);
    case 'spei':
      return String(bdi.clabe);
    default:
      return String(bdi.account_number);
  }
}

/** Delivers an inbound bank transfer of `amount` minor units to the instructions `bdi` (with their reference unless given). */
export async function bankCredit(bdi: Record<string, string | null>, amount: string, extra: Record<string, unknown> = {}) {
  return call(
    'POST',
    '/sim/bank/credits',
    {
      rail: bdi.rail,
      currency: bdi.currency,
      amount,
      reference: bdi.reference,
      to_account: toAccountOf(bdi),
      ...extra,
    },
    { idem: null },
  );
}
