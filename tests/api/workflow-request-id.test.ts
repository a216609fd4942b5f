/**
 * The API request that started a workflow is recorded on it (issue 29): a payout's funding request
 * starts its workflow (workflow id = the payout id), which carries that request's `Request-Id` as
 * memo `request_id` and search attribute `RequestId`, so an operator finds the workflow from a
 * merchant's support ticket (`workflow list --query "RequestId='req_...'"`). A later request that
 * only signals the running workflow leaves both unchanged. Against the global-setup dev server.
 */
import { Client, Connection } from '@temporalio/client';
import { REQUEST_KEY } from '../../contracts/search-attributes';
import { client, connectDb, eventually, newAccount } from '../helpers/api';

type Api = ReturnType<typeof client>;
let key: Api;
let session: Api;
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  await connectDb();
  const creds = await newAccount();
  key = client(creds.live_key);
  session = client(creds.session_token);
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

test('the request that starts a payout workflow is its memo request_id and RequestId; the workflow is listed by RequestId', async () => {
  const p = (await key.post('/v1/payouts', { invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 }, corridor_id: 'usd_ach' }))
    .body;
  expect((await key.post(`/v1/payouts/${p.id}/beneficiary`, achBeneficiary)).status).toBe(200);
  const funding = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base' });
  expect(funding.status).toBe(200);
  const requestId = funding.headers.get('request-id')!;
  expect(requestId).toMatch(/^req_/);

  const handle = temporal.workflow.getHandle(p.id);
  const d = await handle.describe();
  expect(d.type).toBe('payoutWorkflow');
  expect(d.memo).toEqual({ request_id: requestId });
  expect(d.typedSearchAttributes.get(REQUEST_KEY)).toBe(requestId);

  const listed = await eventually(async () => {
    const ids: string[] = [];
    for await (const w of temporal.workflow.list({ query: `RequestId = '${requestId}'` })) ids.push(w.workflowId);
    return ids.length ? ids : null;
  }, 'listed by RequestId');
  expect(listed).toEqual([p.id]);

  // A later request only signals the running workflow: the starting request stays recorded.
  const again = await session.post(`/v1/payouts/${p.id}/funding_instructions`, {
    refund_address: '0xde709f2102306220921060314715629080e2fb77',
  });
  expect(again.status).toBe(200);
  expect(again.headers.get('request-id')).not.toBe(requestId);
  const after = await handle.describe();
  expect(after.runId).toBe(d.runId);
  expect(after.memo).toEqual({ request_id: requestId });
  expect(after.typedSearchAttributes.get(REQUEST_KEY)).toBe(requestId);
  await key.post(`/v1/payouts/${p.id}/cancel`, {});
});
