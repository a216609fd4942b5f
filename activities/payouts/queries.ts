/**
 * Payout reads the routes need (spec 4.3): a payout of the caller, its current attempt and wallet
 * send, the list query, funding instructions, the wallet funding quote and the receipt inputs.
 * Each takes `(scope, input)` (activities/scope.ts `AccountScope`) and reads through the scoped
 * finder (lib/scoped.ts). Reads only; the views (views/payout.ts) render what these return.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { conflict, DomainError } from '../../domain/errors';
import { PAYOUT_STATUS_GROUPS, type PayoutStatusGroup } from '../../domain/payouts/statuses';
import { DEFAULT_SOURCE_CHAIN, PAYOUT_SOURCE_ASSET, type CorridorGate } from '../../domain/payouts/corridors';
import { fundingQuote, walletSendEstimate } from '../../domain/payouts/pricing';
import { Payout, PayoutAttempt, Wallet, WalletSend } from '../../entities';
import { auxDb, db } from '../../lib/db';
import { accountWide, scoped } from '../../lib/scoped';
import { isFlagOpen, isSwitchOn } from '../../lib/switches';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import type { WalletFundingQuote } from '../../views/payout';
import type { AccountScope } from '../scope';
import { payoutNotFound } from './records';

/** Loads the current attempt of a payout with its prepared wallet send (if any). */
export async function currentAttempt(payout: Payout): Promise<{ attempt: PayoutAttempt | null; send: WalletSend | null }> {
  if (!payout.current_attempt_id) return { attempt: null, send: null };
  const attempt = await db().getRepository(PayoutAttempt).findOneBy({ id: payout.current_attempt_id });
  const send = attempt
    ? await db()
        .getRepository(WalletSend)
        .findOne({ where: { attempt_id: attempt.id }, order: { created_at: 'DESC' } })
    : null;
  return { attempt, send };
}

/** `GET /payouts/{id}`: the payout `id` of the scope's account and mode; 404 `not_found` (param `id`) for any other account or mode. */
export async function findPayout(scope: AccountScope, input: { id: string }): Promise<Payout> {
  return scoped(scope).getOne(Payout, { id: input.id }, () => payoutNotFound(input.id));
}

const quoted = (xs: readonly string[]) => xs.map((s) => `'${s}'`).join(',');

/** SQL predicate of a status group (spec 4.3; `needs_you` also takes any payout with needs_attention). */
function groupPredicate(g: PayoutStatusGroup): string {
  const inGroup = `p.status IN (${quoted(PAYOUT_STATUS_GROUPS[g])})`;
  return g === 'needs_you' ? `(${inGroup} OR p.needs_attention)` : inGroup;
}

/** `GET /payouts` (spec 4.3): the query (alias `p`) of the scope's payouts, optionally of one status group; the caller paginates. */
export function payoutListQuery(scope: AccountScope, input: { status_group?: PayoutStatusGroup }): SelectQueryBuilder<Payout> {
  const qb = scoped(scope).query(Payout, 'p');
  if (input.status_group) qb.andWhere(groupPredicate(input.status_group));
  return qb;
}

/** `GET /payouts/{id}/attempts`: the query (alias `a`) of the attempts of the scope's payout `id` (404 otherwise); the caller paginates. */
export async function attemptListQuery(scope: AccountScope, input: { id: string }): Promise<SelectQueryBuilder<PayoutAttempt>> {
  const p = await findPayout(scope, input);
  return db().getRepository(PayoutAttempt).createQueryBuilder('a').where('a.payout_id = :id', { id: p.id });
}

/** What views/payout.ts `fundingInstructionsView` renders. */
export interface FundingInstructions {
  payout: Payout;
  attempt: PayoutAttempt;
  send: WalletSend | null;
}

/**
 * `GET /payouts/{id}/funding_instructions` (spec 2.6): the payout with its current attempt and wallet
 * send. 404 for another account's payout; 409 `funding_instructions_unavailable` before the funding
 * POST created the provider transfer.
 */
export async function loadFundingInstructions(scope: AccountScope, input: { id: string }): Promise<FundingInstructions> {
  const p = await findPayout(scope, input);
  const { attempt, send } = await currentAttempt(p);
  if (!attempt || !attempt.provider_transfer_id) {
    throw conflict(
      'funding_instructions_unavailable',
      'This payout has no funding instructions yet; confirm funding with POST /payouts/{id}/funding_instructions.',
      { status: p.status },
    );
  }
  return { payout: p, attempt, send };
}

