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
export async function activeCryptoLink(
  amountMinor = '10000',
  opts: { expiresAt?: Date | null } = {},
): Promise<{ creds: DevCredentials; link: PaymentLink }> {
  const creds = await provisionAccount();
  const chain = chainAdapter();
  const repo = db().getRepository(PaymentLink);
  const link = repo.create({
    id: newId('pl_'),
    account_id: creds.account_id,
    livemode: true,
    status: 'active',
    title: 'Fixture link',
    memo: null,
    invoice_number: null,
    reference_id: `CP-${crypto.randomInt(1e9)}`,
    amount_minor: amountMinor,
    currency: 'USD',
    decimals: 2,
    client_id: null,
    direction: 'inbound',
    expected_payer_type_input: null,
    allowed_rails: null,
    accepted_rail_kinds: ['crypto'],
    crypto_only: true,
    expires_at: opts.expiresAt ?? null,
    payer_email: null,
    reminder_schedule: { ...defaultReminderSchedule(), status: 'off' },
    settlement_kind: 'crypto_only',
    settlement_asset: { chain: chain.chain, asset: chain.stablecoin, token_address: chain.tokenAddress, decimals: 6 },
    settlement_destination_id: null,
    items: [],
    payer_token: `plk_${crypto.randomBytes(16).toString('hex')}`,
    short_code: newShortCode(),
    activated_at: new Date(),
    viewed_at: null,
    paid_at: null,
    settled_at: null,
    cancelled_at: null,
    expired_at: null,
    latest_attempt_status: null,
    partial_payment: null,
    invoice_sent_at: null,
    refunded_at: null,
    settlement_destination_kind: null,
  });
  await repo.save(link);
  return { creds, link };
}

/**
 * Provisions an account and inserts an active fiat_provider link of `amountMinor` in `currency`
 * settling to a bank address-book entry on `destRail` (as activation with a bank destination leaves it; issue 12).
 */
export async function activeBankLinkRow(
  destRail: string,
  currency: string,
  amountMinor: string,
  opts: { expiresAt?: Date | null } = {},
): Promise<{ creds: DevCredentials; link: PaymentLink }> {
  const creds = await provisionAccount();
  const adr = newId('adr_');
  await db().query(
    `INSERT INTO address_book_entries(id, account_id, livemode, kind, label, travel_rule_required, bank_rail, bank_currency, beneficiary_set_at)
     VALUES ($1,$2,true,'bank','Operating',false,$3,$4,now())`,
    [adr, creds.account_id, destRail, currency],
  );
  const repo = db().getRepository(PaymentLink);
  const link = repo.create({
    id: newId('pl_'),
    account_id: creds.account_id,
    livemode: true,
    status: 'active',
    title: 'Fixture bank link',
    memo: null,
    invoice_number: null,
    reference_id: `CP-${crypto.randomInt(1e9)}`,
    amount_minor: amountMinor,
    currency,
    decimals: 2,
    client_id: null,
    direction: 'inbound',
    expected_payer_type_input: null,
    allowed_rails: null,
    accepted_rail_kinds: null,
    crypto_only: false,
    expires_at: opts.expiresAt ?? null,
    payer_email: null,
    reminder_schedule: { ...defaultReminderSchedule(), status: 'off' },
    settlement_kind: 'fiat_provider',
    settlement_asset: null,
    settlement_destination_id: adr,
    items: [],
    payer_token: `plk_${crypto.randomBytes(16).toString('hex')}`,
    short_code: newShortCode(),
    activated_at: new Date(),
    viewed_at: null,
    paid_at: null,
    settled_at: null,
    cancelled_at: null,
    expired_at: null,
    latest_attempt_status: null,
    partial_payment: null,
    invoice_sent_at: null,
    refunded_at: null,
    settlement_destination_kind: 'bank',
  });
  await repo.save(link);
  return { creds, link };
}
