/**
 * The payout corridor catalogue (spec 2.6, 4.3, 4.6, 9 rule 7): the source side (USDC, 6 decimals,
 * the EVM chains it is funded from), the corridor table (`CORRIDORS`, publication order, limits in
 * minor units of the corridor currency), the executable verdict of a corridor for an account
 * (`corridorVerdict`: open `blocked_reason` enum) and the invoice check against a corridor (400
 * `currency_mismatch`, `amount_invalid`). Pure.
 */
import { invalidRequest } from '../errors';
import type { Money } from '../money';

/** Source asset of every payout (spec 2.6: only USDC) and its scale. */
export const PAYOUT_SOURCE_ASSET = 'USDC';
export const USDC_DECIMALS = 6;

/** Source chains an external wallet can fund from (EVM chains with USDC). */
export const PAYOUT_SOURCE_CHAINS = Object.freeze(['base', 'ethereum', 'polygon', 'arbitrum', 'optimism'] as const);
/** `source_chain` while none was chosen (spec 2.6). */
export const DEFAULT_SOURCE_CHAIN = 'base';

/** Version of the corridor table stamped into `capability_snapshot.version` at creation (spec 2.6). */
export const CAPABILITY_VERSION = '2026-11-01';

export type CorridorId = 'usd_ach' | 'usd_wire' | 'eur_sepa' | 'gbp_faster_payments' | 'brl_pix' | 'mxn_spei' | 'cop_co_bank_transfer';

/** One row of the corridor table (spec 2.6, 4.6). Amounts in minor units of `currency`. */
export interface Corridor {
  id: CorridorId;
  currency: string;
  decimals: number;
  /** Fiat rail name as published (`faster_payments`, never `fps`; spec 9 rule 7). */
  fiat_rail: string;
  lifecycle: 'public' | 'preview' | 'blocked';
  public_claim_status: 'live' | 'unverified' | 'planned';
  /** Set on a corridor blocked by its lifecycle (never payable). */
  lifecycle_blocked_reason: string | null;
  source_chains: readonly string[];
  min_minor: bigint;
  max_minor: bigint;
  /** Typical time from funds received to the recipient's bank, seconds. */
  eta_seconds: number;
  display_label: string;
  logo_url: string;
  /** Tolerance floor in minor units of the settled check (spec 8: 10, 25 for MXN). */
  tolerance_minor_units: bigint;
}

const LOGO = (id: string) => `https://assets.payments.example/corridors/${id}.svg`;
const ALL = PAYOUT_SOURCE_CHAINS;

/** The corridor table, in publication order. */
export const CORRIDORS: readonly Corridor[] = Object.freeze([
  {
    id: 'usd_ach',
    currency: 'USD',
    decimals: 2,
    fiat_rail: 'ach',
    lifecycle: 'public',
    public_claim_status: 'live',
    lifecycle_blocked_reason: null,
    source_chains: ALL,
    min_minor: 100n,
    max_minor: 10_000_000n,
    eta_seconds: 172800,
    display_label: 'US bank account (ACH)',
    logo_url: LOGO('usd_ach'),
    tolerance_minor_units: 10n,
  },
  {
    id: 'usd_wire',
    currency: 'USD',
    decimals: 2,
    fiat_rail: 'wire',
    lifecycle: 'public',
    public_claim_status: 'live',
    lifecycle_blocked_reason: null,
    source_chains: ALL,
    min_minor: 10_000n,
    max_minor: 100_000_000n,
    eta_seconds: 86400,
    display_label: 'US bank account (wire)',
    logo_url: LOGO('usd_wire'),
    tolerance_minor_units: 10n,
  },
  {
    id: 'eur_sepa',
    currency: 'EUR',
    decimals: 2,
    fiat_rail: 'sepa',
    lifecycle: 'public',
    public_claim_status: 'live',
    lifecycle_blocked_reason: null,
    source_chains: ALL,
    min_minor: 100n,
    max_minor: 10_000_000n,
    eta_seconds: 86400,
    display_label: 'Euro bank account (SEPA)',
    logo_url: LOGO('eur_sepa'),
    tolerance_minor_units: 10n,
  },
  {
    id: 'gbp_faster_payments',
    currency: 'GBP',
    decimals: 2,
    fiat_rail: 'faster_payments',
    lifecycle: 'public',
    public_claim_status: 'live',
    lifecycle_blocked_reason: null,
    source_chains: ALL,
    min_minor: 100n,
    max_minor: 25_000_000n,
    eta_seconds: 7200,
    display_label: 'UK bank account (Faster Payments)',
    logo_url: LOGO('gbp_faster_payments'),
    tolerance_minor_units: 10n,
  },
  {
    id: 'brl_pix',
    currency: 'BRL',
    decimals: 2,
    fiat_rail: 'pix',
    lifecycle: 'preview',
    public_claim_status: 'unverified',
    lifecycle_blocked_reason: null,
    source_chains: ['base', 'ethereum', 'polygon'],
    min_minor: 1_000n,
    max_minor: 5_000_000n,
    eta_seconds: 600,
    display_label: 'Brazil (PIX)',
    logo_url: LOGO('brl_pix'),
    tolerance_minor_units: 10n,
  },
  {
    id: 'mxn_spei',
    currency: 'MXN',
    decimals: 2,
    fiat_rail: 'spei',
    lifecycle: 'preview',
    public_claim_status: 'unverified',
    lifecycle_blocked_reason: null,
    source_chains: ['base', 'ethereum', 'polygon'],
    min_minor: 2_000n,
    max_minor: 50_000_000n,
    eta_seconds: 1800,
    display_label: 'Mexico (SPEI)',
    logo_url: LOGO('mxn_spei'),
    tolerance_minor_units: 25n,
  },
  {
    id: 'cop_co_bank_transfer',
    currency: 'COP',
    decimals: 2,
    fiat_rail: 'co_bank_transfer',
    lifecycle: 'blocked',
    public_claim_status: 'planned',
    lifecycle_blocked_reason: 'corridor_blocked',
    source_chains: [],
    min_minor: 0n,
    max_minor: 0n,
    eta_seconds: 0,
    display_label: 'Colombia (bank transfer)',
    logo_url: LOGO('cop_co_bank_transfer'),
    tolerance_minor_units: 10n,
  },
] as Corridor[]);

