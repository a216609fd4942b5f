/**
 * The chaos harness's invariants as pure functions over plain data (bench/chaos/invariants.ts
 * reads that data from PostgreSQL and Temporal): each takes rows and answers a `CheckResult`,
 * `ok` with what it looked at, or the violations named with a few examples. Amounts are bigint
 * minor units; times are ms epoch. No I/O, so tests plant violations in a healthy run's data.
 */

/** One check's outcome. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

/** Up to four examples, prefixed for a detail line. */
export const sample = (xs: string[]): string => (xs.length ? ` e.g. ${xs.slice(0, 4).join(', ')}` : '');

/**
 * An object not in a terminal status, with its workflow's state and, when it has one, the deadline
 * it must be closed by: a spec deadline stored on the row (payment TTL, link expiry, payout funding
 * window, send TTL, off-ramp funding deadline) or a progress deadline (money arrived and the product
 * alone moves it on), `atMs` ms epoch, `what` names it, `slackMs` is the slack allowed past it.
 */
export interface OpenObject {
  id: string;
  status: string;
  workflow: 'running' | 'closed' | 'missing';
  waitingFor: string | null;
  deadline: { atMs: number; what: string; slackMs: number } | null;
}

/** An object kind: its name and the statuses in which its workflow must be running. */
export interface ObjectKind {
  kind: string;
  live: string[];
}

/**
 * Terminal or explainable (an open object's workflow runs and `waiting_for` says why, or it waits
 * for the merchant or the outside world with no workflow due), and, for kinds with live statuses,
 * no live object without its running workflow. `total` counts every object of the kind.
 */
export function objectStateChecks(objectKind: ObjectKind, total: number, open: OpenObject[]): CheckResult[] {
  const unexplained: string[] = [];
  const liveWithout: string[] = [];
  const waits = new Map<string, number>();
  for (const r of open) {
    if (r.workflow === 'running') {
      const why = (r.waitingFor ?? '').slice(0, 60);
      if (!why) unexplained.push(`${r.id} (${r.status}, empty waiting_for)`);
      waits.set(`${r.status}: ${why}`, (waits.get(`${r.status}: ${why}`) ?? 0) + 1);
    } else if (objectKind.live.includes(r.status)) {
      liveWithout.push(`${r.id} (${r.status}, workflow ${r.workflow})`);
    } else {
      waits.set(`${r.status}: no workflow due`, (waits.get(`${r.status}: no workflow due`) ?? 0) + 1);
    }
  }
  const explained = [...waits.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, v]) => `${v} ${k}`)
    .join('; ');
  const out: CheckResult[] = [
    {
      name: `${objectKind.kind}s terminal or explainable`,
      ok: unexplained.length === 0,
      detail: `${total - open.length} of ${total} terminal${open.length ? `; open: ${explained}` : ''}${unexplained.length ? `; UNEXPLAINED ${unexplained.length}${sample(unexplained)}` : ''}`,
    },
  ];
  if (objectKind.live.length) {
    out.push({
      name: `${objectKind.kind}s live => workflow running`,
      ok: liveWithout.length === 0,
      detail: liveWithout.length
        ? `${liveWithout.length} live without a running workflow${sample(liveWithout)}`
        : `${open.filter((r) => objectKind.live.includes(r.status)).length} live, each with its workflow`,
    });
  }
  return out;
}

/**
 * No open object past its deadline plus that deadline's slack at `nowMs`, whatever its
 * `waiting_for` says (a workflow that explains why it waits is no excuse for missing a deadline).
 */
export function deadlineCheck(kind: string, open: OpenObject[], nowMs: number): CheckResult {
  const withDeadline = open.filter((r) => r.deadline !== null);
  const late = withDeadline
    .filter((r) => nowMs > r.deadline!.atMs + r.deadline!.slackMs)
    .map(
      (r) =>
        `${r.id} (${r.status}, ${r.deadline!.what} ${Math.round((nowMs - r.deadline!.atMs) / 1000)} s ago, slack ${r.deadline!.slackMs / 1000} s)`,
    );
  return {
    name: `${kind}s closed by their deadline + slack`,
    ok: late.length === 0,
    detail: late.length
      ? `${late.length} open past the deadline${sample(late)}`
      : `${withDeadline.length} open with a deadline, none past it`,
  };
}