/**
 * `GET /payouts/{id}/wallet_funding_quote` (spec 4.3): what funding from the service wallet would
 * cost (USDC minor units, domain walletSendEstimate) and whether the balance covers it; `reason` is
 * null when available. 503 `balance_unavailable` when the balance cannot be read. The quote is
 * valid 10 minutes.
 */
export async function walletFundingQuote(scope: AccountScope, input: { id: string }): Promise<WalletFundingQuote> {
  const p = await findPayout(scope, input);
  const { attempt } = await currentAttempt(p);
  const chain = attempt?.source_chain ?? p.source_chain ?? DEFAULT_SOURCE_CHAIN;
  const required = attempt ? BigInt(attempt.gross_minor) : fundingQuote(BigInt(p.invoice_minor), p.currency, p.decimals, p.fee_bps).gross;
  const w = await accountWide(scope.accountId).findOne(Wallet, { network: chainAdapter().network, status: 'active' });
  const estimate = walletSendEstimate(required, w?.chain === chain);
  let balance: bigint | null = null;
  if (w) {
    try {
      balance = await chainAdapter().balanceOf(w.address, PAYOUT_SOURCE_ASSET);
    } catch {
      throw new DomainError('provider_error', 'balance_unavailable', 'The wallet balance could not be read right now. Retry later.', {
        status: 503,
      });
    }
  }
  let reason: string | null = null;
  if (p.marked_sent_at) reason = 'marked_sent';
  else if (!w) reason = 'wallet_not_found';
  else if (p.status !== 'draft' && !(p.status === 'awaiting_funds' && attempt?.funding_source === 'service_wallet'))
    reason = 'payout_not_fundable';
  else if (attempt && attempt.funding_source !== 'service_wallet') reason = 'funding_source_locked';
  return {
    payout: p,
    available: reason === null,
    reason,
    sourceChain: chain,
    required,
    estimate,
    balance,
    expiresAt: new Date(Date.now() + 10 * 60 * 1000),
  };
}

/**
 * `GET /payouts/{id}/receipt` (spec 2.6): a settled payout, its attempt and the rail's provider
 * reference (live read). 409 `receipt_unavailable` until settled, never for `paid_with_shortfall`.
 */
export async function payoutReceipt(
  scope: AccountScope,
  input: { id: string },
): Promise<{ payout: Payout; attempt: PayoutAttempt; providerReference: string | null }> {
  const p = await findPayout(scope, input);
  const { attempt } = await currentAttempt(p);
  if (p.status !== 'settled' || !attempt) {
    throw conflict(
      'receipt_unavailable',
      p.status === 'paid_with_shortfall'
        ? 'A payout paid with a shortfall has no receipt.'
        : `A ${p.status} payout has no receipt yet; receipts exist once settled.`,
      { status: p.status },
    );
  }
  const ref = attempt.rail_payment_id ? (await fiatRails().get(attempt.rail_payment_id)).provider_reference : null;
  return { payout: p, attempt, providerReference: ref };
}

/**
 * The facts that gate payout corridors for the scope's account now (re-read at create and at the
 * money boundary): its access state, the `payouts.enabled` switch, the preview corridors flag.
 */
export async function payoutGate(scope: AccountScope): Promise<CorridorGate> {
  const { rows } = await auxDb().query<{ access_state: string }>('SELECT access_state FROM accounts WHERE id = $1', [scope.accountId]);
  return {
    accessState: rows[0]?.access_state ?? 'blocked',
    payoutsOpen: await isSwitchOn('payouts.enabled'),
    previewOpen: await isFlagOpen('payouts.preview_corridors', scope.accountId),
  };
}

/** Chains of the scope's account's active service wallets on this network (capabilities `funding_sources`). */
export async function serviceWalletChains(scope: AccountScope): Promise<string[]> {
  const wallets = accountWide(scope.accountId).sql(null, 1);
  const { rows } = await auxDb().query<{ chain: string }>(
    `SELECT chain FROM wallets WHERE ${wallets.where} AND network = $2 AND status = 'active'`,
    [...wallets.params, chainAdapter().network],
  );
  return rows.map((r) => r.chain);
}
