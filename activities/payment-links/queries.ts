/**
 * Reads the payment link and payer session routes need (spec 4.1): the caller's link (404 for any
 * other account or mode), the list query with its status-group filters and `expand=summary`
 * counts, the receipt's paid payment, and the payer session's link (by token or short code) with
 * what its projection needs.
 */
import { chainAdapter } from '../../providers/chain';
import type { PaymentChain } from '../../views/payment';
import type { SelectQueryBuilder } from 'typeorm';
import { conflict, DomainError } from '../../domain/errors';
import { normalizeShortCode } from '../../domain/ids';
import { PAID_PAYMENT_STATUSES, sqlStatusList } from '../../domain/payments';
import {
  LINK_STATUS_GROUP_NAMES,
  LINK_STATUS_GROUPS,
  linkStatusGroups,
  NEEDS_ATTENTION_STATUS,
  type LinkStatusGroup,
} from '../../domain/verdicts';
import { Account, Payment, PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import { executableRails } from '../../lib/rails-availability';
import { likeContains } from '../../lib/sql';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';
import { linkNotFound } from './lookups';

/**
 * The caller's link `input.id` (404 param `id` for any other account or mode). A plain parameterized
 * select: the driver already returns the entity's column types (bigint as string, timestamptz as
 * Date, jsonb parsed), so the hot read path skips the query builder and entity hydration.
 */
export async function getLink(scope: AccountScope, input: { id: string }): Promise<PaymentLink> {
  const own = scoped(scope).sql(null, 2);
  const rows: PaymentLink[] = await db().query(`SELECT * FROM payment_links WHERE id = $1 AND ${own.where}`, [input.id, ...own.params]);
  if (!rows[0]) throw linkNotFound(input.id);
  return rows[0];
}

/** SQL predicate of a status group (spec 4.1; `needs_attention` = processing with a partial payment). */
function groupPredicate(alias: string, g: LinkStatusGroup): string {
  if (g === 'needs_attention') return `(${alias}.status = '${NEEDS_ATTENTION_STATUS}' AND ${alias}.partial_payment IS NOT NULL)`;
  return `${alias}.status IN (${sqlStatusList(LINK_STATUS_GROUPS[g])})`;
}

/** The expression of the trigram index on title, memo and invoice number (migration 1764610000000), alias `l`. */
const LINK_TEXT_SQL = "(l.title || E'\\n' || coalesce(l.memo, '') || E'\\n' || coalesce(l.invoice_number, ''))";

/** Filters of `GET /payment_links` after joi (spec 4.1). */
export interface LinkFilters {
  status_group?: LinkStatusGroup;
  q?: string;
  client_id?: string;
  settlement_kind?: string;
}

/** `summary` of `GET /payment_links?expand=summary`: counts per status group (buckets overlap) and `total`. */
export interface LinkSummary {
  by_status_group: Record<LinkStatusGroup, number>;
  total: number;
}

/** The scope's links (alias `l`) with the list filters of spec 4.1 (never cursor/limit). */
function applyFilters(scope: AccountScope, f: LinkFilters): SelectQueryBuilder<PaymentLink> {
  const qb = scoped(scope).query(PaymentLink, 'l');
  if (f.status_group) qb.andWhere(groupPredicate('l', f.status_group));
  // The joined text's ILIKE is implied by any column's (each column is a substring of it) and is
  // what the trigram index payment_links_text_trgm_idx answers; the columns' ILIKE keeps the match exact.
  if (f.q)
    qb.andWhere(`(${LINK_TEXT_SQL} ILIKE :q AND (l.title ILIKE :q OR l.memo ILIKE :q OR l.invoice_number ILIKE :q))`, {
      q: likeContains(f.q),
    });
  if (f.client_id) qb.andWhere('l.client_id = :cid', { cid: f.client_id });
  // A crypto-only draft has a null settlement_kind and so matches neither value (spec 4.1).
  if (f.settlement_kind) qb.andWhere('l.settlement_kind = :sk', { sk: f.settlement_kind });
  return qb;
}

/**
 * `summary` by counting every matching link (alias `l`): the answer for filters the counters do not
 * key (`q`, `client_id`), and the reference the counters are checked against.
 */
export async function linkSummaryByScan(scope: AccountScope, linkFilters: LinkFilters): Promise<LinkSummary> {
  const qb = applyFilters(scope, linkFilters).select('count(*)::int', 'total');
  for (const g of LINK_STATUS_GROUP_NAMES) qb.addSelect(`(count(*) FILTER (WHERE ${groupPredicate('l', g)}))::int`, g);
  const row = (await qb.getRawOne()) as Record<string, number>;
  return {
    by_status_group: { open: row.open, needs_attention: row.needs_attention, paid: row.paid, ended: row.ended },
    total: row.total,
  };
}

/**
 * `summary` from `payment_link_counts` (decision 0077): triggers (migration 1764610000000;
 * statement-level since 1764660000000, decision 0089) keep one count per (status, partial payment
 * present, settlement kind) in the writing transaction, so this reads at most a few hundred rows
 * whatever the account's size. Only for filters those keys carry (`status_group`,
 * `settlement_kind`); the same numbers as `linkSummaryByScan`.
 */
export async function linkSummaryFromCounts(
  scope: AccountScope,
  linkFilters: Pick<LinkFilters, 'status_group' | 'settlement_kind'>,
): Promise<LinkSummary> {
  const own = scoped(scope).sql(null, 1);
  const params: unknown[] = [...own.params];
  let where = own.where;
  if (linkFilters.settlement_kind) {
    params.push(linkFilters.settlement_kind);
    where += ` AND settlement_kind = $${params.length}`;
  }
  const rows: Array<{ status: string; has_partial: boolean; n: string }> = await db().query(
    `SELECT status, has_partial, sum(n)::text AS n FROM payment_link_counts WHERE ${where} GROUP BY status, has_partial`,
    params,
  );
  const out: LinkSummary = { by_status_group: { open: 0, needs_attention: 0, paid: 0, ended: 0 }, total: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    if (n === 0) continue;
    const groups = linkStatusGroups(r.status, r.has_partial);
    if (linkFilters.status_group && !groups.includes(linkFilters.status_group)) continue;
    out.total += n;
    for (const g of groups) out.by_status_group[g] += n;
  }
  return out;
}

/**
 * `GET /payment_links` (spec 4.1): the filtered query of the caller's links (alias `l`, for the
 * route's pagination) and a `summary()` of every matching row per status group (from the counters
 * when the filters allow, else by counting).
 */
export function listLinks(
  scope: AccountScope,
  linkFilters: LinkFilters,
): { query: SelectQueryBuilder<PaymentLink>; summary: () => Promise<LinkSummary> } {
  const summary = () =>
    linkFilters.q || linkFilters.client_id ? linkSummaryByScan(scope, linkFilters) : linkSummaryFromCounts(scope, linkFilters);
  return { query: applyFilters(scope, linkFilters), summary };
}

/**
 * The receipt of the caller's link `input.id` (spec 4.1 `GET /payment_links/{id}/receipt`): the link
 * and its latest paid payment (or null). 404 for another link; 409 conflict
 * `payment_link_not_paid` unless the link is paid or settled.
 */
export async function getLinkReceipt(scope: AccountScope, input: { id: string }): Promise<{ link: PaymentLink; paid: Payment | null }> {
  const link = await getLink(scope, input);
  if (link.status !== 'paid' && link.status !== 'settled') {
    throw conflict('payment_link_not_paid', `A receipt exists only for a paid or settled link; this one is ${link.status}.`);
  }
  const paid = await scoped(scope)
    .query(Payment, 'p')
    .andWhere('p.payment_link_id = :id', { id: link.id })
    .andWhere(`p.status IN (${sqlStatusList(PAID_PAYMENT_STATUSES)})`)
    .orderBy('p.paid_at', 'DESC', 'NULLS LAST')
    .addOrderBy('p.created_at', 'DESC')
    .getOne();
  return { link, paid: paid ?? null };
}

// ---------------------------------------------------------------------------------------
// Payer session (spec 4.1 payer routes; a test-mode link is 404 there)

function sessionNotFound(): DomainError {
  return new DomainError('not_found', 'not_found', 'No such payment session.');
}

/** The live-mode link of payer token `plk_...`; 404 `No such payment session.` otherwise. */
export async function linkByPayerToken(token: string): Promise<PaymentLink> {
  if (!/^plk_[A-Za-z0-9]+$/.test(token)) throw sessionNotFound();
  const link = await db().getRepository(PaymentLink).findOneBy({ payer_token: token });
  if (!link || !link.livemode) throw sessionNotFound();
  return link;
}

/** The activated live-mode link of a short code (normalized, domain/ids.ts); 404 otherwise. */
export async function linkByShortCode(code: string): Promise<PaymentLink & { payer_token: string }> {
  const normalized = normalizeShortCode(code);
  if (!normalized) throw sessionNotFound();
  const link = await db().getRepository(PaymentLink).findOneBy({ short_code: normalized });
  if (!link || !link.livemode || !link.payer_token) throw sessionNotFound();
  return link as PaymentLink & { payer_token: string };
}

/** What the payer session projection (views/payer-session.ts) needs besides the link. */
export interface PayerSessionInputs {
  link: PaymentLink;
  account: Account;
  current: Payment | null;
  executableRails: string[];
  chain: PaymentChain;
}

/**
 * The merchant account, the link's newest payment and the executable rails (and the native chain's
 * identity). The link is read again with its newest payment in one REPEATABLE READ snapshot, so a
 * payment's status and the link status it moved in the same transaction are never seen apart
 * (a payment `underpaid` with its link still `viewed`).
 */
export async function payerSessionInputs(link: PaymentLink): Promise<PayerSessionInputs> {
  const snapshot = db().transaction('REPEATABLE READ', async (m) => {
    const fresh = await m.findOneByOrFail(PaymentLink, { id: link.id });
    const current = await m
      .createQueryBuilder(Payment, 'p')
      .where('p.payment_link_id = :id', { id: link.id })
      .orderBy('p.created_at', 'DESC')
      .getOne();
    return { fresh, current };
  });
  const [account, { fresh, current }, rails] = await Promise.all([
    db().getRepository(Account).findOneByOrFail({ id: link.account_id }),
    snapshot,
    executableRails(link.account_id),
  ]);
  return { link: fresh, account, current: current ?? null, executableRails: rails, chain: chainAdapter() };
}
