/**
 * Quote providers (ARCHITECTURE.md "providers/"; spec 4.9): the fan-out behind `POST /quotes`.
 * Five sandbox providers, each with its own pricing, fees, limits, countries, payment methods and
 * networks (domain/quotes.ts `ProviderPricing`): `native_fiat` (the service's own fiat provider:
 * bank rails, USDC on the service network; its observed `payment_rail` is published on orders),
 * `rampline` (cards and bank, needs a network), `coinvia` (cards and local rails, delivers crypto in
 * steps of 0.01), `swapworks` (swaps only) and `harbor` (always paused: reported, never offered).
 *
 * `quoteAll` calls every provider in parallel, each under its own deadline: a slow or failing
 * provider is reported (`timed_out`, `failed`) and never holds the quote past the deadline.
 * Sandbox latency and failure rate per provider and per account come from the simulator's faults
 * (`POST /sim/providers/faults`, names `quotes.<provider>.latency_ms` and
 * `quotes.<provider>.failure_rate` (0 to 1)); without them each provider answers after its
 * documented default latency.
 */
import { priceOffer, type NoOffer, type PricedOffer, type ProviderPricing, type QuoteTerms } from '../domain/quotes';
import { faultValues } from './sandbox-faults';
import { QUOTE_PROVIDER_SANDBOX } from './sandbox-values';
import { observeProviderCall } from '../lib/metrics';

/** A provider as published on offers and orders: identity and limits (USD micro-units). */
export interface QuoteProvider extends ProviderPricing {
  name: string;
  /** Always reported `paused` (spec 4.9 rule 4); sandbox behaviour from providers/sandbox-values.ts. */
  paused: boolean;
  /** The service's own fiat provider (publishes `payment_rail` on orders). */
  native: boolean;
  /** Sandbox answer latency without a fault, ms. */
  defaultLatencyMs: number;
}

const EU = ['DE', 'FR', 'ES', 'IT', 'NL', 'IE', 'PT', 'BE', 'AT'];

/** The sandbox providers, in fan-out order. */
export const QUOTE_PROVIDERS: readonly QuoteProvider[] = Object.freeze([
  {
    id: 'native_fiat',
    name: 'Native fiat',
    ...QUOTE_PROVIDER_SANDBOX.native_fiat,
    native: true,
    sides: ['buy', 'sell'],
    fiats: ['USD', 'EUR', 'GBP', 'BRL', 'MXN'],
    cryptos: ['USDC'],
    methods: ['bank_transfer', 'pix', 'spei'],
    networks: ['tempo'],
    countries: ['US', 'GB', 'BR', 'MX', ...EU],
    requiresNetwork: false,
    feeBps: 50n,
    fixedFeeUsdMicro: 0n,
    spreadBps: 0n,
    minUsdMicro: 10_000_000n,
    maxUsdMicro: 100_000_000_000n,
    outputDigits: null,
  },
  {
    id: 'rampline',
    name: 'Rampline',
    ...QUOTE_PROVIDER_SANDBOX.rampline,
    native: false,
    sides: ['buy', 'sell'],
    fiats: ['USD', 'EUR', 'GBP'],
    cryptos: ['USDC', 'USDT', 'ETH'],
    methods: ['card', 'apple_pay', 'bank_transfer'],
    networks: ['ethereum', 'base', 'polygon', 'arbitrum', 'optimism', 'solana'],
    countries: ['US', 'GB', 'CA', 'AU', ...EU],
    requiresNetwork: true,
    feeBps: 250n,
    fixedFeeUsdMicro: 990_000n,
    spreadBps: 50n,
    minUsdMicro: 20_000_000n,
    maxUsdMicro: 20_000_000_000n,
    outputDigits: null,
  },
  {
    id: 'coinvia',
    name: 'Coinvia',
    ...QUOTE_PROVIDER_SANDBOX.coinvia,
    native: false,
    sides: ['buy', 'sell', 'swap'],
    fiats: ['USD', 'EUR', 'BRL', 'MXN', 'JPY', 'KWD'],
    cryptos: ['USDC', 'USDT', 'ETH'],
    methods: ['card', 'bank_transfer', 'pix', 'spei', 'wallet_balance'],
    networks: ['ethereum', 'base', 'polygon'],
    countries: ['US', 'BR', 'MX', 'JP', 'KW', 'CO', ...EU],
    requiresNetwork: false,
    feeBps: 150n,
    fixedFeeUsdMicro: 0n,
    spreadBps: 80n,
    minUsdMicro: 5_000_000n,
    maxUsdMicro: 50_000_000_000n,
    outputDigits: 2,
  },
  {
    id: 'swapworks',
    name: 'Swapworks',
    ...QUOTE_PROVIDER_SANDBOX.swapworks,
    native: false,
    sides: ['swap'],
    fiats: [],
    cryptos: ['USDC', 'USDT', 'ETH'],
    methods: ['wallet_balance'],
    networks: ['ethereum', 'base', 'arbitrum', 'optimism', 'polygon'],
    countries: ['US', 'GB', 'CA', 'AU', 'JP', 'BR', 'MX', ...EU],
    requiresNetwork: false,
    feeBps: 30n,
    fixedFeeUsdMicro: 0n,
    spreadBps: 20n,
    minUsdMicro: 1_000_000n,
    maxUsdMicro: 1_000_000_000_000n,
    outputDigits: null,
  },
  {
    id: 'harbor',
    name: 'Harbor',
    ...QUOTE_PROVIDER_SANDBOX.harbor,
    native: false,
    sides: ['buy', 'sell'],
    fiats: ['USD', 'EUR'],
    cryptos: ['USDC'],
    methods: ['bank_transfer', 'card'],
    networks: ['ethereum', 'base'],
    countries: ['US', ...EU],
    requiresNetwork: false,
    feeBps: 100n,
    fixedFeeUsdMicro: 0n,
    spreadBps: 10n,
    minUsdMicro: 10_000_000n,
    maxUsdMicro: 10_000_000_000n,
    outputDigits: null,
  },
]);

