/**
 * The chaos harness's invariant checker (issue 28): reads PostgreSQL (the product's tables and the
 * sandbox providers' records) and Temporal (list, describe, the `waiting_for` query) after each
 * fault, once the load has drained. Each check answers `ok` with what it looked at, or the
 * violations with a few examples:
 * - every payment, payout, payroll run and item, send, off-ramp, subscription and invoice is
 *   terminal, or explainable: its workflow runs and `waiting_for` says why, or it waits for the
 *   merchant (a draft) or the outside world with no workflow due;
 * - money per object: what arrived (deposits, bank credits) is what the object says it received,
 *   and what left (settlement, rail payment) is no more than that; terminal ones moved what they say;
 * - exactly one provider transfer per intent (rail payments, bridge transfers, settlements);
 * - every event once in the outbox (one of each status event per object), delivered at most once
 *   per endpoint unless a failed attempt came first (rows and receipts);
 * - no running workflow without its row, no row in a live status without its running workflow.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { db } from '../../lib/db';
import type { Receiver } from '../journeys';

/** One check's outcome. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** Object tables, their terminal statuses, and the statuses in which their workflow must run. */
const OBJECTS: Array<{ table: string; kind: string; terminal: string[]; live: string[]; workflowOf?: string }> = [
  {
    table: 'payments',
    kind: 'payment',
    terminal: ['settled', 'unmatched', 'expired', 'abandoned', 'refunded'],
    live: ['awaiting', 'underpaid', 'paid', 'overpaid'],
  },
  {
    table: 'payment_links',
    kind: 'payment link',
    terminal: ['settled', 'refunded', 'cancelled', 'expired'],
    live: ['active', 'viewed', 'processing'],
  },
  {
    table: 'payouts',
    kind: 'payout',
    terminal: ['settled', 'paid_with_shortfall', 'failed', 'returned', 'expired', 'cancelled'],
    live: ['awaiting_funds', 'funds_received', 'processing', 'paid'],
  },
  {
    table: 'payroll_runs',
    kind: 'payroll run',
    terminal: ['completed', 'partial', 'failed', 'cancelled'],
    live: ['funding_pending', 'funded', 'executing'],
  },
  { table: 'payroll_run_items', kind: 'payroll item', terminal: ['paid', 'failed', 'returned'], live: ['queued', 'processing'] },
  {
    table: 'wallet_send_intents',
    kind: 'send',
    terminal: ['settled', 'failed', 'expired'],
    live: ['created', 'source_submitted', 'bridging_started'],
  },
  {
    table: 'wallet_offramp_intents',
    kind: 'off-ramp',
    terminal: ['payment_processed', 'refunded', 'refund_failed', 'canceled', 'failed'],
    live: ['awaiting_funds', 'funds_received', 'payment_submitted'],
  },
  { table: 'subscriptions', kind: 'subscription', terminal: ['cancelled', 'completed'], live: ['active', 'past_due'] },
  { table: 'subscription_invoices', kind: 'invoice', terminal: ['paid', 'void'], live: [], workflowOf: 'subscription_id' },
];

const n = async (sql: string, params: unknown[] = []): Promise<number> => Number((await db().query(sql, params))[0]?.n ?? 0);
const ids = async (sql: string, params: unknown[] = []): Promise<string[]> =>
  (await db().query(sql, params)).map((r: { id: string }) => r.id);
const sample = (xs: string[]) => (xs.length ? ` e.g. ${xs.slice(0, 4).join(', ')}` : '');

/** Runs every check; `receivers` are the load's webhook receivers (receipts counted by webhook-id). */
export async function checkInvariants(
  temporalAddress: string,
  receivers: Array<{ name: string; endpointId: string; receiver: Receiver }>,
): Promise<CheckResult[]> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const temporal = new Client({ connection });
    return [
      ...(await objectStates(temporal)),
      ...(await money()),
      await oneTransferPerIntent(),
      await eventsOnce(),
      await deliveriesAtMostOnce(receivers),
      await workflowsHaveRows(temporal),
    ];
  } finally {
    await connection.close();
  }
}

/** `p`, or a rejection after 5 s (a query waits for a worker: none answering is itself a finding). */
const bounded = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5000).unref())]);

