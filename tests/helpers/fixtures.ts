/**
 * Row fixtures for workflow tests (real PostgreSQL): an active crypto-only payment link of a freshly
 * provisioned account, inserted the way activation leaves it.
 */
import crypto from 'node:crypto';
import { provisionAccount, type DevCredentials } from '../../activities/accounts/commands';
import { defaultReminderSchedule } from '../../domain/reminders';
import { PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import { newId, newShortCode } from '../../lib/ids';
import { chainAdapter } from '../../providers/chain';

/** Provisions an account and inserts an active crypto-only USD link of `amountMinor` cents. */
export async function activeCryptoLink(amountMinor = '10000', opts: { expiresAt?: Date | null } = {}): Promise<{ creds: DevCredentials; link: PaymentLink }> {
  const creds = await provisionAccount();
  const chain = chainAdapter();
  const repo = db().getRepository(PaymentLink);
  const link = repo.create({
    id: newId('pl_'), account_id: creds.account_id, livemode: true, status: 'active', title: 'Fixture link', memo: null,
    invoice_number: null, reference_id: `CP-${crypto.randomInt(1e9)}`, amount_minor: amountMinor, currency: 'USD', decimals: 2,
    client_id: null, direction: 'inbound', expected_payer_type_input: null, allowed_rails: null, accepted_rail_kinds: ['crypto'],
    crypto_only: true, expires_at: opts.expiresAt ?? null, payer_email: null, reminder_schedule: { ...defaultReminderSchedule(), status: 'off' },
    settlement_kind: 'crypto_only', settlement_asset: { chain: chain.chain, asset: chain.stablecoin, token_address: chain.tokenAddress, decimals: 6 },
    settlement_destination_id: null, items: [], payer_token: `plk_${crypto.randomBytes(16).toString('hex')}`, short_code: newShortCode(),
    activated_at: new Date(), viewed_at: null, paid_at: null, settled_at: null, cancelled_at: null, expired_at: null,
    latest_attempt_status: null, partial_payment: null, invoice_sent_at: null, refunded_at: null, settlement_destination_kind: null,
  });
  await repo.save(link);
  return { creds, link };
}
