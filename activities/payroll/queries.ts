/**
 * Payroll reads the routes need (spec 2.7, 4.4): a run of the caller, the list query with
 * `status_group` and its summary, item counts by destination readiness, items with their
 * recipients, the readiness preview and the export rows. Reads only; views/payroll.ts renders.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { maskedAccountEnding } from '../../domain/bank-details';
import { DomainError, notFound } from '../../domain/errors';
import { decodeCursor, encodeCursor, parseLimit } from '../../domain/pagination';
import {
  PAYROLL_STATUS_GROUPS,
  payrollReadiness,
  payrollRunSummary,
  type PayrollBlocker,
  type PayrollRunSummary,
  type PayrollStatusGroup,
} from '../../domain/payroll';
import type { PayrollExportItem } from '../../domain/payroll-rows';
import { PayrollRecipient, PayrollRun, PayrollRunItem } from '../../entities';
import { auxDb, db } from '../../lib/db';
import type { ListEnvelope } from '../../lib/pagination';
import { accountWide, scoped } from '../../lib/scoped';
import { isFlagOpen } from '../../lib/switches';
import type { AccountScope } from '../scope';
import { itemCountsOf, NO_ITEMS, type PayrollItemCounts } from '../../views/payroll';

/** Flag of crypto funding (spec 4.4: "crypto funding off" answers 409 capability_unavailable). */
export const CRYPTO_FUNDING_FLAG = 'payroll.crypto_funding';

/** The run `input.id` of the scope's account and mode; 404 param `id` for any other account or mode. */
export async function findRun(scope: AccountScope, input: { id: string }): Promise<PayrollRun> {
  return scoped(scope).getOne(PayrollRun, { id: input.id }, () => notFound(`No such payroll run: ${input.id}.`, 'id'));
}

/** `GET /payroll_runs` (spec 4.4): the query (alias `r`) of the scope's runs, optionally of one status group. */
export function runListQuery(scope: AccountScope, input: { status_group?: PayrollStatusGroup }): SelectQueryBuilder<PayrollRun> {
  const qb = scoped(scope).query(PayrollRun, 'r');
  if (input.status_group) qb.andWhere('r.status IN (:...statuses)', { statuses: [...PAYROLL_STATUS_GROUPS[input.status_group]] });
  return qb;
}

