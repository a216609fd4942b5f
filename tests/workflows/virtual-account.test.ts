/**
 * The virtual-account workflow under the Java time-skipping test server with real activities on
 * real PostgreSQL (spec 2.5, 4.5, part 6 `virtual_account.*`; issue 14): a credit converted into
 * the wallet exactly once even when the workflow is woken again, a
 * deactivated account's workflow ending (its terminal state) and returning a later credit after
 * starting again, and a replay of every completed history.
 */
import { virtualAccountContract } from '../../contracts/virtual-account';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { recordVirtualAccountCredit, createVirtualAccount, setVirtualAccountStatus } from '../../activities/virtual-accounts/commands';
import { wakeVirtualAccount } from '../../activities/virtual-accounts/signals';
import { systemScope } from '../../activities/scope';
import { db } from '../../lib/db';
import { bankCollection } from '../../providers/bank-collection';
import { eventually, newAccount } from '../helpers/api';
import { toAccountOf } from '../helpers/bank';
import { startWorkflowHarness, type WorkflowHarness } from '../helpers/temporal';

let h: WorkflowHarness;
let env: TestWorkflowEnvironment;
const req = { id: 'req_test', idempotency_key: null };

beforeAll(async () => {
  h = await startWorkflowHarness();
  env = h.env;
}, 600_000);

afterAll(async () => {
  await h?.stop();
});

const credits = async (vaId: string) =>
  (await db().query(
    'SELECT status, usdc_minor, return_reason FROM wallet_virtual_account_credits WHERE virtual_account_id = $1 ORDER BY created_at',
    [vaId],
  )) as Array<{ status: string; usdc_minor: string | null; return_reason: string | null }>;

async function credit(va: { currency: string; instructions: Array<Record<string, string | null>> }, amount: bigint): Promise<void> {
  const i = va.instructions[0];
  const c = await bankCollection().receive({
    rail: String(i.rail),
    currency: va.currency,
    amount,
    reference: i.reference,
    toAccount: toAccountOf(i),
    senderName: 'Ana Diaz',
  });
  expect(await recordVirtualAccountCredit(c, 2)).toBe(true);
}

test('credits converted once; deactivated: the workflow ends, a later credit is returned by a new run; replay', async () => {
  const acct = await newAccount();
  const va = await createVirtualAccount(systemScope(acct.account_id, true, req), { currency: 'GBP' });
  await credit(va, 10000n); // GBP 100.00 at 1.27
  await eventually(async () => (await credits(va.id))[0]?.status === 'converted', 'converted');
  await wakeVirtualAccount(va.id, acct.account_id);
  await eventually(
    async () => (await env.client.workflow.getHandle(va.id).query(virtualAccountContract.queries.waitingFor)).includes('next bank credit'),
    'waiting for the next credit',
  );
  expect(await credits(va.id)).toEqual([{ status: 'converted', usdc_minor: '127000000', return_reason: null }]);

  await setVirtualAccountStatus(systemScope(acct.account_id, true, req), { id: va.id, to: 'inactive' });
  expect(await env.client.workflow.getHandle(va.id).result()).toBe('inactive');
  await credit(va, 500n);
  await eventually(async () => (await credits(va.id))[1]?.status === 'returned', 'returned');
  expect((await credits(va.id))[1].return_reason).toBe('R16 Account frozen');
  expect(await env.client.workflow.getHandle(va.id).result()).toBe('inactive');
  const types = (await db().query(`SELECT type FROM events WHERE object_id = $1 ORDER BY seq`, [va.id])).map(
    (r: { type: string }) => r.type,
  );
  expect(types).toEqual(['virtual_account.created', 'virtual_account.deposit_received', 'virtual_account.deactivated']);

  const history = await env.client.workflow.getHandle(va.id).fetchHistory();
  let n = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowsPath: require.resolve('../../workflows'), replayName: 'virtual-account-replay' },
    [{ workflowId: va.id, history }],
  )) {
    expect(r.error).toBeUndefined();
    n++;
  }
  expect(n).toBe(1);
}, 60_000);
