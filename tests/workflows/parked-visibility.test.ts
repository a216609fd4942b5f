/**
 * A workflow parked for an operator is visible as such (issue 29): parkForOperator upserts the Bool
 * search attribute `Parked`, and temporal/visibility.ts countParkedWorkflows counts it under its
 * workflow type while parked and no longer once the `retry` signal resumed it. Visibility counts
 * need the global-setup dev server (the Java time-skipping server has no count or list), so the
 * payout is driven through the running product: funded, its beneficiary removed from the row, USDC
 * deposited, the execution step fails with BeneficiaryMissing (non-retryable) and parks.
 */
import { Client, Connection } from '@temporalio/client';
import { PARKED_KEY } from '../../contracts/search-attributes';
import { payoutContract } from '../../contracts/payout';
import { db } from '../../lib/db';
import { countParkedWorkflows, parkedQuery } from '../../temporal/visibility';
import { call, client, connectDb, eventually, newAccount } from '../helpers/api';
import { CONTRACTS } from '../../contracts';

let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  await connectDb();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  temporal = new Client({ connection });
});

afterAll(async () => {
  await connection?.close();
});

const achBeneficiary = {
  account_owner_type: 'business',
  account_holder_name: 'Supplier LLC',
  account_number: '123456789',
  routing_number: '021000021',
};
const payoutStatus = async (id: string) => (await db().query('SELECT status FROM payouts WHERE id = $1', [id]))[0].status as string;
/** Parked payouts with this workflow id (0 or 1), by the same query countParkedWorkflows counts with. */
const parkedCount = async (id: string) =>
  (await temporal.workflow.count(`${parkedQuery('payoutWorkflow')} AND WorkflowId = '${id}'`)).count;

test('a parked payout is counted under payoutWorkflow while parked, and not after the retry signal resumed it', async () => {
  const creds = await newAccount();
  const key = client(creds.live_key);
  const session = client(creds.session_token);
  const p = (await key.post('/v1/payouts', { invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 }, corridor_id: 'usd_ach' }))
    .body;
  expect((await key.post(`/v1/payouts/${p.id}/beneficiary`, achBeneficiary)).status).toBe(200);
  const f = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base' });
  expect(f.status).toBe(200);
  await eventually(
    async () =>
      (
        await db().query(
          'SELECT a.provider_transfer_id FROM payout_attempts a JOIN payouts p ON p.current_attempt_id = a.id WHERE p.id = $1',
          [p.id],
        )
      )[0]?.provider_transfer_id,
    'provider transfer',
  );
  const handle = temporal.workflow.getHandle(p.id);
  expect((await handle.describe()).typedSearchAttributes.get(PARKED_KEY)).toBeUndefined();

  const cipher = (await db().query('SELECT beneficiary_ciphertext FROM payouts WHERE id = $1', [p.id]))[0].beneficiary_ciphertext;
  await db().query('UPDATE payouts SET beneficiary_ciphertext = NULL WHERE id = $1', [p.id]);
  expect(
    (
      await call(
        'POST',
        '/sim/chain/transfers',
        { chain: 'base', to_address: f.body.deposit_address, asset: 'USDC', amount: f.body.gross_amount.amount },
        { idem: null },
      )
    ).status,
  ).toBe(201);
  await eventually(
    async () => /^an operator: BeneficiaryMissing: /.test(await handle.query<string>('waiting_for')),
    'parked for an operator',
    30_000,
  );
  expect((await handle.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(true);
  await eventually(async () => (await parkedCount(p.id)) === 1, 'Parked = true in visibility');
  const parked = await countParkedWorkflows(temporal);
  expect(Object.keys(parked).sort()).toEqual(CONTRACTS.map((c) => c.workflowType).sort());
  expect(parked.payoutWorkflow).toBeGreaterThanOrEqual(1);

  await db().query('UPDATE payouts SET beneficiary_ciphertext = $2 WHERE id = $1', [p.id, cipher]);
  await handle.signal(payoutContract.signals.retry);
  await eventually(async () => (await payoutStatus(p.id)) === 'processing', 'processing after retry', 30_000);
  expect((await handle.describe()).typedSearchAttributes.get(PARKED_KEY)).toBe(false);
  await eventually(async () => (await parkedCount(p.id)) === 0, 'no longer Parked in visibility');
}, 120_000);
