/**
 * Capabilities (spec 4.6): what an account can execute now, per corridor or rail, for one product.
 * Each product registers its builder here (payment links and payouts now; payroll, buy/sell and
 * wallet bank join in their own areas). Availability is never authorization: create and the money
 * boundary re-check eligibility themselves.
 */
import { PAYER_FEE_CAPABILITY } from '../domain/fees';
import { CORRIDORS, corridorVerdict, PAYOUT_SOURCE_CHAINS } from '../domain/payouts/corridors';
import { payoutGate, serviceWalletChains } from '../activities/payouts/queries';
import { payrollGate } from '../activities/payroll/queries';
import { cryptoFundingVerdict, isPayrollCurrency, PAYROLL_CURRENCIES } from '../domain/payroll';
import { isBankRail, offerableCurrencyOf, RAILS_CLOSED } from '../domain/rails';
import { fiatCapMinor } from '../domain/bank-collection';
import { currencyDecimals } from '../domain/money';
import { capabilityUnavailable } from '../domain/errors';
import { chainAdapter } from '../providers/chain';
import { loadConfig } from '../lib/config';
import type { Caller } from './context';
import { executableRails } from '../lib/rails-availability';
import { corridorView, walletBankCorridorView } from '../views/capabilities';
import { collectionCurrencies } from '../activities/virtual-accounts/queries';
import { VIRTUAL_ACCOUNT_CURRENCIES, VIRTUAL_ACCOUNT_RAILS } from '../domain/virtual-accounts';
import { isFlagOpen } from '../lib/switches';
import { buySellCapabilities } from '../activities/orders/capabilities';

/** Builds the capabilities document of one product for `caller`. */
export type CapabilityBuilder = (caller: Caller) => Promise<Record<string, unknown>>;

const PRODUCTS = new Map<string, CapabilityBuilder>();

/** Registers (or replaces) the builder of `product`. */
export function registerCapabilityProduct(product: string, builder: CapabilityBuilder): void {
  PRODUCTS.set(product, builder);
}

/**
 * The capabilities document of `product` (spec 4.6). A product whose area is not deployed yet
 * answers `409 capability_unavailable` (nothing is executable for it; do not retry).
 */
export async function capabilitiesFor(product: string, caller: Caller): Promise<Record<string, unknown>> {
  const b = PRODUCTS.get(product);
  if (!b)
    throw capabilityUnavailable('capability_unavailable', `Capabilities of ${product} are not offered by this deployment.`, { product });
  return b(caller);
}

/** `GET /capabilities?product=payouts` and `GET /payouts/eligibility`: corridors and funding sources. */
export async function payoutCapabilities(caller: Caller): Promise<Record<string, unknown>> {
  const gate = await payoutGate(caller);
  const corridors = CORRIDORS.map((c) => corridorView(c, corridorVerdict(c, gate)));
  const chains = await serviceWalletChains(caller);
  const anyExecutable = corridors.some((c) => c.executable === true);
  return {
    object: 'capabilities',
    product: 'payouts',
    livemode: caller.livemode,
    corridors,
    funding_sources: [
      {
        funding_source: 'external_wallet',
        available: anyExecutable,
        reason: anyExecutable ? null : 'no_executable_corridor',
        source_chains: [...PAYOUT_SOURCE_CHAINS],
      },
      {
        funding_source: 'service_wallet',
        available: anyExecutable && chains.length > 0,
        reason: chains.length === 0 ? 'wallet_not_found' : anyExecutable ? null : 'no_executable_corridor',
        source_chains: chains,
      },
    ],
  };
}

const RAIL_LABELS: Record<string, string> = {
  crypto_native: 'USDC on the service network',
  crypto_xchain: 'USDC from another network',
  ach: 'US bank transfer (ACH)',
  wire: 'US wire transfer',
  sepa: 'SEPA transfer',
  faster_payments: 'UK Faster Payments',
  pix: 'PIX',
  spei: 'SPEI',
};