/** A provider by id, or undefined. */
export function quoteProvider(id: string): QuoteProvider | undefined {
  return QUOTE_PROVIDERS.find((p) => p.id === id);
}

/** Every country some provider serves (a country outside it is refused before the fan-out). */
export const QUOTE_COUNTRIES: ReadonlySet<string> = new Set(QUOTE_PROVIDERS.filter((p) => !p.paused).flatMap((p) => p.countries));

/** One provider's terminal result (spec 4.9 `providers[]`). */
export type ProviderResult =
  | { provider: QuoteProvider; status: 'quoted'; offer: PricedOffer; latencyMs: number }
  | {
      provider: QuoteProvider;
      status: 'no_offer' | 'paused' | 'failed' | 'timed_out';
      reason: string;
      code: NoOffer['code'];
      latencyMs: number;
    };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The sandbox provider's answer after its latency (or a fault's failure). */
async function ask(p: QuoteProvider, terms: QuoteTerms, latencyMs: number, failureRate: number): Promise<PricedOffer | NoOffer> {
  if (latencyMs > 0) await sleep(latencyMs);
  if (failureRate > 0 && Math.random() < failureRate) throw new Error(`${p.id}: sandbox provider error`);
  return priceOffer(p, terms);
}

/**
 * Asks every provider for `terms` in parallel for `accountId` (sandbox faults per account), each
 * under `deadlineMs`; resolves when all have a terminal result, so at most `deadlineMs` (plus
 * scheduling). Never throws: failures and timeouts are results.
 */
export async function quoteAll(terms: QuoteTerms, accountId: string, deadlineMs: number): Promise<ProviderResult[]> {
  const faults = await faultValues(accountId, 'quotes.');
  return Promise.all(
    QUOTE_PROVIDERS.map(async (p) => {
      const t0 = process.hrtime.bigint();
      const r = await quoteOne(p, terms, faults, deadlineMs);
      if (r.status !== 'paused')
        observeProviderCall(p.id, 'quote', r.status === 'timed_out' ? 'timeout' : r.status === 'failed' ? 'error' : 'ok', t0);
      return r;
    }),
  );
}

/** One provider's answer to `terms` under `deadlineMs` (quoteAll). Never throws. */
async function quoteOne(p: QuoteProvider, terms: QuoteTerms, faults: Map<string, string>, deadlineMs: number): Promise<ProviderResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  if (p.paused) return { provider: p, status: 'paused', reason: 'provider_paused', code: 'PROVIDER_PAUSED', latencyMs: 0 };
  const latency = Number(faults.get(`quotes.${p.id}.latency_ms`) ?? p.defaultLatencyMs);
  const failureRate = Number(faults.get(`quotes.${p.id}.failure_rate`) ?? 0);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), deadlineMs);
  });
  try {
    const out = await Promise.race([
      ask(p, terms, Number.isFinite(latency) ? Math.max(0, latency) : p.defaultLatencyMs, Number.isFinite(failureRate) ? failureRate : 0),
      deadline,
    ]);
    if (out === 'timeout')
      return { provider: p, status: 'timed_out', reason: 'timeout', code: 'PROVIDER_UNAVAILABLE', latencyMs: elapsed() };
    if ('finalOut' in out) return { provider: p, status: 'quoted', offer: out, latencyMs: elapsed() };
    return { provider: p, status: 'no_offer', reason: out.reason, code: out.code, latencyMs: elapsed() };
  } catch {
    return { provider: p, status: 'failed', reason: 'provider_error', code: 'PROVIDER_ERROR', latencyMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Payment methods that would give an offer for `terms` without its pinned method (spec 4.9 rule 3
 * `alternative_methods`), from the providers' published terms (no call).
 */
export function alternativeMethods(terms: QuoteTerms): string[] {
  const out = new Set<string>();
  for (const p of QUOTE_PROVIDERS) {
    if (p.paused) continue;
    for (const m of p.methods) {
      if (m === terms.paymentMethod) continue;
      const r = priceOffer(p, { ...terms, paymentMethod: m, network: terms.network });
      if ('finalOut' in r) out.add(m);
    }
  }
  return [...out].sort();
}
