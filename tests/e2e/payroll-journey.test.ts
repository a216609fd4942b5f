/**
 * Payroll journeys end to end, driven only through the API, the recipients' public session links
 * and `/sim` (issue 13; spec 2.7, 3, 4.4, 6, 8): a USD run paying a bank destination, the sandbox's
 * failing test account and a USDC wallet; recipients submit their destinations through their
 * session links and the business adopts them; approval, bank funding instructions, a short bank
 * credit (partially funded, execute refused naming the shortfall), the top-up, execution ending
 * `partial`, the items, the export and the run's events. A crypto-funded EUR run funded by a USDC
 * transfer to its funding address and executed to `completed`.
 */
import { call, client, connectDb, eventually, expectError, expectOk, newAccount } from '../helpers/api';

beforeAll(async () => {
  await connectDb();
});

type Api = ReturnType<typeof client>;
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const money = (amount: string, currency = 'USD') => ({ amount, currency, decimals: 2 });
const usBank = (account: string, name: string) => ({
  type: 'bank_account',
  account_owner_type: 'individual',
  account_holder_name: name,
  rail: 'ach',
  account_number: account,
  routing_number: '021000021',
});

/** The recipient of `item` receives a link, submits `destination`, and the business adopts it. */
async function giveDestination(
  api: Api,
  runId: string,
  item: { id: string; recipient: { id: string } },
  destination: Record<string, unknown>,
) {
  const link = expectOk(await api.post(`/v1/payroll_runs/${runId}/items/${item.id}/reissue_link`, {}));
  const token = link.recipient_session.token as string;
  const seen = expectOk(await call('GET', `/v1/payroll_recipient_sessions/${token}`, undefined, { idem: null }));
  expect(seen).toMatchObject({ can_submit: true });
  expectOk(await call('POST', `/v1/payroll_recipient_sessions/${token}/destination`, destination), 201);
  const rcp = expectOk(await api.get(`/v1/payroll_recipients/${item.recipient.id}`));
  const adopted = expectOk(
    await api.post(`/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
      expected_submitted_at: rcp.pending_destination.submitted_at,
    }),
  );
  expect(adopted.updated_run_items).toContain(item.id);
}

const runOf = (api: Api, id: string) => api.get(`/v1/payroll_runs/${id}`).then((r) => expectOk(r));
const finishes = (api: Api, id: string) =>
  eventually(
    async () => {
      const r = await runOf(api, id);
      return ['completed', 'partial', 'failed'].includes(r.status) ? r : null;
    },
    `run ${id} finished`,
    60_000,
  );

test('USD by bank: destinations through session links, short credit then top-up, execute -> partial with the failing test account', async () => {
  const api = client((await newAccount()).live_key);
  const run = expectOk(
    await api.post('/v1/payroll_runs', {
      title: 'December payroll',
      currency: 'USD',
      pay_period_start: '2026-12-01',
      pay_period_end: '2026-12-31',
      rows: [
        { email: 'ana@example.com', name: 'Ana Diaz', amount: money('250000'), memo: 'December' },
        { email: 'bo@example.com', name: 'Bo Chen', amount: money('120000') },
        { email: 'cy@example.com', name: 'Cy Okafor', amount: money('30000') },
      ],
    }),
    201,
  );
  const items = expectOk(await api.get(`/v1/payroll_runs/${run.id}/items`)).data;
  await giveDestination(api, run.id, items[0], usBank('000123456789', 'Ana Diaz'));
  await giveDestination(api, run.id, items[1], usBank('000111111116', 'Bo Chen'));
  await giveDestination(api, run.id, items[2], { type: 'wallet', chain: 'tempo', address: WALLET });
  expect((await runOf(api, run.id)).item_counts).toMatchObject({ total: 3, destination_ready: 3 });

  expect(expectOk(await api.post(`/v1/payroll_runs/${run.id}/approve`, {})).status).toBe('funding_pending');
  const fi = expectOk(await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
  expect(fi).toMatchObject({
    funding_route_type: 'bank',
    run_reference: run.run_reference,
    bank: { rail: 'ach', reference: run.run_reference },
  });

  // 3,000.00 of 4,000.00 arrives: the run is funded (not fully), and execute names the shortfall.
  expectOk(
    await call(
      'POST',
      '/sim/bank/credits',
      {
        rail: 'ach',
        currency: 'USD',
        amount: '300000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      },
      { idem: null },
    ),
    201,
  );
  expectOk(await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
  expect(await runOf(api, run.id)).toMatchObject({
    status: 'funded',
    funding_state: 'partially_funded',
    needs_attention: true,
    funding_confirmed_amount: money('300000'),
  });
  const refused = await api.post(`/v1/payroll_runs/${run.id}/execute`, {});
  expectError(refused, 409, 'conflict', 'payroll_run_underfunded');
  expect(refused.body.error.details.shortfall).toEqual(money('100000'));

  expectOk(
    await call(
      'POST',
      '/sim/bank/credits',
      {
        rail: 'ach',
        currency: 'USD',
        amount: '100000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      },
      { idem: null },
    ),
    201,
  );
  expectOk(await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
  expect(await runOf(api, run.id)).toMatchObject({
    funding_state: 'funded',
    needs_attention: false,
    funding_confirmed_amount: money('400000'),
  });

  expect(expectOk(await api.post(`/v1/payroll_runs/${run.id}/execute`, {})).status).toBe('executing');
  const done = await finishes(api, run.id);
  expect(done).toMatchObject({ status: 'partial', needs_attention: true });
  expect(done.completed_at).toEqual(expect.any(String));
  const after = expectOk(await api.get(`/v1/payroll_runs/${run.id}/items`)).data;
  expect(after.map((i: { status: string; failure_reason: string | null }) => [i.status, i.failure_reason])).toEqual([
    ['paid', null],
    ['failed', 'no_account'],
    ['paid', null],
  ]);
  const one = expectOk(await api.get(`/v1/payroll_runs/${run.id}/items/${after[0].id}`));
  expect(one.paid_at).toEqual(expect.any(String));

  const csv = await api.get(`/v1/payroll_runs/${run.id}/export`);
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(String(csv.body ?? '')).toMatch(/paid/);
  const types = (expectOk(await api.get(`/v1/payroll_runs/${run.id}/events?limit=100`)).data as Array<{ type: string }>)
    .map((e) => e.type)
    .reverse();
  expect(types).toEqual(
    expect.arrayContaining([
      'payroll_run.created',
      'payroll_run.approved',
      'payroll_run.funding_verified',
      'payroll_run.execution_started',
      'payroll_run.partial',
    ]),
  );
  expect(types.indexOf('payroll_run.funding_verified')).toBeLessThan(types.indexOf('payroll_run.execution_started'));
  // The links of a finished run cannot be reissued.
  expectError(
    await api.post(`/v1/payroll_runs/${run.id}/items/${after[0].id}/reissue_link`, {}),
    409,
    'conflict',
    'payroll_run_state_changed',
  );
});

test('EUR by USDC: priced instructions, a transfer to the funding address, execute -> completed', async () => {
  const api = client((await newAccount()).live_key);
  const run = expectOk(
    await api.post('/v1/payroll_runs', {
      title: 'EU contractors',
      currency: 'EUR',
      funding_method: 'crypto',
      rows: [{ email: 'eva@example.com', name: 'Eva Roth', amount: money('100000', 'EUR') }],
    }),
    201,
  );
  const [item] = expectOk(await api.get(`/v1/payroll_runs/${run.id}/items`)).data;
  await giveDestination(api, run.id, item, {
    type: 'bank_account',
    account_owner_type: 'individual',
    account_holder_name: 'Eva Roth',
    rail: 'sepa',
    iban: 'DE89370400440532013000',
  });
  expectOk(await api.post(`/v1/payroll_runs/${run.id}/approve`, {}));
  const fi = expectOk(await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
  expect(fi).toMatchObject({
    funding_route_type: 'crypto_deposit_to_wallet',
    bank: null,
    crypto: { amount: { amount: '1080000000', decimals: 6 } },
  });
  expect(fi.crypto.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: fi.crypto.chain, asset: fi.crypto.asset, to_address: fi.crypto.address, amount: fi.crypto.amount.amount },
      { idem: null },
    ),
    201,
  );
  expectOk(await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
  expect(await runOf(api, run.id)).toMatchObject({ status: 'funded', funding_state: 'funded' });
  expectError(
    await api.post(`/v1/payroll_runs/${run.id}/funding_instructions`, { funding_method: 'fiat' }),
    409,
    'conflict',
    'funding_method_locked',
  );
  expectOk(await api.post(`/v1/payroll_runs/${run.id}/execute`, {}));
  expect((await finishes(api, run.id)).status).toBe('completed');
});
