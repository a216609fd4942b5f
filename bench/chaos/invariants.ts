/**
 * The chaos harness's invariant reader: after each fault, once the load has drained, it reads
 * PostgreSQL (the product's tables and the sandbox providers' records) and Temporal (describe, the
 * `waiting_for` query, the list of running workflows) into plain rows, and hands them to the pure
 * checks of bench/chaos/checks.ts and bench/chaos/checks-records.ts:
 * - every payment, payout, payroll run and item, send, off-ramp, subscription and invoice is
 *   terminal, or explainable: its workflow runs and `waiting_for` says why, or it waits for the
 *   merchant (a draft) or the outside world with no workflow due; no live row without its workflow;
 * - no open object past its deadline plus `DEADLINE_SLACK_MS`, whatever `waiting_for` says: the
 *   deadline stored on the row (payment TTL, link expiry, payout funding window, send TTL, off-ramp
 *   funding deadline), or, once the money has arrived, the arrival plus `PROGRESS_SLACK_MS`;
 * - money per object (in = out + held), one provider transfer per intent, every event once in the
 *   outbox and none lost, delivered at most once per endpoint, no running workflow without its row.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { db } from '../../lib/db';
import type { Receiver } from '../journeys';
import { deadlineCheck, moneyChecks, objectStateChecks, type CheckResult, type OpenObject } from './checks';
import { deliveriesAtMostOnce, eventsOnce, noEventLost, oneTransferPerIntent, workflowsHaveRows, type Receipt } from './checks-records';

/**
 * Slack past a spec deadline (ms): the workflow's timer fires at the deadline and closes the object
 * in seconds; a fault holds Temporal or the workers down at most 30 s and the harness settles for at
 * most 30 s, so 120 s is twice both.
 */
export const DEADLINE_SLACK_MS = 120_000;
/**
 * Slack from the money's arrival to the product moving the object on (ms): funding detection and the
 * status write take seconds; a killed worker's activity is retried after its 30 s start-to-close
 * timeout; 90 s is that twice plus the settle wait.
 */
export const PROGRESS_SLACK_MS = 90_000;

/**
 * Object tables, their terminal statuses, the statuses in which their workflow must run, and the SQL
 * of their deadline: a text array (ms epoch, what it is, `spec` or `progress`), NULL when none applies.
 */
