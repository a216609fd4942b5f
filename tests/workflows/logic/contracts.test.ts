/**
 * Workflow contracts (contracts/; docs/architecture.md "Contracts"): one per workflow type of
 * workflows/index.ts, with the names running workflows and the stored histories
 * (tests/workflows/histories/) depend on pinned here: workflow type, signals, queries. And the
 * generic start/signal helpers of temporal/client.ts send exactly what the contract says, with the
 * starting API request's id when there is one (a recording client: no server).
 */
import type { Client } from '@temporalio/client';
import { CONTRACTS } from '../../../contracts';
import { customerContract } from '../../../contracts/customer';
import { payoutContract } from '../../../contracts/payout';
import { paymentContract } from '../../../contracts/payment';
import { xchainPaymentContract } from '../../../contracts/xchain-payment';
import { runInRequest } from '../../../lib/request-context';
import { closeTemporalClient, setTemporalClient, signalIfRunning, startIfAbsent, startOrSignal } from '../../../temporal/client';
import * as workflows from '../../../workflows';

/**
 * Wire names that must never change (stored histories, running workflows): type -> [signal names
 * the workflow accepts (current, then legacy), queries]. Keys follow the naming rule below.
 */
const PINNED: Record<string, [string[], string[]]> = {
  paymentWorkflow: [['deposit', 'linkEnded', 'providerUpdate', 'retry'], ['waiting_for']],
  xchainPaymentWorkflow: [['deposit', 'linkEnded', 'bridgeUpdate', 'retry'], ['waiting_for']],
  paymentLinkWorkflow: [['linkChanged', 'retry'], ['waiting_for']],
  webhookEndpointWorkflow: [
    ['deliver', 'retry'],
    ['waiting_for', 'deliveries'],
  ],
  payoutWorkflow: [['providerUpdate', 'reconciliation', 'retry', 'fund', 'payoutDeposit', 'cancelled'], ['waiting_for']],
  payrollRunWorkflow: [['update', 'returnFunds', 'retry'], ['waiting_for']],
  payrollItemWorkflow: [['update', 'retry'], ['waiting_for']],
  sendIntentWorkflow: [['update', 'retry'], ['waiting_for']],
  virtualAccountWorkflow: [['update', 'retry'], ['waiting_for']],
  depositIntentWorkflow: [['depositIntentUpdate', 'retry'], ['waiting_for']],
  conversionWorkflow: [['conversionUpdate', 'retry'], ['waiting_for']],
  offrampIntentWorkflow: [['update', 'retry'], ['waiting_for']],
  customerWorkflow: [['update', 'retry'], ['waiting_for']],
  orderWorkflow: [['update', 'retry'], ['waiting_for']],
  subscriptionWorkflow: [['changed', 'retry'], ['waiting_for']],
};

/**
 * The one naming rule for signals (docs/decisions/0075): every contract has `update` (the object
 * changed: re-read it) and `retry` (an operator fixed a parked step); any other key names news the
 * object's row does not carry.
 */
const NEWS_SIGNALS = ['deposit', 'linkEnded', 'reconciliation', 'returnFunds'];

const workflowTypes = Object.entries(workflows)
  .filter(([name, v]) => typeof v === 'function' && /Workflow$/.test(name))
  .map(([name]) => name)
  .sort();

test('one contract per workflow type of workflows/index.ts, naming the exported function', () => {
  expect(CONTRACTS.map((c) => c.workflowType).sort()).toEqual(workflowTypes);
  expect(Object.keys(PINNED).sort()).toEqual(workflowTypes);
});

test.each(CONTRACTS.map((c) => [c.workflowType, c] as const))('%s keeps its signal and query names', (type, c) => {
  const [signals, queries] = PINNED[type];
  expect([...Object.values(c.signals), ...Object.values(c.legacySignals ?? {})].map((d) => d.name)).toEqual(signals);
  // `waitingFor` is the `waiting_for` query.
  expect(Object.values(c.queries).map((d) => d.name)).toEqual(queries);
  expect(c.queries.waitingFor.name).toBe('waiting_for');
});

test.each(CONTRACTS.map((c) => [c.workflowType, c] as const))('%s names its signals by the one rule (update, retry, news)', (_type, c) => {
  const keys = Object.keys(c.signals);
  expect(keys).toEqual(expect.arrayContaining(['update', 'retry']));
  for (const k of keys) expect(['update', 'retry', ...NEWS_SIGNALS]).toContain(k);
  // A legacy wire name is never also a current one.
  for (const d of Object.values(c.legacySignals ?? {})) expect(Object.values(c.signals).map((x) => x.name)).not.toContain(d.name);
});