/** `GET /capabilities?product=payment_links`: payer rails and the payer fee (spec 4.6). Bank rails carry their currency and the business payer's fiat cap as `max_amount`. */
export async function paymentLinkCapabilities(caller: Caller): Promise<Record<string, unknown>> {
  const exec = new Set(await executableRails(caller.accountId));
  const chain = chainAdapter();
  const corridors = RAILS_CLOSED.map((rail) => {
    const executable = exec.has(rail);
    let blocked: string | null = null;
    if (!executable) {
      if (rail === 'crypto_xchain') blocked = loadConfig().network === 'mainnet' ? 'not_enabled' : 'xchain_requires_mainnet';
      else blocked = 'fiat_settlement_unavailable';
    }
    const sourceChains = !executable
      ? []
      : rail === 'crypto_native'
        ? [chain.chain]
        : rail === 'crypto_xchain'
          ? [...PAYOUT_SOURCE_CHAINS]
          : [];
    const currency = isBankRail(rail) ? offerableCurrencyOf(rail) : null;
    const cap = currency ? fiatCapMinor(currency, currencyDecimals(currency), 'business') : null;
    const row: Record<string, unknown> = {
      corridor_id: rail,
      currency,
      lifecycle: rail === 'crypto_native' ? 'public' : 'preview',
      public_claim_status:
        rail === 'crypto_native' ? 'live' : rail === 'crypto_xchain' ? 'unverified' : executable ? 'unverified' : 'planned',
      executable,
      source_chains: sourceChains,
      max_amount: cap !== null && currency ? { amount: cap.toString(), currency, decimals: currencyDecimals(currency) } : null,
      action: 'none',
      display_label: RAIL_LABELS[rail],
      logo_url: `https://assets.payments.example/rails/${rail}.svg`,
    };
    if (blocked) row.blocked_reason = blocked;
    return row;
  });
  return {
    object: 'capabilities',
    product: 'payment_links',
    livemode: caller.livemode,
    corridors,
    fee: { ...PAYER_FEE_CAPABILITY, rails: [...PAYER_FEE_CAPABILITY.rails] },
  };
}

/**
 * `GET /capabilities?product=payroll` (spec 4.6): `corridors` are the payout corridors in a run
 * currency (the bank rails items are paid through), and `funding_currencies[]` gives per run
 * currency `fiat_funding` and `crypto_funding`, each `{ available, reason }` (reason null when
 * available; crypto reasons of spec 4.4, fiat `account_restricted`).
 */
export async function payrollCapabilities(caller: Caller): Promise<Record<string, unknown>> {
  const [gate, pg] = await Promise.all([payoutGate(caller), payrollGate(caller)]);
  const corridors = CORRIDORS.filter((c) => isPayrollCurrency(c.currency)).map((c) => corridorView(c, corridorVerdict(c, gate)));
  const fiatOk = pg.accessState === 'active';
  return {
    object: 'capabilities',
    product: 'payroll',
    livemode: caller.livemode,
    corridors,
    funding_currencies: PAYROLL_CURRENCIES.map((currency) => ({
      currency,
      fiat_funding: { available: fiatOk, reason: fiatOk ? null : 'account_restricted' },
      crypto_funding: cryptoFundingVerdict(currency, { switchOn: pg.cryptoSwitchOn, verified: pg.verified }),
    })),
  };
}

/**
 * `GET /capabilities?product=wallet_bank` (spec 4.6): one `wallet_bank_virtual_account` corridor
 * per virtual-account currency; blocked `collection_account_uses_currency` (`action: none`) where
 * a collection account already receives the currency, `not_enabled` when the virtual-account flag
 * is closed for the account.
 */
export async function walletBankCapabilities(caller: Caller): Promise<Record<string, unknown>> {
  const [open, collected] = await Promise.all([isFlagOpen('wallet.virtual_accounts', caller.accountId), collectionCurrencies(caller)]);
  const corridors = VIRTUAL_ACCOUNT_CURRENCIES.map((c) =>
    walletBankCorridorView(
      c,
      VIRTUAL_ACCOUNT_RAILS[c],
      collected.has(c) ? 'collection_account_uses_currency' : open ? null : 'not_enabled',
    ),
  );
  return { object: 'capabilities', product: 'wallet_bank', livemode: caller.livemode, corridors };
}

registerCapabilityProduct('payouts', payoutCapabilities);
registerCapabilityProduct('wallet_bank', walletBankCapabilities);
registerCapabilityProduct('payroll', payrollCapabilities);
registerCapabilityProduct('payment_links', paymentLinkCapabilities);
registerCapabilityProduct('buy_sell', (caller) => buySellCapabilities({ accountId: caller.accountId, livemode: caller.livemode }));
