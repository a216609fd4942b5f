/**
 * Starting and signalling payment link workflows (contracts/payment-link.ts; workflow id = link
 * id), and the recovery sweep that heals a lost start.
 */
import { paymentLinkContract } from '../../contracts/payment-link';
import { LINK_WORKFLOW_LIVE_STATUSES, linkNeedsWorkflow } from '../../domain/payment-links';
import { sqlStatusList } from '../../domain/payments';
import type { PaymentLink } from '../../entities';
import { db } from '../../lib/db';
import { logger } from '../../lib/logger';
import type { EntityManager } from 'typeorm';
import { signalIfRunning, startOrSignal } from '../../temporal/client';
import { signalRunningAfterCommit, startAfterCommit } from '../../temporal/intents';

const { update: linkChanged } = paymentLinkContract.signals;

/**
 * Signals the link workflow (`linkChanged`), starting it when it is not running. Called
 * after commit; retried 3 times, then logged: the committed state is never rolled back for a
 * signalling failure.
 */
export async function signalLinkChanged(link: Pick<PaymentLink, 'id' | 'account_id'>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await startOrSignal(paymentLinkContract, { id: link.id, accountId: link.account_id }, linkChanged);
      return;
    } catch (e) {
      if (attempt >= 3) {
        logger.error({ err: e, payment_link_id: link.id }, 'could not signal the payment link workflow');
        return;
      }
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

/**
 * Records in `m`'s transaction the link workflow's `linkChanged` signal, performed after commit,
 * durably (temporal/intents.ts): the merchant's request does not wait on Temporal, and a crash
 * between commit and signal still reaches the workflow. A link that needs its workflow
 * (domain/payment-links.ts linkNeedsWorkflow: an expiry or a reminder to wait for) is signalled with
 * start; one without a timer only signals a run already open (one started while it had a timer).
 */
export async function signalLinkChangedAfterCommit(manager: EntityManager, link: PaymentLink): Promise<void> {
  const ref = { id: link.id, accountId: link.account_id };
  if (linkNeedsWorkflow(link)) await startAfterCommit(manager, paymentLinkContract, ref, linkChanged);
  else await signalRunningAfterCommit(manager, paymentLinkContract, ref, linkChanged);
}

/** Signals a running link workflow only (never starts one); a missing workflow is ignored, other failures logged. */
export async function signalLinkIfRunning(linkId: string): Promise<void> {
  try {
    await signalIfRunning(paymentLinkContract, linkId, linkChanged);
  } catch (e) {
    logger.warn({ err: e, payment_link_id: linkId }, 'could not signal the payment link workflow');
  }
}

/**
 * Recovery sweep: signalWithStart the workflow of every link that still needs timers (the table's
 * open set `LINK_WORKFLOW_LIVE_STATUSES`: active, viewed, processing, with an expiry or a reminder
 * due: linkNeedsWorkflow), `batch` rows at a time, oldest first. Heals a workflow start lost
 * between a commit and its signal (e.g. a crash or a Temporal outage at activation). Idempotent;
 * meant for worker start-up or an operator command; `accountId` narrows it to one account.
 * Returns how many links were signalled.
 */
export async function ensureLinkWorkflows(opts: { accountId?: string; batch?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 500;
  let after = '';
  let n = 0;
  for (;;) {
    const rows: PaymentLink[] = await db().query(
      `SELECT id, account_id, status, expires_at, payer_email, crypto_only, settlement_kind, activated_at, reminder_schedule FROM payment_links
        WHERE status IN (${sqlStatusList(LINK_WORKFLOW_LIVE_STATUSES)}) AND id > $1
         AND ($3::text IS NULL OR account_id = $3) ORDER BY id LIMIT $2`,
      [after, batch, opts.accountId ?? null],
    );
    const due = rows.filter(linkNeedsWorkflow);
    for (const r of due) await signalLinkChanged(r);
    n += due.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