test.each(CONTRACTS.map((c) => [c.workflowType, c] as const))(
  '%s starts with the object id as its one argument (and how its run calls its steps)',
  (_type, c) => {
    const id = `${c.idPrefix}abc`;
    const [args] = c.startArgs(id);
    // `localSteps` (issue 36, workflows/convention.ts proxyDatabaseActivities) is the run's form, not object state.
    const { localSteps, ...rest } = args as { localSteps?: boolean };
    expect(Object.values(rest)).toEqual([id]);
    expect([undefined, true]).toContain(localSteps);
  },
);

test('the cross-network watcher shares the payment signals it handles (same definitions)', () => {
  for (const name of ['deposit', 'linkEnded', 'retry'] as const)
    expect(xchainPaymentContract.signals[name]).toBe(paymentContract.signals[name]);
  expect(xchainPaymentContract.queries.waitingFor).toBe(paymentContract.queries.waitingFor);
});

describe('temporal/client.ts helpers: what they send comes from the contract', () => {
  const calls: Array<Record<string, unknown>> = [];
  const notFound = new Set<string>();
  beforeAll(() => {
    const workflow = {
      async signalWithStart(type: unknown, o: Record<string, unknown>) {
        calls.push({ kind: 'signalWithStart', type, ...o });
      },
      async start(type: unknown, o: Record<string, unknown>) {
        calls.push({ kind: 'start', type, ...o });
      },
      getHandle(workflowId: string) {
        return {
          async signal(def: { name: string }, ...args: unknown[]) {
            if (notFound.has(workflowId)) throw Object.assign(new Error('not found'), { name: 'WorkflowNotFoundError' });
            calls.push({ kind: 'signal', workflowId, signal: def.name, args });
          },
        };
      },
    };
    setTemporalClient({ workflow } as unknown as Client);
  });
  afterAll(async () => {
    await closeTemporalClient();
  });
  beforeEach(() => {
    calls.length = 0;
  });

  test("startOrSignal: signalWithStart of the contract's workflow type, its start arguments and the signal", async () => {
    await startOrSignal(payoutContract, { id: 'po_1', accountId: 'acct_1' }, payoutContract.signals.reconciliation, {
      needsAttention: true,
    });
    expect(calls).toMatchObject([
      {
        kind: 'signalWithStart',
        type: 'payoutWorkflow',
        workflowId: 'po_1',
        args: [{ payoutId: 'po_1' }],
        signal: { name: 'reconciliation' },
        signalArgs: [{ needsAttention: true }],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      },
    ]);
  });

  test("startIfAbsent: start of the contract's workflow type with its start arguments", async () => {
    await startIfAbsent(customerContract, { id: 'cus_1', accountId: 'acct_1' });
    expect(calls).toMatchObject([{ kind: 'start', type: 'customerWorkflow', workflowId: 'cus_1', args: [{ customerId: 'cus_1' }] }]);
  });

  test('a start inside an API request records its id (memo request_id, RequestId); outside a request, neither', async () => {
    await runInRequest({ requestId: 'req_ticket' }, () =>
      startOrSignal(payoutContract, { id: 'po_1', accountId: 'acct_1' }, payoutContract.signals.update),
    );
    await runInRequest({ requestId: 'req_ticket2' }, () => startIfAbsent(customerContract, { id: 'cus_1', accountId: 'acct_1' }));
    await startIfAbsent(customerContract, { id: 'cus_2', accountId: 'acct_1' });
    const attrs = (c: Record<string, unknown>) =>
      (c.typedSearchAttributes as Array<{ key: { name: string }; value: unknown }>).map((p) => [p.key.name, p.value]);
    expect(calls.map((c) => c.memo)).toEqual([{ request_id: 'req_ticket' }, { request_id: 'req_ticket2' }, undefined]);
    expect(calls.map(attrs)).toEqual([
      [
        ['AccountId', 'acct_1'],
        ['RequestId', 'req_ticket'],
      ],
      [
        ['AccountId', 'acct_1'],
        ['RequestId', 'req_ticket2'],
      ],
      [['AccountId', 'acct_1']],
    ]);
  });

  test('signalIfRunning: signals the open run; false when none is open', async () => {
    expect(await signalIfRunning(payoutContract, 'po_2', payoutContract.signals.update)).toBe(true);
    notFound.add('po_3');
    expect(await signalIfRunning(payoutContract, 'po_3', payoutContract.signals.update)).toBe(false);
    expect(calls).toEqual([{ kind: 'signal', workflowId: 'po_2', signal: 'providerUpdate', args: [] }]);
  });

  test('a signal of another contract is refused before anything is sent', async () => {
    await expect(startOrSignal(customerContract, { id: 'cus_1', accountId: 'acct_1' }, payoutContract.signals.update)).rejects.toThrow(
      /not a signal of customerWorkflow/,
    );
    // Same name, another definition: refused too (each contract owns its definitions).
    await expect(startOrSignal(customerContract, { id: 'cus_1', accountId: 'acct_1' }, payoutContract.signals.retry)).rejects.toThrow(
      /not a signal of customerWorkflow/,
    );
    expect(calls).toEqual([]);
  });
});
