/**
 * Which payer rails this deployment can execute now for an account (spec 2.3 `payable_rails`,
 * 4.6): the native rail always; the cross-network rail only on mainnet with its launch flag open
 * (`xchain_requires_mainnet`); the bank rails (ach, wire, sepa, faster_payments, pix, spei) through
 * the inbound collection provider. Also builds the
 * context a payment link projection needs (views/payment-link.ts `LinkViewContext`).
 */
import type { LinkViewContext } from '../views/payment-link';
import { BANK_RAILS } from '../domain/rails';
import { loadConfig } from './config';
import { isFlagOpen } from './switches';

/** Executable rail names for `accountId`, in RAILS_CLOSED order. Reads the flag tables. */
export async function executableRails(accountId: string): Promise<string[]> {
  const rails = ['crypto_native'];
  if (loadConfig().network === 'mainnet' && (await isFlagOpen('payment_links.crypto_xchain', accountId))) rails.push('crypto_xchain');
  // Bank rails collect through the inbound fiat collection provider and settle through the fiat rail adapter.
  rails.push(...BANK_RAILS);
  return rails;
}

/**
 * The LinkViewContext of `accountId`: payer host from config; executable rails as
 * `executableRails` (spec 2.3, 4.6). Reads the flag tables.
 */
export async function linkViewContext(accountId: string): Promise<LinkViewContext> {
  return { payerHost: loadConfig().payerHost, executableRails: await executableRails(accountId) };
}
