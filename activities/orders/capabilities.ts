/**
 * `GET /capabilities?product=buy_sell` (spec 4.6): what the quote providers cover, per fiat and
 * direction, read from a coverage snapshot. The snapshot is the providers' published coverage
 * (providers/quote-providers.ts), rebuilt at most every 60 s; a snapshot that could not be built
 * (cold) or is older than 10 minutes (stale) answers `503 temporarily_unavailable`, never a
 * guess. In the sandbox, fault `buy_sell.coverage` (`cold` or `stale`) plays a failed refresh for
 * one account. Availability is never authorization: quotes and orders re-check everything.
 */
import { DomainError } from '../../domain/errors';
import { FIAT_DECIMALS } from '../../domain/money';
import { USD_MICRO_PER_MAJOR, type QuoteSide } from '../../domain/quotes';
import { faultValue } from '../../providers/sandbox-faults';
import { QUOTE_PROVIDERS } from '../../providers/quote-providers';
import { buySellCorridorView, type BuySellCoverage } from '../../views/capabilities';
import type { AccountScope } from '../scope';

const REFRESH_MS = 60_000;
const STALE_MS = 10 * 60_000;
let snapshot: { builtAt: number; rows: BuySellCoverage[] } | null = null;

/** USD micro-units as minor units of `fiat` (rounded down). */
const fiatMinor = (usdMicro: bigint, fiat: string) => (usdMicro * 10n ** BigInt(FIAT_DECIMALS[fiat])) / USD_MICRO_PER_MAJOR[fiat];

/** Builds the coverage grid from the providers' published terms: one row per fiat and direction. */
function buildCoverage(): BuySellCoverage[] {
  const rows: BuySellCoverage[] = [];
  const fiats = [...new Set(QUOTE_PROVIDERS.flatMap((p) => p.fiats))].sort();
  for (const fiat of fiats) {
    for (const direction of ['buy', 'sell'] as QuoteSide[]) {
      const ps = QUOTE_PROVIDERS.filter((p) => p.fiats.includes(fiat) && p.sides.includes(direction));
      if (ps.length === 0) continue;
      const live = ps.filter((p) => !p.paused);
      const usable = live.length > 0 ? live : ps;
      rows.push({
        fiat,
        direction,
        providers: usable.map((p) => p.id),
        paused: ps.filter((p) => p.paused).map((p) => p.id),
        methods: [...new Set(usable.flatMap((p) => p.methods.filter((m) => m !== 'wallet_balance')))].sort(),
        networks: [...new Set(usable.flatMap((p) => p.networks))].sort(),
        cryptos: [...new Set(usable.flatMap((p) => p.cryptos))].sort(),
        minMinor: usable.map((p) => fiatMinor(p.minUsdMicro, fiat)).reduce((a, b) => (b < a ? b : a)),
        maxMinor: usable.map((p) => fiatMinor(p.maxUsdMicro, fiat)).reduce((a, b) => (b > a ? b : a)),
        executable: live.length > 0,
      });
    }
  }
  return rows;
}

/** The buy/sell capabilities document for `scope` (503 on a cold or stale snapshot). */
export async function buySellCapabilities(scope: AccountScope): Promise<Record<string, unknown>> {
  const now = Date.now();
  if (!snapshot || now - snapshot.builtAt > REFRESH_MS) snapshot = { builtAt: now, rows: buildCoverage() };
  const fault = await faultValue(scope.accountId, 'buy_sell.coverage');
  const age = fault === 'stale' ? STALE_MS + 1 : now - snapshot.builtAt;
  if (fault === 'cold' || age > STALE_MS) {
    throw new DomainError(
      'temporarily_unavailable',
      'temporarily_unavailable',
      fault === 'cold'
        ? 'The buy/sell coverage snapshot is not available yet; retry shortly.'
        : 'The buy/sell coverage snapshot is out of date; retry shortly.',
      { details: { snapshot: fault === 'cold' ? 'cold' : 'stale' } },
    );
  }
  const usd = snapshot.rows.find((r) => r.fiat === 'USD' && r.direction === 'buy');
  return {
    object: 'capabilities',
    product: 'buy_sell',
    livemode: scope.livemode,
    corridors: snapshot.rows.map(buySellCorridorView),
    primary_method: 'bank_transfer',
    resolved_limits: usd
      ? {
          min_amount: { amount: usd.minMinor.toString(), currency: 'USD', decimals: 2 },
          max_amount: { amount: usd.maxMinor.toString(), currency: 'USD', decimals: 2 },
        }
      : null,
    coverage: snapshot.rows.map((r) => ({
      fiat: r.fiat,
      direction: r.direction,
      methods: r.methods,
      networks: r.networks,
      assets: r.cryptos,
      providers: r.providers,
      executable: r.executable,
    })),
    snapshot_as_of: new Date(snapshot.builtAt).toISOString(),
  };
}
