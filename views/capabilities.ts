/**
 * Capabilities projections (spec 4.6): one corridor row of `GET /capabilities?product=payouts` and
 * `GET /payouts/eligibility`, and the response schemas of the corridor row and the capabilities document.
 */
import Joi from 'joi';
import type { Corridor, CorridorVerdict } from '../domain/payouts/corridors';
import { moneyOut } from './schema';
import { currencyDecimals } from '../domain/money';
import type { CapabilitiesGet } from './wire';

const nMoney = moneyOut.allow(null);

/** One corridor row as the document serves it. */
export type CorridorWire = CapabilitiesGet['corridors'][number];

/** One corridor row of `GET /capabilities?product=payouts` and `GET /payouts/eligibility` (spec 4.6). */
export function corridorView(corridor: Corridor, corridorVerdict: CorridorVerdict): CorridorWire {
  const row: CorridorWire = {
    corridor_id: corridor.id,
    currency: corridor.currency,
    fiat_rail: corridor.fiat_rail,
    lifecycle: corridor.lifecycle,
    public_claim_status: corridor.public_claim_status,
    executable: corridorVerdict.executable,
    source_chains: corridorVerdict.executable
      ? [...corridor.source_chains]
      : corridor.lifecycle === 'blocked'
        ? []
        : [...corridor.source_chains],
    max_amount: { amount: corridor.max_minor.toString(), currency: corridor.currency, decimals: corridor.decimals },
    minimum: { amount: corridor.min_minor.toString(), currency: corridor.currency, decimals: corridor.decimals },
    eta_seconds: corridor.lifecycle === 'blocked' ? null : corridor.eta_seconds,
    action: corridorVerdict.action,
    display_label: corridor.display_label,
    logo_url: corridor.logo_url,
  };
  if (!corridorVerdict.executable) row.blocked_reason = corridorVerdict.blocked_reason;
  return row;
}

/**
 * One `wallet_bank_virtual_account` row of `GET /capabilities?product=wallet_bank` (spec 4.6): a
 * virtual account of `currency` funding the wallet; `blocked_reason` when not executable
 * (`collection_account_uses_currency` with `action: none`, or `not_enabled`).
 */
export function walletBankCorridorView(currency: string, rails: readonly string[], blockedReason: string | null): CorridorWire {
  const row: CorridorWire = {
    corridor_id: 'wallet_bank_virtual_account',
    currency,
    fiat_rail: rails[0] ?? null,
    lifecycle: 'public',
    public_claim_status: 'live',
    executable: blockedReason === null,
    source_chains: [],
    max_amount: null,
    eta_seconds: null,
    action: blockedReason === null ? 'create_virtual_account' : 'none',
    display_label: `${currency} bank account (${rails.join(', ')}) to wallet`,
    logo_url: `https://assets.payments.example/rails/${rails[0]}.svg`,
  };
  if (blockedReason !== null) row.blocked_reason = blockedReason;
  return row;
}

/** One fiat and direction of the buy/sell coverage snapshot (activities/orders/capabilities.ts); amounts in minor units of `fiat`. */
export interface BuySellCoverage {
  fiat: string;
  direction: 'buy' | 'sell' | 'swap';
  providers: string[];
  paused: string[];
  methods: string[];
  networks: string[];
  cryptos: string[];
  minMinor: bigint;
  maxMinor: bigint;
  executable: boolean;
}

/** One corridor row of `GET /capabilities?product=buy_sell` (spec 4.6): `buy_sell.<direction>.<fiat>`. */
export function buySellCorridorView(buySellCoverage: BuySellCoverage): CorridorWire {
  const decimals = currencyDecimals(buySellCoverage.fiat);
  const row: CorridorWire = {
    corridor_id: `buy_sell.${buySellCoverage.direction}.${buySellCoverage.fiat}`,
    currency: buySellCoverage.fiat,
    fiat_rail: null,
    lifecycle: 'public',
    public_claim_status: 'live',
    executable: buySellCoverage.executable,
    source_chains: buySellCoverage.executable ? buySellCoverage.networks : [],
    max_amount: { amount: buySellCoverage.maxMinor.toString(), currency: buySellCoverage.fiat, decimals },
    minimum: { amount: buySellCoverage.minMinor.toString(), currency: buySellCoverage.fiat, decimals },
    eta_seconds: null,
    action: buySellCoverage.executable ? 'quote' : 'none',
    display_label: `${buySellCoverage.direction === 'buy' ? 'Buy crypto with' : 'Sell crypto for'} ${buySellCoverage.fiat}`,
    logo_url: `https://assets.payments.example/buy_sell/${buySellCoverage.fiat.toLowerCase()}.svg`,
  };
  if (!buySellCoverage.executable) row.blocked_reason = 'provider_paused';
  return row;
}

/** One corridor row (spec 4.6). */
export const corridorResponse = Joi.object({
  corridor_id: Joi.string().required(),
  currency: Joi.string().allow(null),
  fiat_rail: Joi.string().allow(null),
  lifecycle: Joi.string().valid('public', 'preview', 'blocked').required(),
  public_claim_status: Joi.string().valid('live', 'unverified', 'planned').required(),
  executable: Joi.boolean().required(),
  blocked_reason: Joi.string(),
  source_chains: Joi.array().items(Joi.string()).required(),
  max_amount: nMoney.required(),
  minimum: nMoney,
  eta_seconds: Joi.number().integer().allow(null),
  action: Joi.string().required(),
  display_label: Joi.string().required(),
  logo_url: Joi.string().required(),
});

/** The capabilities document (spec 4.6) of `payment_links` or `payouts`, and `GET /payouts/eligibility`. */
export const capabilitiesResponse = Joi.object({
  object: Joi.string().valid('capabilities').required(),
  product: Joi.string().required(),
  livemode: Joi.boolean().required(),
  corridors: Joi.array().items(corridorResponse).required(),
  fee: Joi.object({
    kind: Joi.string().required(),
    bps: Joi.number().integer().required(),
    applies_to: Joi.string().required(),
    rails: Joi.array().items(Joi.string()).required(),
    rounding: Joi.string().required(),
    rounding_decimals: Joi.number().integer().required(),
  }),
  funding_currencies: Joi.array().items(
    Joi.object({
      currency: Joi.string().required(),
      fiat_funding: Joi.object({ available: Joi.boolean().required(), reason: Joi.string().allow(null).required() }).required(),
      crypto_funding: Joi.object({ available: Joi.boolean().required(), reason: Joi.string().allow(null).required() }).required(),
    }),
  ),
  primary_method: Joi.string(),
  resolved_limits: Joi.object({ min_amount: moneyOut.required(), max_amount: moneyOut.required() }).allow(null),
  coverage: Joi.array().items(
    Joi.object({
      fiat: Joi.string().required(),
      direction: Joi.string().valid('buy', 'sell').required(),
      methods: Joi.array().items(Joi.string()).required(),
      networks: Joi.array().items(Joi.string()).required(),
      assets: Joi.array().items(Joi.string()).required(),
      providers: Joi.array().items(Joi.string()).required(),
      executable: Joi.boolean().required(),
    }),
  ),
  snapshot_as_of: Joi.string().isoDate(),
  funding_sources: Joi.array().items(
    Joi.object({
      funding_source: Joi.string().valid('external_wallet', 'service_wallet').required(),
      available: Joi.boolean().required(),
      reason: Joi.string().allow(null).required(),
      source_chains: Joi.array().items(Joi.string()).required(),
    }),
  ),
});