/** Every corridor id (the closed request enum of `corridor_id`). */
export const CORRIDOR_IDS: readonly CorridorId[] = Object.freeze(CORRIDORS.map((c) => c.id));

/** The corridor `id`, or null. */
export function corridorById(id: string): Corridor | null {
  return CORRIDORS.find((c) => c.id === id) ?? null;
}

/** Account facts that decide whether a corridor is executable for it now. */
export interface CorridorGate {
  /** Account access state (spec 2.2): anything but `active` blocks every corridor. */
  accessState: string;
  /** Whether preview corridors are open to this account (launch flag). */
  previewOpen: boolean;
  /** Whether payouts are switched on at all (resource switch). */
  payoutsOpen: boolean;
}

/** Executable verdict of one corridor for an account: `blocked_reason` null exactly when executable. */
export type CorridorVerdict =
  { executable: true; blocked_reason: null; action: string } | { executable: false; blocked_reason: string; action: string };

/**
 * Whether `c` is executable now for the account described by `g` (spec 4.6; availability is
 * never authorization: callers re-check at create and at the money boundary).
 * Reasons (open enum): `corridor_blocked` (lifecycle), `payouts_disabled`, `account_restricted`,
 * `preview_not_enabled`.
 */
export function corridorVerdict(corridor: Corridor, corridorGate: CorridorGate): CorridorVerdict {
  if (corridor.lifecycle === 'blocked')
    return { executable: false, blocked_reason: corridor.lifecycle_blocked_reason ?? 'corridor_blocked', action: 'none' };
  if (!corridorGate.payoutsOpen) return { executable: false, blocked_reason: 'payouts_disabled', action: 'none' };
  if (corridorGate.accessState !== 'active') return { executable: false, blocked_reason: 'account_restricted', action: 'contact_support' };
  if (corridor.lifecycle === 'preview' && !corridorGate.previewOpen)
    return { executable: false, blocked_reason: 'preview_not_enabled', action: 'contact_support' };
  return { executable: true, blocked_reason: null, action: 'none' };
}

/**
 * Checks an invoice amount against the corridor (spec 2.6, 4.3): currency must be the corridor's
 * (400 `currency_mismatch`, param `invoice_amount`), and the amount within [minimum, max_amount]
 * (400 `amount_invalid` with `details.minimum` / `details.max_amount` as Money).
 */
export function checkInvoiceAmount(corridor: Corridor, invoice: Money, minor: bigint): void {
  if (invoice.currency !== corridor.currency) {
    throw invalidRequest(
      'currency_mismatch',
      `Corridor ${corridor.id} pays in ${corridor.currency}, not ${invoice.currency}.`,
      'invoice_amount',
      { corridor_id: corridor.id, currency: corridor.currency },
    );
  }
  const mk = (v: bigint): Money => ({ amount: v.toString(), currency: corridor.currency, decimals: corridor.decimals });
  if (minor < corridor.min_minor)
    throw invalidRequest(
      'amount_invalid',
      `The minimum for ${corridor.id} is ${mk(corridor.min_minor).amount} minor units.`,
      'invoice_amount',
      { minimum: mk(corridor.min_minor) },
    );
  if (minor > corridor.max_minor)
    throw invalidRequest(
      'amount_invalid',
      `The maximum for ${corridor.id} is ${mk(corridor.max_minor).amount} minor units.`,
      'invoice_amount',
      { max_amount: mk(corridor.max_minor) },
    );
}