const row = (name: string, bad: string[], of: number): CheckResult => ({
  name,
  ok: bad.length === 0,
  detail: bad.length ? `${bad.length} of ${of} off${sample(bad)}` : `${of} checked`,
});

/**
 * A payment's money: `received` (what it says it received), `applied` (applied deposits and bank
 * credits, less returned credits), `out` (its settlement: chain transfers and rail payments).
 */
export interface PaymentMoney {
  id: string;
  status: string;
  received: bigint;
  applied: bigint;
  out: bigint;
}
/** A payout's money: USDC deposited, the smallest attempt's gross (null: no attempt), rail payments `paid` for it. */
export interface PayoutMoney {
  id: string;
  status: string;
  deposited: bigint;
  gross: bigint | null;
  paidRailPayments: number;
}
/** An off-ramp's money: received vs amount; rail payments of the quoted destination amount, and paid ones. */
export interface OfframpMoney {
  id: string;
  status: string;
  received: bigint;
  amount: bigint;
  railPaymentsOfQuote: number;
  paidRailPayments: number;
}
/** A send: on-chain transfers with its source tx hash and its amount. */
export interface SendMoney {
  id: string;
  status: string;
  transfersOfAmount: number;
}
/** Everything the money checks read. `pending`: deposits and credits still unapplied; `arrivals`: all of them. */
export interface MoneyData {
  payments: PaymentMoney[];
  pending: string[];
  arrivals: number;
  payouts: PayoutMoney[];
  offramps: OfframpMoney[];
  sends: SendMoney[];
}

/**
 * Money in = money out + held, per kind that moves money: a payment received what was applied and
 * settled out no more (a settled one something); nothing left unapplied; a payout was funded before
 * it was paid out and paid once at the rail; a processed off-ramp received its amount and paid the
 * quote once, a refunded one paid nobody; a settled send is one transfer of its amount.
 */
export function moneyChecks(money: MoneyData): CheckResult[] {
  const paid = new Set(['processing', 'paid', 'settled']);
  return [
    row(
      'payments: received = deposits + credits',
      money.payments.filter((p) => p.received !== p.applied).map((p) => `${p.id} (received ${p.received}, applied ${p.applied})`),
      money.payments.length,
    ),
    row(
      'payments: settled out <= received',
      money.payments
        .filter((p) => p.out > p.received || (p.status === 'settled' && p.out === 0n))
        .map((p) => `${p.id} (${p.status}, out ${p.out}, received ${p.received})`),
      money.payments.length,
    ),
    row('payments: no deposit or credit left unapplied', money.pending, money.arrivals),
    row(
      'payouts: funded before paid out',
      money.payouts
        .filter((p) => paid.has(p.status) && p.gross !== null && p.deposited < p.gross)
        .map((p) => `${p.id} (deposited ${p.deposited} < ${p.gross})`),
      money.payouts.length,
    ),
    row(
      'payouts: one paid rail payment when paid',
      money.payouts
        .filter((p) => (p.status === 'paid' || p.status === 'settled') && p.paidRailPayments !== 1)
        .map((p) => `${p.id} (${p.paidRailPayments} paid)`),
      money.payouts.length,
    ),
    row(
      'off-ramps: in = out, or refunded',
      money.offramps
        .filter(
          (o) =>
            (o.status === 'payment_processed' && (o.received !== o.amount || o.railPaymentsOfQuote !== 1)) ||
            (o.status === 'refunded' && o.paidRailPayments > 0),
        )
        .map((o) => `${o.id} (${o.status}, received ${o.received} of ${o.amount}, ${o.railPaymentsOfQuote} rail payments)`),
      money.offramps.length,
    ),
    row(
      'sends: one on-chain transfer of the amount',
      money.sends
        .filter((s) => s.status === 'settled' && s.transfersOfAmount !== 1)
        .map((s) => `${s.id} (${s.transfersOfAmount} transfers)`),
      money.sends.length,
    ),
  ];
}
