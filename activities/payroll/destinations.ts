/**
 * Payroll destinations (spec 4.4 recipient sessions, adoption, reissue_link; 6). The
 * recipient submits a destination through the public session of an item (`prk_` token, once per
 * token); it waits on the recipient as `pending_destination` until the business adopts it; only
 * then do the items of open runs pay it. The business can never set a destination itself. Each
 * command is one transaction with row locks (recipient first, then items, runs shared) and its
 * outbox events (`payroll_item.destination_updated`, `.destination_changed`); readiness changes are
 * written by the item's record module (activities/records/payroll-items.ts).
 */
import type { EntityManager } from 'typeorm';
import { conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import {
  adoptionPlan,
  checkSubmittedDestination,
  keylessReason,
  runAllowsReissue,
  sessionClosedReason,
  type AdoptionItem,
  type AdoptionSkipReason,
  type DestinationInput,
  type PayoutChain,
} from '../../domain/payroll-destinations';
import { parsePayrollDestination } from '../../domain/payroll-execution';
import { PayrollRecipient, PayrollRun, PayrollRunItem } from '../../entities';
import { db, transaction } from '../../lib/db';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { decrypt, encrypt, randomToken } from '../../lib/secrets';
import { chainAdapter } from '../../providers/chain';
import { payrollItemEventView } from '../../views/payroll';
import type { RecipientSessionInputs } from '../../views/payroll-destination';
import type { Scope } from '../scope';
import { lockRun } from './records';
import { offerPayrollItemDestination, readyPayrollItemDestination } from '../records/payroll-items';

const sessionNotFound = () => notFound('No such payroll recipient session.');
const TOKEN = /^prk_[A-Za-z0-9]+$/;

/** The chain a wallet destination is paid on: the sandbox chain adapter's, in its stablecoin. */
export function payrollPayoutChain(): PayoutChain {
  const c = chainAdapter();
  return { chain: c.chain, asset: c.stablecoin, network: c.network };
}

/** The live item of session token `token` (404 otherwise: unknown, replaced or test-mode token); locked when `m` is given. */
async function itemByToken(token: string, m?: EntityManager): Promise<PayrollRunItem> {
  if (!TOKEN.test(token)) throw sessionNotFound();
  const item = m
    ? await m.findOne(PayrollRunItem, { where: { session_token: token }, lock: { mode: 'pessimistic_write' } })
    : await db().getRepository(PayrollRunItem).findOneBy({ session_token: token });
  if (!item || !item.livemode) throw sessionNotFound();
  return item;
}

async function sessionInputs(m: EntityManager, item: PayrollRunItem, recipient?: PayrollRecipient): Promise<RecipientSessionInputs> {
  const run = await m.findOneByOrFail(PayrollRun, { id: item.run_id });
  const rcp = recipient ?? (await m.findOneByOrFail(PayrollRecipient, { id: item.recipient_id }));
  const rows: Array<{ display_name: string }> = await m.query('SELECT display_name FROM accounts WHERE id = $1', [item.account_id]);
  return {
    item,
    run,
    recipient: rcp,
    payerDisplayName: rows[0]?.display_name ?? '',
    closedReason: sessionClosedReason({ submittedAt: item.session_submitted_at, runStatus: run.status, itemStatus: item.status }),
  };
}

/**
 * `GET /payroll_recipient_sessions/{token}`: what the session shows (views/payroll-destination.ts).
 * Public token (spec 5 rule 5): no scope; the token is the capability (404 when unknown, replaced or test-mode).
 */
export async function recipientSession(input: { token: string }): Promise<RecipientSessionInputs> {
  const item = await itemByToken(input.token);
  return sessionInputs(db().manager, item);
}

async function emitItemEvent(
  m: EntityManager,
  item: PayrollRunItem,
  type: 'destination_updated' | 'destination_changed',
  request: RequestRef | null,
): Promise<void> {
  await emitEvent(m, {
    accountId: item.account_id,
    livemode: item.livemode,
    type: `payroll_item.${type}`,
    objectType: 'payroll_item',
    objectId: item.id,
    object: payrollItemEventView(item),
    relatedIds: [item.run_id, item.recipient_id],
    request,
  });
}

/** The recipient's items with their run's status, locked (items for update, runs shared), oldest first. */
async function lockRecipientItems(m: EntityManager, recipientId: string): Promise<Array<{ item: PayrollRunItem; runStatus: string }>> {
  const rows: Array<{ id: string; run_status: string }> = await m.query(
    `SELECT i.id, r.status AS run_status FROM payroll_run_items i JOIN payroll_runs r ON r.id = i.run_id
      WHERE i.recipient_id = $1 ORDER BY i.created_at, i.id FOR UPDATE OF i FOR SHARE OF r`,
    [recipientId],
  );
  if (rows.length === 0) return [];
  const items = await m
    .createQueryBuilder(PayrollRunItem, 'i')
    .where('i.id IN (:...ids)', { ids: rows.map((r) => r.id) })
    .getMany();
  const byId = new Map(items.map((i) => [i.id, i]));
  return rows.map((r) => ({ item: byId.get(r.id)!, runStatus: r.run_status }));
}

/**
 * `POST /payroll_recipient_sessions/{token}/destination` (spec 4.4): checks the destination for
 * the run currency (domain/payroll-destinations.ts), stores it encrypted with its masked
 * projection as the recipient's pending destination (a newer submission replaces an older pending
 * one), marks the token used, and moves the recipient's items of open runs from `missing` to
 * `pending_adoption`. One submission per token: `409 conflict` `destination_already_submitted`;
 * a run no longer open or an item already in payment: `409 conflict` `recipient_session_closed`.
 * Emits `payroll_item.destination_updated` for the session's item and each item moved. Public
 * token (spec 5 rule 5): no scope; the token is the capability and `input.request` the request
 * copied onto the events (its Idempotency-Key is null: public routes take none).
 */
export async function submitDestination(input: {
  token: string;
  destination: DestinationInput;
  request: RequestRef | null;
}): Promise<RecipientSessionInputs> {
  const { token, request } = input;
  const found = await itemByToken(token);
  const run0 = await db().getRepository(PayrollRun).findOneByOrFail({ id: found.run_id });
  const { destination, masked } = checkSubmittedDestination(input.destination, run0.currency, payrollPayoutChain());
  return transaction(async (m) => {
    const recipient = await m.findOneOrFail(PayrollRecipient, { where: { id: found.recipient_id }, lock: { mode: 'pessimistic_write' } });
    const item = await itemByToken(token, m);
    const run = await m.findOneOrFail(PayrollRun, { where: { id: item.run_id }, lock: { mode: 'pessimistic_read' } });
    const closed = sessionClosedReason({ submittedAt: item.session_submitted_at, runStatus: run.status, itemStatus: item.status });
    if (closed === 'destination_already_submitted') {
      throw conflict(
        'destination_already_submitted',
        'A destination was already submitted through this link; ask the business for a new link to change it.',
      );
    }
    if (closed) throw conflict('recipient_session_closed', 'This payment can no longer take a destination.', { reason: closed });
    const now = new Date();
    recipient.pending_destination_ciphertext = encrypt(JSON.stringify(destination));
    recipient.pending_destination_masked = masked;
    recipient.pending_submitted_at = now;
    recipient.pending_from_item_id = item.id;
    await m.save(recipient);
    item.session_submitted_at = now;
    await m.save(item);
    const moved = new Set<string>([item.id]);
    for (const { item: other, runStatus } of await lockRecipientItems(m, recipient.id)) {
      if (
        other.destination_status !== 'missing' ||
        other.status !== 'pending' ||
        sessionClosedReason({ submittedAt: null, runStatus, itemStatus: other.status })
      )
        continue;
      offerPayrollItemDestination(other);
      if (other.id === item.id) item.destination_status = other.destination_status;
      await m.save(other);
      moved.add(other.id);
    }
    for (const id of moved) {
      const x = id === item.id ? item : await m.findOneByOrFail(PayrollRunItem, { id });
      await emitItemEvent(m, x, 'destination_updated', request);
    }
    return sessionInputs(m, item, recipient);
  });
}

/** The adoption's outcome (views/payroll-destination.ts `adoptionView`). */
export interface AdoptionResult {
  recipient: PayrollRecipient;
  updated: string[];
  skipped: Array<{ id: string; runId: string; reason: AdoptionSkipReason }>;
}

/**
 * `POST /payroll_recipients/{id}/adopt_pending_destination` (spec 4.4): the pending destination
 * becomes the recipient's destination and the destination of every `pending` item of its open runs
 * (`ready`); other items are reported skipped with their reason. Refusals (nothing changes):
 * `409 no_pending_destination`; `409 pending_destination_changed` when `expectedSubmittedAt` is not
 * the stored `submitted_at` (`details.submitted_at`); `422 destination_rail_keyless` when an item to
 * update cannot be keyed for payment (`details.items`, domain/payroll-destinations.ts `keylessReason`).
 * Emits `payroll_item.destination_changed` for items whose destination was replaced,
 * `payroll_item.destination_updated` for items that had none. 404 param `id` when the recipient is not the scope's.
 */
export async function adoptPendingDestination(scope: Scope, input: { id: string; expected_submitted_at: Date }): Promise<AdoptionResult> {
  return transaction(async (m) => {
    const rcp = await scoped(scope, m).lock(PayrollRecipient, { id: input.id }, () =>
      notFound(`No such payroll recipient: ${input.id}.`, 'id'),
    );
    if (!rcp.pending_destination_ciphertext || !rcp.pending_destination_masked || !rcp.pending_submitted_at) {
      throw conflict('no_pending_destination', 'This recipient has no submitted destination awaiting adoption.');
    }
    if (rcp.pending_submitted_at.getTime() !== input.expected_submitted_at.getTime()) {
      throw new DomainError(
        'conflict',
        'pending_destination_changed',
        'The recipient submitted another destination since; re-read the recipient and adopt what it shows.',
        {
          param: 'expected_submitted_at',
          details: { submitted_at: rcp.pending_submitted_at.toISOString() },
        },
      );
    }
    const destination = parsePayrollDestination(decrypt(rcp.pending_destination_ciphertext));
    if (!destination) throw new Error(`payroll recipient ${rcp.id}: unreadable pending destination`);
    const locked = await lockRecipientItems(m, rcp.id);
    const items = new Map(locked.map((x) => [x.item.id, x.item]));
    const plan = adoptionPlan(
      locked.map(({ item, runStatus }): AdoptionItem => ({
        id: item.id,
        runId: item.run_id,
        runStatus,
        status: item.status,
        currency: item.currency,
      })),
    );
    const keyless = plan.update
      .map((i) => ({ id: i.id, run_id: i.runId, currency: i.currency, reason: keylessReason(destination, i.currency) }))
      .filter((x) => x.reason !== null);
    if (keyless.length) {
      const rail = destination.type === 'wallet' ? 'usdc_onchain' : destination.bank.rail;
      throw invalidRequest(
        'destination_rail_keyless',
        `The submitted destination (${rail}) cannot pay ${keyless.map((k) => `${k.id} in ${k.currency}`).join(', ')}; cancel that run or ask the recipient for a destination that fits.`,
        undefined,
        { rail, items: keyless },
        422,
      );
    }
    rcp.destination_ciphertext = rcp.pending_destination_ciphertext;
    rcp.destination_masked = rcp.pending_destination_masked;
    rcp.pending_destination_ciphertext = null;
    rcp.pending_destination_masked = null;
    rcp.pending_submitted_at = null;
    rcp.pending_from_item_id = null;
    await m.save(rcp);
    for (const p of plan.update) {
      const item = items.get(p.id)!;
      const replaced = item.destination_masked !== null;
      readyPayrollItemDestination(item);
      item.destination_ciphertext = rcp.destination_ciphertext;
      item.destination_masked = rcp.destination_masked;
      await m.save(item);
      await emitItemEvent(m, item, replaced ? 'destination_changed' : 'destination_updated', scope.request);
    }
    return {
      recipient: rcp,
      updated: plan.update.map((i) => i.id),
      skipped: plan.skipped.map((s) => ({ id: s.id, runId: s.runId, reason: s.reason })),
    };
  });
}

/**
 * `POST /payroll_runs/{id}/items/{item_id}/reissue_link` (spec 4.4): a new session token for the
 * item (the old one answers 404 from now on) that may submit once again. Refused on a finished or
 * cancelled run: `409 conflict` `payroll_run_state_changed`. 404 for another account's run or item.
 */
export async function reissueLink(
  scope: Scope,
  input: { id: string; item_id: string },
): Promise<{ item: PayrollRunItem; recipient: PayrollRecipient }> {
  return transaction(async (m) => {
    const run = await lockRun(m, scope, input.id);
    const item = await m.findOne(PayrollRunItem, { where: { id: input.item_id, run_id: run.id }, lock: { mode: 'pessimistic_write' } });
    if (!item) throw notFound(`No such payroll run item: ${input.item_id}.`, 'item_id');
    if (!runAllowsReissue(run.status)) {
      throw conflict('payroll_run_state_changed', `A ${run.status} payroll run's links cannot be reissued.`, {
        object: 'payroll_run',
        status: run.status,
      });
    }
    item.session_token = randomToken('prk_');
    item.session_submitted_at = null;
    await m.save(item);
    return { item, recipient: await m.findOneByOrFail(PayrollRecipient, { id: item.recipient_id }) };
  });
}