const OBJECTS: Array<{
  table: string;
  kind: string;
  family: string;
  terminal: string[];
  live: string[];
  workflowOf?: string;
  deadline?: string;
}> = [
  {
    table: 'payments',
    kind: 'payment',
    family: 'payment',
    terminal: ['settled', 'unmatched', 'expired', 'abandoned', 'refunded'],
    live: ['awaiting', 'underpaid', 'paid', 'overpaid'],
    deadline: `CASE WHEN t.status IN ('awaiting', 'underpaid') THEN ARRAY[(extract(epoch FROM t.expires_at) * 1000)::bigint::text, 'payment TTL (expires_at)', 'spec'] END`,
  },
  {
    table: 'payment_links',
    kind: 'payment link',
    family: 'payment_link',
    terminal: ['settled', 'refunded', 'cancelled', 'expired'],
    live: ['active', 'viewed', 'processing'],
    deadline: `CASE WHEN t.status IN ('active', 'viewed') AND t.expires_at IS NOT NULL THEN ARRAY[(extract(epoch FROM t.expires_at) * 1000)::bigint::text, 'link expiry (expires_at)', 'spec'] END`,
  },
  {
    table: 'payouts',
    kind: 'payout',
    family: 'payout',
    terminal: ['settled', 'paid_with_shortfall', 'failed', 'returned', 'expired', 'cancelled'],
    live: ['awaiting_funds', 'funds_received', 'processing', 'paid'],
    deadline: `CASE WHEN t.status = 'awaiting_funds' THEN (
      SELECT CASE WHEN COALESCE(sum(d.amount_minor), 0) >= (SELECT min(a.gross_minor) FROM payout_attempts a WHERE a.payout_id = t.id)
                  THEN ARRAY[(extract(epoch FROM max(d.observed_at)) * 1000)::bigint::text, 'funds arrived', 'progress']
                  ELSE ARRAY[(SELECT (extract(epoch FROM max(a.expires_at)) * 1000)::bigint::text FROM payout_attempts a WHERE a.payout_id = t.id), 'funding window (expires_at)', 'spec'] END
        FROM payout_deposits d WHERE d.payout_id = t.id AND d.effect IN ('applied', 'pending')) END`,
  },
  {
    table: 'payroll_runs',
    kind: 'payroll run',
    family: 'payroll_run',
    terminal: ['completed', 'partial', 'failed', 'cancelled'],
    live: ['funding_pending', 'funded', 'executing'],
  },
  {
    table: 'payroll_run_items',
    kind: 'payroll item',
    family: 'payroll_item',
    terminal: ['paid', 'failed', 'returned'],
    live: ['queued', 'processing'],
  },
  {
    table: 'wallet_send_intents',
    kind: 'send',
    family: 'send_intent',
    terminal: ['settled', 'failed', 'expired'],
    live: ['created', 'source_submitted', 'bridging_started'],
    deadline: `CASE WHEN t.status = 'created' THEN ARRAY[(extract(epoch FROM t.expires_at) * 1000)::bigint::text, 'send TTL (expires_at)', 'spec'] END`,
  },
  {
    table: 'wallet_offramp_intents',
    kind: 'off-ramp',
    family: 'offramp_intent',
    terminal: ['payment_processed', 'refunded', 'refund_failed', 'canceled', 'failed'],
    live: ['awaiting_funds', 'funds_received', 'payment_submitted'],
    deadline: `CASE WHEN t.status = 'awaiting_funds' THEN CASE WHEN t.received_minor >= t.amount_minor
      THEN ARRAY[(extract(epoch FROM t.updated_at) * 1000)::bigint::text, 'funds arrived', 'progress']
      ELSE ARRAY[(extract(epoch FROM t.funding_deadline) * 1000)::bigint::text, 'funding deadline', 'spec'] END END`,
  },
  {
    table: 'subscriptions',
    kind: 'subscription',
    family: 'subscription',
    terminal: ['cancelled', 'completed'],
    live: ['active', 'past_due'],
  },
  {
    table: 'subscription_invoices',
    kind: 'invoice',
    family: 'subscription_invoice',
    terminal: ['paid', 'void'],
    live: [],
    workflowOf: 'subscription_id',
  },
];

const n = async (sql: string, params: unknown[] = []): Promise<number> => Number((await db().query(sql, params))[0]?.n ?? 0);
const ids = async (sql: string, params: unknown[] = []): Promise<string[]> =>
  (await db().query(sql, params)).map((r: { id: string }) => r.id);
const big = (v: unknown): bigint => BigInt(String(v ?? 0));

/** Runs every check; `receivers` are the load's webhook receivers (receipts counted by webhook-id). */
export async function checkInvariants(
  temporalAddress: string,
  receivers: Array<{ name: string; endpointId: string; receiver: Receiver }>,
): Promise<CheckResult[]> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const temporal = new Client({ connection });
    const events: Array<{ objectId: string; type: string; n: number }> = (
      await db().query(`SELECT object_id, type, count(*)::int AS n FROM events GROUP BY object_id, type`)
    ).map((r: { object_id: string; type: string; n: number }) => ({ objectId: r.object_id, type: r.type, n: r.n }));
    const statuses: Record<string, Array<{ id: string; status: string }>> = {};
    for (const o of OBJECTS) statuses[o.family] = await db().query(`SELECT id, status FROM ${o.table}`);
    return [
      ...(await objectStates(temporal)),
      ...moneyChecks(await readMoney()),
      oneTransferPerIntent(
        await db().query(`
          SELECT 'rail' AS provider, client_reference AS ref FROM sandbox_rail_payments
          UNION ALL SELECT 'bridge', client_reference FROM sandbox_bridge_transfers
          UNION ALL SELECT 'chain', idempotency_key FROM sandbox_chain_transfers WHERE idempotency_key IS NOT NULL`),
      ),
      eventsOnce(events),
      noEventLost(statuses, events),
      deliveriesAtMostOnce(await readDeliveries(receivers)),
      await readWorkflows(temporal),
    ];
  } finally {
    await connection.close();
  }
}

