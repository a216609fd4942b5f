/**
 * The chaos harness's record invariants (bench/chaos/checks-records.ts) against planted
 * violations: a doubled provider transfer, a doubled or lost outbox event, a doubled delivery, a
 * workflow without its row. Each holds on a healthy run's data (tests/helpers/chaos-run.ts) and
 * fails, naming the record, once the violation is planted.
 */
import { deliveriesAtMostOnce, eventsOnce, noEventLost, oneTransferPerIntent, workflowsHaveRows } from '../../bench/chaos/checks-records';
import { healthyRun } from '../helpers/chaos-run';

describe('one provider transfer per intent', () => {
  it('holds on a healthy run', () => {
    expect(oneTransferPerIntent(healthyRun().transfers)).toEqual({
      name: 'one provider transfer per intent',
      ok: true,
      detail: '5 provider transfers, none doubled',
    });
  });

  it.each([
    ['rail', 'po_settled'],
    ['bridge', 'po_settled'],
    ['chain', 'settle:pay_settled'],
  ] as const)('fails on a doubled %s transfer for %s', (provider, ref) => {
    const run = healthyRun();
    run.transfers.push({ provider, ref });
    const c = oneTransferPerIntent(run.transfers);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe(`1 intents with more than one e.g. ${provider} ${ref} x2`);
  });
});

describe('every event once in the outbox', () => {
  it('holds on a healthy run (a repeatable deposit_received twice included)', () => {
    expect(eventsOnce(healthyRun().events)).toMatchObject({ ok: true, detail: '12 events, none doubled' });
  });

  it('fails on a status event written twice', () => {
    const run = healthyRun();
    run.events.find((e) => e.type === 'payment.settled' && e.objectId === 'pay_settled')!.n = 2;
    const c = eventsOnce(run.events);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('1 doubled e.g. pay_settled payment.settled x2');
  });
});

describe('no status event lost', () => {
  it('holds on a healthy run', () => {
    const run = healthyRun();
    expect(noEventLost(run.statuses, run.events)).toMatchObject({ ok: true, detail: '8 status events expected, each in the outbox' });
  });

  it('takes a replacement payout created with payout.created_as_replacement', () => {
    const run = healthyRun();
    const events = run.events.map((e) => (e.objectId === 'po_open' ? { ...e, type: 'payout.created_as_replacement' } : e));
    expect(noEventLost(run.statuses, events).ok).toBe(true);
  });

  it.each([
    ['pay_bank', 'payment.settled', 'pay_bank (settled) without payment.settled'],
    ['po_open', 'payout.created', 'po_open (awaiting_funds) without payout.created or payout.created_as_replacement'],
    ['pr_done', 'payroll_run.completed', 'pr_done (completed) without payroll_run.completed'],
    ['sub_gone', 'subscription.cancelled', 'sub_gone (cancelled) without subscription.cancelled'],
  ])('fails when %s lost its %s event', (id, type, named) => {
    const run = healthyRun();
    const events = run.events.filter((e) => !(e.objectId === id && e.type === type));
    const c = noEventLost(run.statuses, events);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe(`1 of 8 missing e.g. ${named}`);
  });
});

describe('each event delivered at most once per endpoint', () => {
  it('holds on a healthy run, counting a redelivery after a failed attempt apart', () => {
    expect(deliveriesAtMostOnce(healthyRun().deliveries)).toMatchObject({
      ok: true,
      detail: '1 deliveries succeeded, none doubled; 1 received again after a failed or unrecorded attempt (at least once)',
    });
  });

  it('fails on a receiver that got one event twice from two recorded successes', () => {
    const run = healthyRun();
    run.deliveries.receipts[0].okAttempts = 2;
    const c = deliveriesAtMostOnce(run.deliveries);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('1 doubled e.g. fast:evt_1 x2');
  });

  it('fails on two delivery rows for one event and endpoint, and on a delivery succeeding twice', () => {
    const run = healthyRun();
    run.deliveries.rows[0].n = 2;
    run.deliveries.okAttempts.push({ deliveryId: 'wd_9', n: 2 });
    const c = deliveriesAtMostOnce(run.deliveries);
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('2 doubled e.g. row we_fast evt_1, delivery wd_9 succeeded twice');
  });
});

describe('no workflow without its row', () => {
  it('holds on a healthy run', () => {
    const run = healthyRun();
    expect(workflowsHaveRows(run.running, run.known)).toMatchObject({ ok: true, detail: '3 running, each with its row' });
  });

  it('fails on a running workflow whose row is gone', () => {
    const run = healthyRun();
    run.running.push('pay_ghost');
    const c = workflowsHaveRows(run.running, run.known);
    expect(c.ok).toBe(false);
    expect(c.detail).toBe('1 of 4 running without a row e.g. pay_ghost');
  });
});
