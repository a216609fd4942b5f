/**
 * Bank-rail payments of payment links (spec 2.1 BankDepositInstructions, 2.4, 4.1 payer
 * routes): creating (or reusing) the payer's bank attempt with the collection provider's receiving
 * details, and recording what the provider reports (inbound credits, returns) as rows the
 * payment's workflow then applies. Amounts are bigint minor units of the link currency.
 */
import { checkBankPayer, type PayerType } from '../../domain/bank-collection';
import { DomainError } from '../../domain/errors';
import { LIVE_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import { isLinkOpenForPayment } from '../../domain/verdicts';
import { Account, AddressBookEntry, Payment, PaymentLink } from '../../entities';
import { loadConfig } from '../../lib/config';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { scoped } from '../../lib/scoped';
import { bankCollection, type ProviderCredit } from '../../providers/bank-collection';
import { saveNewPayment } from './ledger';
import { newPaymentRow } from './new-payment';
import { signalPaymentDeposit } from './signals';
import type { Scope } from '../scope';

/** A bank attempt's deposit window: at least 7 days (bank transfers take days), never past the link's expiry. */
export const BANK_PAYMENT_MIN_WINDOW_MS = 7 * 86_400_000;

/** The payer's bank attempt on link `linkId` after joi (spec 4.1 payer route body). */
export interface BankPaymentInput {
  linkId: string;
  rail: string;
  payer_email: string | null;
  payer_type: string | null;
  payer_state: string | null;
}

/** 404 of a payer route whose link is gone (spec 4.1 payer routes). */
const sessionNotFound = () => new DomainError('not_found', 'not_found', 'No such payment session.');

/**
 * Creates the payment of link `input.linkId` of the scope (404 `No such payment session.`
 * otherwise) on bank `input.rail`, or returns the live one on that rail (spec 4.1:
 * "a live attempt on the same rail returns existing instructions"). Checks the payer (domain
 * `checkBankPayer`: 409 capability_unavailable `fiat_cap_exceeded` / `payer_state_unsupported`,
 * 400 param `payer_state`); `payer_type` defaults to `individual`. The collection provider issues
 * the receiving details (idempotent by payment id); total due = the invoice (no payer fee on bank
 * rails). Emits `payment.created`, `payment.awaiting`; starts the payment workflow after commit.
 * 409 conflict `payment_link_not_payable` when the link takes no payment now.
 */
export async function createOrReuseBankPayment(scope: Scope, input: BankPaymentInput): Promise<{ payment: Payment; created: boolean }> {
  const { linkId } = input;
  const live = await liveOnRail(linkId, input.rail);
  if (live) return { payment: live, created: false };
  const link = await scoped(scope).getOne(PaymentLink, { id: linkId }, sessionNotFound);
  const account = await db().getRepository(Account).findOneByOrFail({ id: link.account_id });
  const payerType: PayerType = input.payer_type === 'business' ? 'business' : 'individual';
  checkBankPayer({
    rail: input.rail,
    currency: link.currency,
    decimals: link.decimals,
    amountMinor: BigInt(link.amount_minor),
    payerType,
    payerState: input.payer_state,
    merchantType: account.customer_type,
  });
  const id = newId('pay_');
  const issued = await bankCollection().issue({
    rail: input.rail,
    currency: link.currency,
    clientReference: id,
    holderName: account.display_name,
  });
  const result = await transaction(async (m) => {
    const locked = await scoped(scope, m).lock(PaymentLink, { id: linkId }, sessionNotFound);
    const existing = await m
      .createQueryBuilder(Payment, 'p')
      .where('p.payment_link_id = :id', { id: linkId })
      .andWhere('p.payment_rail = :rail', { rail: input.rail })
      .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
      .getOne();
    if (existing) return { payment: existing, created: false };
    if (!isLinkOpenForPayment(locked.status)) {
      throw new DomainError('conflict', 'payment_link_not_payable', `This payment link is ${locked.status} and takes no payment.`);
    }
    const dest = locked.settlement_destination_id
      ? await m.findOne(AddressBookEntry, { where: { id: locked.settlement_destination_id } })
      : null;
    const window = Math.max(loadConfig().paymentTtlSeconds * 1000, BANK_PAYMENT_MIN_WINDOW_MS);
    const expiresAt = new Date(Math.min(Date.now() + window, locked.expires_at ? locked.expires_at.getTime() : Number.MAX_SAFE_INTEGER));
    const pay = newPaymentRow(m, {
      id,
      of: { link: locked },
      rail: {
        kind: 'bank',
        rail: input.rail,
        currency: locked.currency,
        decimals: locked.decimals,
        issued,
        payerState: input.payer_state,
        settlementRail: dest?.bank_rail ?? null,
      },
      due: { invoice: locked.amount_minor, fee: '0', total: locked.amount_minor },
      settlement: dest?.kind === 'bank' ? 'bank' : null,
      settlementAddress: null,
      payerEmail: input.payer_email,
      payerType,
      expiresAt,
    });
    return saveNewPayment(m, locked, pay, scope.request);
  });
  return result;
}

async function liveOnRail(linkId: string, rail: string): Promise<Payment | null> {
  return db()
    .getRepository(Payment)
    .createQueryBuilder('p')
    .where('p.payment_link_id = :id', { id: linkId })
    .andWhere('p.payment_rail = :rail', { rail })
    .andWhere(`p.status IN (${sqlStatusList(LIVE_PAYMENT_STATUSES)})`)
    .getOne();
}

/**
 * Records an inbound credit the collection provider reported (idempotent by the provider's credit
 * id): a `bank_credits` row, `pending` when matched to a payment on the credit's rail, else
 * `recorded_only` with no payment (held for support). A matched credit signals its payment's
 * workflow (started if not running: a late credit to a closed payment still gets its verdict).
 * A credit the provider reports already returned (the sending bank returned it at once) is written
 * with its return, so the workflow never applies it as received; recordBankReturn still signals it.
 * Returns the row id and the payment id (null when unmatched).
 */
export async function recordBankCredit(
  providerCredit: ProviderCredit,
  decimals: number,
): Promise<{ creditId: string; paymentId: string | null }> {
  const rows: Array<{ id: string; account_id: string; payment_rail: string }> = providerCredit.client_reference
    ? await db().query('SELECT id, account_id, payment_rail FROM payments WHERE id = $1', [providerCredit.client_reference])
    : [];
  const p = rows[0] && rows[0].payment_rail === providerCredit.rail ? rows[0] : null;
  const id = newId('bcr_');
  const inserted: Array<{ id: string }> = await db().query(
    `INSERT INTO bank_credits(id, payment_id, provider_credit_id, rail, currency, amount_minor, decimals, reference, to_account, sender_name, effect,
                              returned_at, return_reason)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11, CASE WHEN $12::text IS NULL THEN NULL ELSE now() END, $12) ON CONFLICT (provider_credit_id) DO NOTHING RETURNING id`,
    [
      id,
      p?.id ?? null,
      providerCredit.id,
      providerCredit.rail,
      providerCredit.currency,
      providerCredit.amount.toString(),
      decimals,
      providerCredit.reference,
      providerCredit.to_account,
      providerCredit.sender_name,
      p ? 'pending' : 'recorded_only',
      providerCredit.state === 'returned' ? (providerCredit.return_reason ?? 'returned by the sending bank') : null,
    ],
  );
  const creditId =
    inserted[0]?.id ?? (await db().query('SELECT id FROM bank_credits WHERE provider_credit_id = $1', [providerCredit.id]))[0].id;
  if (p) {
    // The account now collects this currency by bank (its `collection` account; spec 4.5: a wallet virtual account for it is refused).
    await db().query(
      `INSERT INTO wallet_virtual_accounts(id, account_id, livemode, purpose, status, currency, rails)
       SELECT $1, account_id, livemode, 'collection', 'active', $2, ARRAY[$3] FROM payments WHERE id = $4
       ON CONFLICT (account_id, livemode, currency, purpose) DO NOTHING`,
      [newId('va_'), providerCredit.currency, providerCredit.rail, p.id],
    );
    await signalPaymentDeposit(p.id, p.account_id, creditId);
  }
  return { creditId, paymentId: p?.id ?? null };
}

/**
 * Records that the provider returned a credit to its sender with `reason` (provider text; spec 2.4
 * `return_reason`). Idempotent. Signals the payment's workflow with `return:<credit id>` so it
 * applies the return (domain `applyBankReturn`). Returns the payment id, or null when the credit
 * had none (or is unknown).
 */
export async function recordBankReturn(
  providerCreditId: string,
  reason: string,
): Promise<{ creditId: string | null; paymentId: string | null }> {
  const rows: Array<{ id: string; payment_id: string | null; account_id: string | null }> = await db().query(
    `WITH u AS (
       UPDATE bank_credits b SET returned_at = COALESCE(b.returned_at, now()), return_reason = COALESCE(b.return_reason, $2)
        WHERE b.provider_credit_id = $1 RETURNING b.id, b.payment_id)
     SELECT u.id, u.payment_id, p.account_id FROM u LEFT JOIN payments p ON p.id = u.payment_id`,
    [providerCreditId, reason],
  );
  const r = rows[0];
  if (!r) return { creditId: null, paymentId: null };
  if (r.payment_id && r.account_id) await signalPaymentDeposit(r.payment_id, r.account_id, `return:${r.id}`);
  return { creditId: r.id, paymentId: r.payment_id };
}