/** `p`, or a rejection after 5 s (a query waits for a worker: none answering is itself a finding). */
const bounded = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5000).unref())]);

/** Describes workflow `id`: `running`, `closed` or `missing`, and its `waiting_for` answer when running. */
async function workflowState(temporal: Client, id: string): Promise<Pick<OpenObject, 'workflow' | 'waitingFor'>> {
  const h = temporal.workflow.getHandle(id);
  try {
    const d = await bounded(h.describe(), 'describe');
    if (d.status.name !== 'RUNNING') return { workflow: 'closed', waitingFor: null };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return { workflow: 'missing', waitingFor: null };
    throw e;
  }
  const w = await bounded(h.query<unknown>('waiting_for'), 'query').catch((e: Error) => `(query failed: ${e.message.slice(0, 80)})`);
  return { workflow: 'running', waitingFor: typeof w === 'string' ? w : JSON.stringify(w) };
}

/** Per object kind: terminal or explainable, live => workflow running, closed by the deadline. */
async function objectStates(temporal: Client): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  const now = Date.now();
  for (const o of OBJECTS) {
    const rows: Array<{ id: string; status: string; wf: string; deadline: [string, string, string] | null }> = await db().query(
      `SELECT t.id, t.status, t.${o.workflowOf ?? 'id'} AS wf, ${o.deadline ?? 'NULL::text[]'} AS deadline FROM ${o.table} t WHERE NOT (t.status = ANY($1))`,
      [o.terminal],
    );
    const open: OpenObject[] = [];
    for (const r of rows) {
      const deadline = r.deadline?.[0]
        ? {
            atMs: Number(r.deadline[0]),
            what: r.deadline[1],
            slackMs: r.deadline[2] === 'progress' ? PROGRESS_SLACK_MS : DEADLINE_SLACK_MS,
          }
        : null;
      open.push({ id: r.id, status: r.status, deadline, ...(await workflowState(temporal, r.wf)) });
    }
    const total = await n(`SELECT count(*)::int AS n FROM ${o.table}`);
    out.push(...objectStateChecks(o, total, open));
    if (o.deadline) out.push(deadlineCheck(o.kind, open, now));
  }
  return out;
}

/** The money checks' rows (bench/chaos/checks.ts `MoneyData`). */
async function readMoney() {
  const payments = await db().query(`
    SELECT p.id, p.status, p.amount_received_minor AS received,
           COALESCE((SELECT sum(d.amount_minor) FROM deposits d WHERE d.payment_id = p.id AND d.effect = 'applied'), 0)
         + COALESCE((SELECT sum(b.amount_minor) FROM bank_credits b WHERE b.payment_id = p.id AND b.effect = 'applied' AND NOT b.return_applied), 0) AS applied,
           COALESCE((SELECT sum(amount_minor) FROM sandbox_chain_transfers WHERE idempotency_key = 'settle:' || p.id), 0)
         + COALESCE((SELECT sum(amount_minor) FROM sandbox_rail_payments WHERE client_reference = p.id), 0) AS out
      FROM payments p`);
  const payouts = await db().query(`
    SELECT po.id, po.status,
           COALESCE((SELECT sum(d.amount_minor) FROM payout_deposits d WHERE d.payout_id = po.id), 0) AS deposited,
           (SELECT min(a.gross_minor) FROM payout_attempts a WHERE a.payout_id = po.id) AS gross,
           (SELECT count(*) FROM sandbox_rail_payments r WHERE r.client_reference = po.id AND r.state = 'paid')::int AS paid
      FROM payouts po`);
  const offramps = await db().query(`
    SELECT o.id, o.status, o.received_minor AS received, o.amount_minor AS amount,
           (SELECT count(*) FROM sandbox_rail_payments r WHERE r.client_reference = o.id AND r.amount_minor = o.destination_amount_minor)::int AS quoted,
           (SELECT count(*) FROM sandbox_rail_payments r WHERE r.client_reference = o.id AND r.state = 'paid')::int AS paid
      FROM wallet_offramp_intents o`);
  const sends = await db().query(`
    SELECT s.id, s.status,
           (SELECT count(*) FROM sandbox_chain_transfers c WHERE c.tx_hash = s.source_tx_hash AND c.amount_minor = s.amount_minor)::int AS transfers
      FROM wallet_send_intents s`);
  return {
    payments: payments.map((p: Record<string, string>) => ({
      id: p.id,
      status: p.status,
      received: big(p.received),
      applied: big(p.applied),
      out: big(p.out),
    })),
    pending: await ids(`
      SELECT payment_id || ' deposit ' || id AS id FROM deposits WHERE effect = 'pending'
      UNION ALL SELECT payment_id || ' credit ' || id FROM bank_credits WHERE effect = 'pending'`),
    arrivals: await n(`SELECT (SELECT count(*) FROM deposits) + (SELECT count(*) FROM bank_credits) AS n`),
    payouts: payouts.map((p: Record<string, string | number | null>) => ({
      id: String(p.id),
      status: String(p.status),
      deposited: big(p.deposited),
      gross: p.gross === null ? null : big(p.gross),
      paidRailPayments: Number(p.paid),
    })),
    offramps: offramps.map((o: Record<string, string | number>) => ({
      id: String(o.id),
      status: String(o.status),
      received: big(o.received),
      amount: big(o.amount),
      railPaymentsOfQuote: Number(o.quoted),
      paidRailPayments: Number(o.paid),
    })),
    sends: sends.map((s: Record<string, string | number>) => ({
      id: String(s.id),
      status: String(s.status),
      transfersOfAmount: Number(s.transfers),
    })),
  };
}