/** Describes workflow `id`: `running`, `closed` or `missing`, and its `waiting_for` answer when running. */
async function workflowState(
  temporal: Client,
  id: string,
): Promise<{ state: 'running' | 'closed' | 'missing'; waitingFor: string | null }> {
  const h = temporal.workflow.getHandle(id);
  try {
    const d = await bounded(h.describe(), 'describe');
    if (d.status.name !== 'RUNNING') return { state: 'closed', waitingFor: null };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return { state: 'missing', waitingFor: null };
    throw e;
  }
  const w = await bounded(h.query<unknown>('waiting_for'), 'query').catch((e: Error) => `(query failed: ${e.message.slice(0, 80)})`);
  return { state: 'running', waitingFor: typeof w === 'string' ? w : JSON.stringify(w) };
}

/** Terminal or explainable, and no live row without its running workflow (one check of each per object kind). */
async function objectStates(temporal: Client): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const o of OBJECTS) {
    const rows: Array<{ id: string; status: string; wf: string }> = await db().query(
      `SELECT id, status, ${o.workflowOf ?? 'id'} AS wf FROM ${o.table} WHERE NOT (status = ANY($1))`,
      [o.terminal],
    );
    const total = await n(`SELECT count(*)::int AS n FROM ${o.table}`);
    const unexplained: string[] = [];
    const liveWithout: string[] = [];
    const waits = new Map<string, number>();
    for (const r of rows) {
      const wf = await workflowState(temporal, r.wf);
      if (wf.state === 'running') {
        const why = (wf.waitingFor ?? '').slice(0, 60);
        if (!why) unexplained.push(`${r.id} (${r.status}, empty waiting_for)`);
        waits.set(`${r.status}: ${why}`, (waits.get(`${r.status}: ${why}`) ?? 0) + 1);
      } else if (o.live.includes(r.status)) {
        liveWithout.push(`${r.id} (${r.status}, workflow ${wf.state})`);
      } else {
        waits.set(`${r.status}: no workflow due`, (waits.get(`${r.status}: no workflow due`) ?? 0) + 1);
      }
    }
    const explained = [...waits.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, v]) => `${v} ${k}`)
      .join('; ');
    out.push({
      name: `${o.kind}s terminal or explainable`,
      ok: unexplained.length === 0,
      detail: `${total - rows.length} of ${total} terminal${rows.length ? `; open: ${explained}` : ''}${unexplained.length ? `; UNEXPLAINED ${unexplained.length}${sample(unexplained)}` : ''}`,
    });
    if (o.live.length) {
      out.push({
        name: `${o.kind}s live => workflow running`,
        ok: liveWithout.length === 0,
        detail: liveWithout.length
          ? `${liveWithout.length} live without a running workflow${sample(liveWithout)}`
          : `${rows.filter((r) => o.live.includes(r.status)).length} live, each with its workflow`,
      });
    }
  }
  return out;
}