/** `expand=summary` of `GET /payroll_runs`: counts over every run of the scope's account and mode (not only the page). */
export async function runSummary(scope: AccountScope): Promise<PayrollRunSummary> {
  const { where, params } = scoped(scope).sql(null, 1);
  const { rows } = await auxDb().query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM payroll_runs WHERE ${where} GROUP BY status`,
    params,
  );
  return payrollRunSummary(Object.fromEntries(rows.map((x) => [x.status, Number(x.n)])));
}

/** Item counts by destination readiness of each run of `runIds` (runs without items get zeros). */
export async function itemCounts(runIds: readonly string[]): Promise<Map<string, PayrollItemCounts>> {
  const out = new Map<string, PayrollItemCounts>(runIds.map((id) => [id, NO_ITEMS]));
  if (runIds.length === 0) return out;
  const { rows } = await auxDb().query<{ run_id: string; destination_status: string; n: string }>(
    'SELECT run_id, destination_status, count(*) AS n FROM payroll_run_items WHERE run_id = ANY($1::text[]) GROUP BY run_id, destination_status',
    [runIds],
  );
  for (const id of runIds) out.set(id, itemCountsOf(rows.filter((x) => x.run_id === id)));
  return out;
}

/**
 * `GET /payroll_runs/{id}/items` (spec 2.1 envelope): one page of the items of the caller's run
 * `id` (404 otherwise) in row order (`position` ascending, unlike the newest-first lists: a run
 * reads like the sheet it came from). The cursor names the last item of the previous page (400
 * `cursor_invalid` when it is not one of this run's items); `limit` is parsed leniently.
 */
export async function itemPage(
  scope: AccountScope,
  input: { id: string; limit?: unknown; cursor?: unknown },
): Promise<ListEnvelope<PayrollRunItem>> {
  const query = input;
  const r = await findRun(scope, { id: input.id });
  const limit = parseLimit(query.limit);
  const qb = db().getRepository(PayrollRunItem).createQueryBuilder('i').where('i.run_id = :id', { id: r.id });
  if (query.cursor !== undefined && query.cursor !== '') {
    const c = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : null;
    const after = c ? await db().getRepository(PayrollRunItem).findOneBy({ id: c.id, run_id: r.id }) : null;
    if (!after) throw new DomainError('invalid_request', 'cursor_invalid', 'The cursor is not valid for this list.', { param: 'cursor' });
    qb.andWhere('i.position > :p', { p: after.position });
  }
  const rows = await qb
    .orderBy('i.position', 'ASC')
    .take(limit + 1)
    .getMany();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = rows.length > limit;
  return {
    object: 'list',
    data: page,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ t: last.created_at.toISOString(), id: last.id }) : null,
  };
}

/** The recipients of `items`, by id. */
export async function recipientsOf(items: readonly PayrollRunItem[]): Promise<Map<string, PayrollRecipient>> {
  const ids = [...new Set(items.map((i) => i.recipient_id))];
  const rows = ids.length
    ? await db().getRepository(PayrollRecipient).createQueryBuilder('p').where('p.id IN (:...ids)', { ids }).getMany()
    : [];
  return new Map(rows.map((p) => [p.id, p]));
}

/** Item `input.item_id` of the scope's run `input.id` with its recipient; 404 (param `id` / `item_id`) when either is not the scope's. */
export async function findItem(
  scope: AccountScope,
  input: { id: string; item_id: string },
): Promise<{ item: PayrollRunItem; recipient: PayrollRecipient }> {
  const itemId = input.item_id;
  const r = await findRun(scope, { id: input.id });
  const item = await db().getRepository(PayrollRunItem).findOneBy({ id: itemId, run_id: r.id });
  if (!item) throw notFound(`No such payroll run item: ${itemId}.`, 'item_id');
  const recipient = (await recipientsOf([item])).get(item.recipient_id);
  if (!recipient) throw notFound(`No such payroll run item: ${itemId}.`, 'item_id');
  return { item, recipient };
}

/** The recipient `input.id` of the scope's account and mode; 404 param `id` for any other. */
export async function findRecipient(scope: AccountScope, input: { id: string }): Promise<PayrollRecipient> {
  return scoped(scope).getOne(PayrollRecipient, { id: input.id }, () => notFound(`No such payroll recipient: ${input.id}.`, 'id'));
}

/** `GET /payroll_recipients`: the query (alias `p`) of the scope's recipients; the caller paginates (newest first). */
export function recipientListQuery(scope: AccountScope): SelectQueryBuilder<PayrollRecipient> {
  return scoped(scope).query(PayrollRecipient, 'p');
}

/** Account facts of the payer-compliance gate. */
export interface PayrollGate {
  accessState: string;
  verified: boolean;
  cryptoSwitchOn: boolean;
}

/** Account flag: accounts without a customer record must verify one before funding payroll (default off). */
export const REQUIRE_CUSTOMER_FLAG = 'payroll.require_verified_customer';

/**
 * The payer-compliance facts of an account (spec 4.4): access state, crypto funding flag,
 * and `verified` from the account's customer (spec 2.8): a customer record that is not `approved`
 * (pending, under review, action required, rejected, stale) is `verification_required`; an account
 * with no customer record is verified unless the `payroll.require_verified_customer` flag is open
 * for it (docs/decisions/0057-payroll-verification.md). Account-wide: the scope's mode does not change it.
 */
export async function payrollGate(scope: AccountScope): Promise<PayrollGate> {
  const { accountId } = scope;
  const customers = accountWide(accountId).sql(null, 1);
  const [{ rows }, customer, cryptoSwitchOn] = await Promise.all([
    auxDb().query<{ access_state: string }>('SELECT access_state FROM accounts WHERE id = $1', [accountId]),
    auxDb().query<{ verification_state: string }>(
      `SELECT verification_state FROM customers WHERE ${customers.where} AND livemode ORDER BY created_at LIMIT 1`,
      customers.params,
    ),
    isFlagOpen(CRYPTO_FUNDING_FLAG, accountId),
  ]);
  const state = customer.rows[0]?.verification_state;
  const verified = state !== undefined ? state === 'approved' : !(await isFlagOpen(REQUIRE_CUSTOMER_FLAG, accountId));
  return { accessState: rows[0]?.access_state ?? 'blocked', verified, cryptoSwitchOn };
}

/** `GET /payroll_runs/{id}/readiness` (spec 2.7): the run (404 when not the scope's) and its blockers. */
export async function runReadiness(
  scope: AccountScope,
  input: { id: string },
): Promise<{ run: PayrollRun; ready: boolean; blockers: PayrollBlocker[] }> {
  const run = await findRun(scope, input);
  const v = payrollReadiness(
    { status: run.status, rows: run.item_count, fundingMethod: run.funding_method, currency: run.currency },
    await payrollGate(scope),
  );
  return { run, ...v };
}

/** The rows of `GET /payroll_runs/{id}/export`, in row order (every item with its status); 404 when the run is not the scope's. */
export async function exportItems(scope: AccountScope, input: { id: string }): Promise<{ run: PayrollRun; items: PayrollExportItem[] }> {
  const run = await findRun(scope, input);
  const items = await db()
    .getRepository(PayrollRunItem)
    .find({ where: { run_id: run.id }, order: { position: 'ASC' } });
  const rcp = await recipientsOf(items);
  return {
    run,
    items: items.map((i) => {
      const p = rcp.get(i.recipient_id);
      const d = i.destination_masked;
      const ending = d?.type === 'bank_account' ? maskedAccountEnding(d.bank) : null;
      const destination =
        d === null ? null : d.type === 'wallet' ? `${d.chain} ${d.address_masked}` : `${d.bank.rail}${ending ? ` ****${ending}` : ''}`;
      return {
        item_id: i.id,
        recipient_id: i.recipient_id,
        recipient_name: p?.name ?? '',
        recipient_email: p?.email ?? '',
        amount: { amount: i.amount_minor, currency: i.currency, decimals: run.decimals },
        status: i.status,
        destination,
        failure_reason: i.failure_reason,
        paid_at: i.paid_at ? i.paid_at.toISOString() : null,
        memo: i.memo,
      };
    }),
  };
}