/** The delivery check's rows; receipts are the events a receiver saw twice or more, with their attempts recorded. */
async function readDeliveries(receivers: Array<{ name: string; endpointId: string; receiver: Receiver }>) {
  const receipts: Receipt[] = [];
  for (const r of receivers) {
    for (const [id, c] of r.receiver.seen) {
      if (c < 2) continue;
      // `webhook-id` is the event id (activities/webhooks/drain.ts), the same on every attempt.
      const [a] = await db().query(
        `SELECT count(*)::int AS attempts, count(*) FILTER (WHERE x.status_code BETWEEN 200 AND 299)::int AS ok
           FROM webhook_deliveries d JOIN webhook_attempts x ON x.delivery_id = d.id WHERE d.event_id = $1 AND d.endpoint_id = $2`,
        [id, r.endpointId],
      );
      receipts.push({ endpoint: r.name, eventId: id, received: c, attempts: a.attempts, okAttempts: a.ok });
    }
  }
  return {
    rows: (
      await db().query(
        `SELECT endpoint_id, event_id, count(*)::int AS n FROM webhook_deliveries WHERE replay_of IS NULL GROUP BY endpoint_id, event_id HAVING count(*) > 1`,
      )
    ).map((r: { endpoint_id: string; event_id: string; n: number }) => ({ endpointId: r.endpoint_id, eventId: r.event_id, n: r.n })),
    okAttempts: (
      await db().query(
        `SELECT delivery_id, count(*)::int AS n FROM webhook_attempts WHERE status_code BETWEEN 200 AND 299 GROUP BY delivery_id HAVING count(*) > 1`,
      )
    ).map((r: { delivery_id: string; n: number }) => ({ deliveryId: r.delivery_id, n: r.n })),
    succeeded: await n(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`),
    receipts,
  };
}

/** Running workflows and every row a workflow is named after. */
async function readWorkflows(temporal: Client): Promise<CheckResult> {
  const running: string[] = [];
  for await (const w of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) running.push(w.workflowId);
  const known = new Set(
    await ids(`
    SELECT id FROM payments UNION ALL SELECT id FROM payment_links UNION ALL SELECT id FROM payouts UNION ALL SELECT id FROM payroll_runs
    UNION ALL SELECT id FROM payroll_run_items UNION ALL SELECT id FROM wallet_send_intents UNION ALL SELECT id FROM wallet_offramp_intents
    UNION ALL SELECT id FROM subscriptions UNION ALL SELECT id FROM webhook_endpoints UNION ALL SELECT id FROM orders UNION ALL SELECT id FROM customers
    UNION ALL SELECT id FROM wallet_virtual_accounts UNION ALL SELECT id FROM wallet_deposit_intents UNION ALL SELECT id FROM wallet_conversions`),
  );
  return workflowsHaveRows(running, known);
}