/** Money in = money out + held, per object kind that moves money. */
async function money(): Promise<CheckResult[]> {
  // Payments: what arrived (applied deposits and bank credits, less applied returns) is what the payment says it received; what left (its settlement) is no more than that.
  const payIn = await ids(`
    SELECT p.id FROM payments p
     WHERE p.amount_received_minor <> COALESCE((SELECT sum(d.amount_minor) FROM deposits d WHERE d.payment_id = p.id AND d.effect = 'applied'), 0)
                                    + COALESCE((SELECT sum(b.amount_minor) FROM bank_credits b WHERE b.payment_id = p.id AND b.effect = 'applied' AND NOT b.return_applied), 0)`);
  const payOut = await ids(`
    SELECT p.id FROM payments p
      LEFT JOIN LATERAL (SELECT sum(amount_minor) AS s FROM sandbox_chain_transfers WHERE idempotency_key = 'settle:' || p.id) c ON true
      LEFT JOIN LATERAL (SELECT sum(amount_minor) AS s FROM sandbox_rail_payments WHERE client_reference = p.id) r ON true
     WHERE COALESCE(c.s, 0) + COALESCE(r.s, 0) > p.amount_received_minor
        OR (p.status = 'settled' AND COALESCE(c.s, 0) + COALESCE(r.s, 0) = 0)`);
  // Money that arrived and was never applied: a deposit or credit still pending once the product has settled.
  const pending = await ids(`
    SELECT payment_id || ' deposit ' || id AS id FROM deposits WHERE effect = 'pending'
    UNION ALL SELECT payment_id || ' credit ' || id FROM bank_credits WHERE effect = 'pending'`);
  const payments = await n(`SELECT count(*)::int AS n FROM payments`);
  // Payouts: the USDC deposited covers what the attempt asked; a paid or settled payout paid its invoice amount once at the rail.
  const payoutShort = await ids(`
    SELECT po.id FROM payouts po
     WHERE po.status IN ('processing', 'paid', 'settled')
       AND COALESCE((SELECT sum(d.amount_minor) FROM payout_deposits d WHERE d.payout_id = po.id), 0)
           < (SELECT min(a.gross_minor) FROM payout_attempts a WHERE a.payout_id = po.id)`);
  const payoutRail = await ids(`
    SELECT po.id FROM payouts po
     WHERE po.status IN ('paid', 'settled')
       AND (SELECT count(*) FROM sandbox_rail_payments r WHERE r.client_reference = po.id AND r.state = 'paid') <> 1`);
  const payouts = await n(`SELECT count(*)::int AS n FROM payouts`);
  // Off-ramps: processed ones received their amount and paid the bank the quoted amount; refunded ones paid nobody.
  const ofr = await ids(`
    SELECT o.id FROM wallet_offramp_intents o
     WHERE (o.status = 'payment_processed' AND (o.received_minor IS DISTINCT FROM o.amount_minor
             OR (SELECT count(*) FROM sandbox_rail_payments r WHERE r.client_reference = o.id AND r.amount_minor = o.destination_amount_minor) <> 1))
        OR (o.status = 'refunded' AND EXISTS (SELECT 1 FROM sandbox_rail_payments r WHERE r.client_reference = o.id AND r.state = 'paid'))`);
  const offramps = await n(`SELECT count(*)::int AS n FROM wallet_offramp_intents`);
  // Sends: a settled send is one transfer on chain, of its amount, from its wallet.
  const sends = await ids(`
    SELECT s.id FROM wallet_send_intents s
     WHERE s.status = 'settled' AND (SELECT count(*) FROM sandbox_chain_transfers c WHERE c.tx_hash = s.source_tx_hash AND c.amount_minor = s.amount_minor) <> 1`);
  const sendCount = await n(`SELECT count(*)::int AS n FROM wallet_send_intents`);
  const row = (name: string, bad: string[], of: number): CheckResult => ({
    name,
    ok: bad.length === 0,
    detail: bad.length ? `${bad.length} of ${of} off${sample(bad)}` : `${of} checked`,
  });
  return [
    row('payments: received = deposits + credits', payIn, payments),
    row('payments: settled out <= received', payOut, payments),
    row(
      'payments: no deposit or credit left unapplied',
      pending,
      await n(`SELECT (SELECT count(*) FROM deposits) + (SELECT count(*) FROM bank_credits) AS n`),
    ),
    row('payouts: funded before paid out', payoutShort, payouts),
    row('payouts: one paid rail payment when paid', payoutRail, payouts),
    row('off-ramps: in = out, or refunded', ofr, offramps),
    row('sends: one on-chain transfer of the amount', sends, sendCount),
  ];
}

/** Exactly one provider transfer per intent. */
async function oneTransferPerIntent(): Promise<CheckResult> {
  const rail = await ids(`SELECT client_reference AS id FROM sandbox_rail_payments GROUP BY client_reference HAVING count(*) > 1`);
  const bridge = await ids(`SELECT client_reference AS id FROM sandbox_bridge_transfers GROUP BY client_reference HAVING count(*) > 1`);
  const chain = await ids(
    `SELECT idempotency_key AS id FROM sandbox_chain_transfers WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key HAVING count(*) > 1`,
  );
  const total = await n(`SELECT (SELECT count(*) FROM sandbox_rail_payments) + (SELECT count(*) FROM sandbox_bridge_transfers)
                              + (SELECT count(*) FROM sandbox_chain_transfers WHERE idempotency_key IS NOT NULL) AS n`);
  const bad = [...rail.map((r) => `rail ${r}`), ...bridge.map((r) => `bridge ${r}`), ...chain.map((r) => `chain ${r}`)];
  return {
    name: 'one provider transfer per intent',
    ok: bad.length === 0,
    detail: bad.length ? `${bad.length} intents with more than one${sample(bad)}` : `${total} provider transfers, none doubled`,
  };
}

/** Every event once in the outbox: no object has the same status event twice. */
async function eventsOnce(): Promise<CheckResult> {
  const dup: Array<{ id: string; n: number }> = await db().query(`
    SELECT object_id || ' ' || type AS id, count(*)::int AS n FROM events
     WHERE type !~ '(updated|viewed|reminder|deposit_received|delivery|attempt)'
     GROUP BY object_id, type HAVING count(*) > 1`);
  const total = await n(`SELECT count(*)::int AS n FROM events`);
  return {
    name: 'every event once in the outbox',
    ok: dup.length === 0,
    detail: dup.length ? `${dup.length} doubled${sample(dup.map((d) => `${d.id} x${d.n}`))}` : `${total} events, none doubled`,
  };
}

/**
 * At most one delivery row per event and endpoint (replays apart) and never two successful attempts
 * recorded for one delivery. A receiver that saw an event twice is allowed when the sender failed in
 * between: an attempt recorded as failed, or one it never recorded (the worker died mid-attempt, so
 * it tried again); those are counted apart.
 */
async function deliveriesAtMostOnce(receivers: Array<{ name: string; endpointId: string; receiver: Receiver }>): Promise<CheckResult> {
  const rows = await ids(
    `SELECT endpoint_id || ' ' || event_id AS id FROM webhook_deliveries WHERE replay_of IS NULL GROUP BY endpoint_id, event_id HAVING count(*) > 1`,
  );
  const twiceOk = await ids(
    `SELECT a.delivery_id AS id FROM webhook_attempts a WHERE a.status_code BETWEEN 200 AND 299 GROUP BY a.delivery_id HAVING count(*) > 1`,
  );
  const delivered = await n(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`);
  const twice: string[] = [];
  let afterFailure = 0;
  for (const r of receivers) {
    for (const [id, c] of r.receiver.seen) {
      if (c < 2) continue;
      // `webhook-id` is the event id (activities/webhooks/drain.ts), the same on every attempt.
      const [a] = await db().query(
        `
        SELECT count(*)::int AS attempts, count(*) FILTER (WHERE x.status_code BETWEEN 200 AND 299)::int AS ok
          FROM webhook_deliveries d JOIN webhook_attempts x ON x.delivery_id = d.id WHERE d.event_id = $1 AND d.endpoint_id = $2`,
        [id, r.endpointId],
      );
      if (a.ok > 1) twice.push(`${r.name}:${id} x${c}`);
      else if (a.attempts < c || a.attempts > a.ok) afterFailure += 1;
      else twice.push(`${r.name}:${id} x${c} (${a.attempts} attempts recorded)`);
    }
  }
  const bad = [...rows.map((r) => `row ${r}`), ...twiceOk.map((d) => `delivery ${d} succeeded twice`), ...twice];
  const again = afterFailure ? `; ${afterFailure} received again after a failed or unrecorded attempt (at least once)` : '';
  return {
    name: 'each event delivered at most once per endpoint',
    ok: bad.length === 0,
    detail: bad.length ? `${bad.length} doubled${sample(bad)}${again}` : `${delivered} deliveries succeeded, none doubled${again}`,
  };
}

/** No running workflow without its row. */
async function workflowsHaveRows(temporal: Client): Promise<CheckResult> {
  const running: string[] = [];
  for await (const w of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) running.push(w.workflowId);
  const known = new Set(
    await ids(`
    SELECT id FROM payments UNION ALL SELECT id FROM payment_links UNION ALL SELECT id FROM payouts UNION ALL SELECT id FROM payroll_runs
    UNION ALL SELECT id FROM payroll_run_items UNION ALL SELECT id FROM wallet_send_intents UNION ALL SELECT id FROM wallet_offramp_intents
    UNION ALL SELECT id FROM subscriptions UNION ALL SELECT id FROM webhook_endpoints UNION ALL SELECT id FROM orders UNION ALL SELECT id FROM customers
    UNION ALL SELECT id FROM wallet_virtual_accounts UNION ALL SELECT id FROM wallet_deposit_intents UNION ALL SELECT id FROM wallet_conversions`),
  );
  const orphans = running.filter((id) => !known.has(id));
  return {
    name: 'no workflow without its row',
    ok: orphans.length === 0,
    detail: orphans.length
      ? `${orphans.length} of ${running.length} running without a row${sample(orphans)}`
      : `${running.length} running, each with its row`,
  };
}
