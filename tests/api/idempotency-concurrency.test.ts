/**
 * Concurrent duplicates where money moves (issue 25 item 5; spec 8 `Idempotency-Key`,
 * docs/decisions/0003-idempotency.md). Every money mutation receives eight identical requests under one key at once:
 * exactly one executes (the only answer without `Idempotent-Replayed`), every other answer is a
 * replay of it (same status, byte-identical body) or, for a duplicate still waiting after 10 s,
 * `409 conflict` `idempotency_key_in_use`; nothing else. Behind the answers: one object, one
 * creation event under the key, one provider call and one workflow where the operation makes
 * them. The same key with eight different bodies at once: one winner, the others
 * `409 idempotency_error` `idempotency_key_reused`, one object. Operations: payouts (create,
 * funding instructions), wallet send intents and off-ramp intents, orders, payroll runs (create,
 * approve, funding instructions, execute), the payment link refund, subscriptions. One account
 * per area; the areas run concurrently.
 */
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { db } from '../../lib/db';
import { API, call, client, connectDb, eventually, expectOk, idem, newAccount } from '../helpers/api';
import { BENEFICIARY } from '../helpers/bank';

const N = 8;
const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
const evm = () => `0x${crypto.randomBytes(20).toString('hex')}`;
const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
const sim = (path: string, body: unknown) => call('POST', `/sim${path}`, body, { idem: null });

let temporal: Client;
let connection: Connection;

beforeAll(async () => {
  await connectDb();
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  temporal = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
});

/** One answer as it came over the wire: the body's exact text besides its parse. */
interface Answer {
  status: number;
  text: string;
  body: any;
  replayed: boolean;
}

/** POSTs `body` to `path` with credential `cred` and Idempotency-Key `key`. */
async function post(cred: string, path: string, body: unknown, key: string): Promise<Answer> {
  const auth: Record<string, string> = cred.startsWith('sk_') ? { 'x-api-key': cred } : { authorization: `Bearer ${cred}` };
  const r = await fetch(`${API()}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: the assertions show the text */
  }
  return { status: r.status, text, body: parsed, replayed: r.headers.get('idempotent-replayed') === 'true' };
}

/** Fires N requests under one fresh key at once: the same `body` each, or `body(i)` for request i. */
async function burst(cred: string, path: string, body: unknown | ((i: number) => unknown)): Promise<{ key: string; answers: Answer[] }> {
  const key = idem();
  const bodyOf = typeof body === 'function' ? (body as (i: number) => unknown) : () => body;
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => post(cred, path, bodyOf(i), key)));
  return { key, answers };
}

const show = (a: Answer) => `${a.status}${a.replayed ? ' (replayed)' : ''} ${a.text.slice(0, 300)}`;
const inUse = (a: Answer) => a.status === 409 && a.body?.error?.type === 'conflict' && a.body.error.code === 'idempotency_key_in_use';

/**
 * Identical concurrent requests: exactly one executed with `status`; every other answer replays it
 * (same status, byte-identical body) or is the documented in-flight answer
 * (`409 conflict idempotency_key_in_use`). Returns the executed answer's body.
 */
function executedOnce(answers: Answer[], status: number): any {
  const all = answers.map(show).join('\n');
  const executed = answers.filter((a) => !a.replayed && !inUse(a));
  if (executed.length !== 1 || executed[0].status !== status) throw new Error(`expected exactly one executed ${status}, got:\n${all}`);
  const [first] = executed;
  for (const a of answers) {
    if (a === first || inUse(a)) continue;
    if (!a.replayed || a.status !== status || a.text !== first.text)
      throw new Error(`an answer is neither a byte-identical replay nor idempotency_key_in_use:\n${show(a)}\nexecuted:\n${show(first)}`);
  }
  return first.body;
}

/** The same key with a different body each: one winner with `status`, every other `409 idempotency_error idempotency_key_reused`. */
function oneWinner(answers: Answer[], status: number): any {
  const all = answers.map(show).join('\n');
  const won = answers.filter((a) => a.status === status);
  const lost = answers.filter(
    (a) =>
      a.status === 409 &&
      a.body?.error?.type === 'idempotency_error' &&
      a.body.error.code === 'idempotency_key_reused' &&
      a.body.error.param === 'Idempotency-Key',
  );
  if (won.length !== 1 || won[0].replayed || lost.length !== N - 1)
    throw new Error(`expected one ${status} and ${N - 1} idempotency_key_reused, got:\n${all}`);
  return won[0].body;
}

/** Rows of `table` whose `account_id` is `accountId`. */
async function rows(table: string, accountId: string): Promise<number> {
  return (await db().query(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId]))[0].n;
}

/** Events of `type` written under Idempotency-Key `key` (the outbox rows of the executions). */
async function eventsUnder(accountId: string, type: string, key: string): Promise<number> {
  return (
    await db().query('SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = $2 AND idempotency_key = $3', [
      accountId,
      type,
      key,
    ])
  )[0].n;
}

/**
 * The account's workflows of `type` (by the AccountId search attribute), each id with its number
 * of runs, once every id in `expected` is visible.
 */
async function workflowsOf(accountId: string, type: string, expected: string[]): Promise<Map<string, number>> {
  return eventually(
    async () => {
      const runs = new Map<string, number>();
      for await (const w of temporal.workflow.list({ query: `AccountId = '${accountId}' AND WorkflowType = '${type}'` }))
        runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
      return expected.every((id) => runs.has(id)) ? runs : null;
    },
    `${type} workflows of ${expected.join(', ')}`,
  );
}

/**
 * Exactly the workflows `ids` of `type` for the account, one run each (unless `oneRun` is false:
 * a workflow that may have closed before the request and been started again by its signal).
 */
async function expectWorkflows(accountId: string, type: string, ids: string[], oneRun = true): Promise<void> {
  const runs = await workflowsOf(accountId, type, ids);
  expect([...runs.keys()].sort()).toEqual([...ids].sort());
  if (oneRun) for (const id of ids) expect(runs.get(id)).toBe(1);
}

test.concurrent(
  'payouts: create and the funding money boundary execute once',
  async () => {
    const acct = await newAccount();
    const key = client(acct.live_key);
    const body = { invoice_amount: usd('100000'), corridor_id: 'usd_ach', note: 'INV-concurrent' };

    const created = await burst(acct.live_key, '/v1/payouts', body);
    const payout = executedOnce(created.answers, 201);
    expect(payout).toMatchObject({ object: 'payout', status: 'draft' });
    expect(await rows('payouts', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'payout.created', created.key)).toBe(1);

    const mixed = await burst(acct.live_key, '/v1/payouts', (i: number) => ({ ...body, note: `INV-${i}` }));
    const winner = oneWinner(mixed.answers, 201);
    expect(await rows('payouts', acct.account_id)).toBe(2);
    expect((await db().query('SELECT note FROM payouts WHERE id = $1', [winner.id]))[0].note).toBe(winner.note);

    expectOk(
      await key.post(`/v1/payouts/${payout.id}/beneficiary`, {
        account_owner_type: 'business',
        account_holder_name: 'Supplier LLC',
        account_number: '123456789',
        routing_number: '021000021',
      }),
    );
    const funded = await burst(acct.session_token, `/v1/payouts/${payout.id}/funding_instructions`, {
      source_chain: 'base',
      refund_address: OTHER.toLowerCase(),
    });
    const fi = executedOnce(funded.answers, 200);
    expect(fi).toMatchObject({ object: 'payout_funding_instructions', status: 'awaiting_funds', chain: 'base' });
    expect((await db().query('SELECT count(*)::int AS n FROM payout_attempts WHERE payout_id = $1', [payout.id]))[0].n).toBe(1);
    expect(await eventsUnder(acct.account_id, 'payout.configuration_committed', funded.key)).toBe(1);
    expect(
      (await db().query('SELECT count(*)::int AS n FROM sandbox_bridge_transfers WHERE client_reference = $1', [payout.id]))[0].n,
    ).toBe(1);
    await expectWorkflows(acct.account_id, 'payoutWorkflow', [payout.id]);

    // A different refund address per request on the second payout: one attempt, one transfer.
    expectOk(
      await key.post(`/v1/payouts/${winner.id}/beneficiary`, {
        account_owner_type: 'business',
        account_holder_name: 'Supplier LLC',
        account_number: '123456789',
        routing_number: '021000021',
      }),
    );
    const refunds = Array.from({ length: N }, () => evm());
    const racing = await burst(acct.session_token, `/v1/payouts/${winner.id}/funding_instructions`, (i: number) => ({
      source_chain: 'base',
      refund_address: refunds[i],
    }));
    const won = oneWinner(racing.answers, 200);
    expect(refunds).toContain(won.refund_address.toLowerCase());
    expect((await db().query('SELECT count(*)::int AS n FROM payout_attempts WHERE payout_id = $1', [winner.id]))[0].n).toBe(1);
    expect(
      (await db().query('SELECT count(*)::int AS n FROM sandbox_bridge_transfers WHERE client_reference = $1', [winner.id]))[0].n,
    ).toBe(1);
    await expectWorkflows(acct.account_id, 'payoutWorkflow', [payout.id, winner.id]);
  },
  90_000,
);

test.concurrent(
  'wallet send intents: one intent, one bridge transfer, one workflow',
  async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
    const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
    expectOk(
      await sim('/chain/transfers', { chain: wallet.chain, asset, to_address: wallet.address, amount: '50000000', from_address: OTHER }),
      201,
    );
    // The bridged route: the provider transfer is opened inside the request.
    const body = { destination_chain: 'base', destination_address: OTHER, amount: { amount: '2000000', currency: asset, decimals: 6 } };

    const sent = await burst(acct.session_token, '/v1/wallet/send_intents', body);
    const si = executedOnce(sent.answers, 201);
    expect(si).toMatchObject({ object: 'send_intent', status: 'created', route: 'bridge' });
    expect(await rows('wallet_send_intents', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'send_intent.created', sent.key)).toBe(1);
    expect((await db().query('SELECT count(*)::int AS n FROM sandbox_bridge_transfers WHERE client_reference = $1', [si.id]))[0].n).toBe(1);
    await expectWorkflows(acct.account_id, 'sendIntentWorkflow', [si.id]);

    const mixed = await burst(acct.session_token, '/v1/wallet/send_intents', (i: number) => ({ ...body, note: `send ${i}` }));
    const winner = oneWinner(mixed.answers, 201);
    expect(await rows('wallet_send_intents', acct.account_id)).toBe(2);
    const intents: string[] = (await db().query('SELECT id FROM wallet_send_intents WHERE account_id = $1', [acct.account_id])).map(
      (r: { id: string }) => r.id,
    );
    expect(
      (await db().query('SELECT count(*)::int AS n FROM sandbox_bridge_transfers WHERE client_reference = ANY($1)', [intents]))[0].n,
    ).toBe(2);
    await expectWorkflows(acct.account_id, 'sendIntentWorkflow', [si.id, winner.id]);
  },
  90_000,
);

test.concurrent(
  'wallet off-ramp intents: one intent, one workflow',
  async () => {
    const acct = await newAccount();
    const s = client(acct.session_token);
    const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
    const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
    expectOk(
      await sim('/chain/transfers', { chain: wallet.chain, asset, to_address: wallet.address, amount: '50000000', from_address: OTHER }),
      201,
    );
    const ba = expectOk(
      await s.post('/v1/wallet/external_accounts', {
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        ...BENEFICIARY.sepa,
      }),
      201,
    );
    const body = {
      external_account_id: ba.id,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: { amount: '10000000', currency: asset, decimals: 6 },
    };

    const made = await burst(acct.session_token, '/v1/wallet/offramp_intents', body);
    const ofr = executedOnce(made.answers, 201);
    expect(ofr).toMatchObject({ object: 'offramp_intent', status: 'awaiting_funds' });
    expect(await rows('wallet_offramp_intents', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'offramp_intent.created', made.key)).toBe(1);
    await expectWorkflows(acct.account_id, 'offrampIntentWorkflow', [ofr.id]);

    const mixed = await burst(acct.session_token, '/v1/wallet/offramp_intents', (i: number) => ({
      ...body,
      amount: { ...body.amount, amount: String(10000000 + i) },
    }));
    const winner = oneWinner(mixed.answers, 201);
    expect(await rows('wallet_offramp_intents', acct.account_id)).toBe(2);
    await expectWorkflows(acct.account_id, 'offrampIntentWorkflow', [ofr.id, winner.id]);
  },
  90_000,
);

test.concurrent(
  'orders: one order, one provider order, one workflow',
  async () => {
    const acct = await newAccount();
    const key = client(acct.live_key);
    const offer = async () => {
      const q = expectOk(
        await key.post('/v1/quotes', { side: 'buy', from_asset: 'USD', to_asset: 'USDC', from_amount: '1000', to_network: 'tempo' }),
        201,
      );
      return q.offers.find((o: { provider: { id: string } }) => o.provider.id === 'native_fiat').offer_id as string;
    };

    const placed = await burst(acct.live_key, '/v1/orders', { offer_id: await offer(), wallet_address: evm() });
    const order = executedOnce(placed.answers, 201);
    expect(order).toMatchObject({ object: 'order', provider: { id: 'native_fiat' }, status: 'awaiting_payment' });
    expect(await rows('orders', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'order.created', placed.key)).toBe(1);
    expect(await rows('sandbox_provider_orders', acct.account_id)).toBe(1);
    await expectWorkflows(acct.account_id, 'orderWorkflow', [order.id]);

    const fresh = await offer();
    const mixed = await burst(acct.live_key, '/v1/orders', () => ({ offer_id: fresh, wallet_address: evm() }));
    const winner = oneWinner(mixed.answers, 201);
    expect(await rows('orders', acct.account_id)).toBe(2);
    expect(await rows('sandbox_provider_orders', acct.account_id)).toBe(2);
    await expectWorkflows(acct.account_id, 'orderWorkflow', [order.id, winner.id]);
  },
  90_000,
);

test.concurrent(
  'payroll runs: create, approve, funding instructions and execute each execute once',
  async () => {
    const acct = await newAccount();
    const key = client(acct.live_key);
    const body = {
      title: 'Concurrent payroll',
      currency: 'USD',
      rows: [{ email: 'ana@example.com', name: 'Ana Diaz', amount: usd('250000') }],
    };

    const made = await burst(acct.live_key, '/v1/payroll_runs', body);
    const run = executedOnce(made.answers, 201);
    expect(run).toMatchObject({ object: 'payroll_run', status: 'reviewed' });
    expect(await rows('payroll_runs', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'payroll_run.created', made.key)).toBe(1);
    const mixed = await burst(acct.live_key, '/v1/payroll_runs', (i: number) => ({ ...body, title: `Payroll ${i}` }));
    oneWinner(mixed.answers, 201);
    expect(await rows('payroll_runs', acct.account_id)).toBe(2);

    // The recipient gives a bank destination through the session link; the business adopts it.
    const [item] = expectOk(await key.get(`/v1/payroll_runs/${run.id}/items`)).data;
    const token = expectOk(await key.post(`/v1/payroll_runs/${run.id}/items/${item.id}/reissue_link`, {})).recipient_session
      .token as string;
    expectOk(
      await call('POST', `/v1/payroll_recipient_sessions/${token}/destination`, {
        type: 'bank_account',
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        rail: 'ach',
        account_number: '000123456789',
        routing_number: '021000021',
      }),
      201,
    );
    const rcp = expectOk(await key.get(`/v1/payroll_recipients/${item.recipient.id}`));
    expectOk(
      await key.post(`/v1/payroll_recipients/${item.recipient.id}/adopt_pending_destination`, {
        expected_submitted_at: rcp.pending_destination.submitted_at,
      }),
    );

    const approved = await burst(acct.live_key, `/v1/payroll_runs/${run.id}/approve`, {});
    expect(executedOnce(approved.answers, 200)).toMatchObject({ id: run.id, status: 'funding_pending' });
    expect(await eventsUnder(acct.account_id, 'payroll_run.approved', approved.key)).toBe(1);
    await expectWorkflows(acct.account_id, 'payrollRunWorkflow', [run.id]);

    const funding = await burst(acct.live_key, `/v1/payroll_runs/${run.id}/funding_instructions`, {});
    const fi = executedOnce(funding.answers, 200);
    expect(fi).toMatchObject({ object: 'payroll_funding_instructions', status: 'pending', bank: { rail: 'ach', amount: usd('250000') } });
    expect((await db().query('SELECT count(*)::int AS n FROM payroll_funding_attempts WHERE run_id = $1', [run.id]))[0].n).toBe(1);
    expect(await eventsUnder(acct.account_id, 'payroll_run.funding_instructions_requested', funding.key)).toBe(1);
    expect(
      (await db().query('SELECT count(*)::int AS n FROM sandbox_collection_accounts WHERE client_reference = $1', [run.id]))[0].n,
    ).toBe(1);

    expectOk(
      await sim('/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '250000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      }),
      201,
    );
    expectOk(await key.post(`/v1/payroll_runs/${run.id}/funding_instructions`, {}));
    expect(expectOk(await key.get(`/v1/payroll_runs/${run.id}`))).toMatchObject({ status: 'funded', funding_state: 'funded' });

    const executed = await burst(acct.live_key, `/v1/payroll_runs/${run.id}/execute`, {});
    expect(executedOnce(executed.answers, 200)).toMatchObject({ id: run.id, status: 'executing' });
    expect(await eventsUnder(acct.account_id, 'payroll_run.execution_started', executed.key)).toBe(1);
    await eventually(
      async () => ['completed', 'partial', 'failed'].includes(expectOk(await key.get(`/v1/payroll_runs/${run.id}`)).status),
      'run finished',
      60_000,
    );
    expect(expectOk(await key.get(`/v1/payroll_runs/${run.id}`)).status).toBe('completed');
    expect((await db().query('SELECT count(*)::int AS n FROM sandbox_rail_payments WHERE client_reference = $1', [item.id]))[0].n).toBe(1);
    await expectWorkflows(acct.account_id, 'payrollItemWorkflow', [item.id]);
    await expectWorkflows(acct.account_id, 'payrollRunWorkflow', [run.id]);
  },
  120_000,
);

test.concurrent(
  'payment link refund: one refund event, one transfer back to the payer',
  async () => {
    const acct = await newAccount();
    const key = client(acct.live_key);
    // A crypto destination: the paid payment is held for it, so the merchant can still refund.
    const adr = expectOk(
      await client(acct.session_token).post('/v1/address_book', { kind: 'crypto', chain: 'base', address: evm(), label: 'Treasury' }),
      201,
    ).id;
    const link = expectOk(
      await key.post('/v1/payment_links', { amount: usd('1000'), title: 'Refund race', settlement_destination: { address_book_id: adr } }),
      201,
    );
    const active = expectOk(await key.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
    const token = String(active.url).split('/pay/')[1];
    const pay = expectOk(await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }, { idem: null }), 201);
    const di = pay.deposit_instructions;
    expectOk(
      await sim('/chain/transfers', {
        chain: di.chain,
        to_address: di.address,
        asset: di.asset,
        amount: di.amount.amount,
        from_address: `0x${'34'.repeat(20)}`,
      }),
      201,
    );
    await eventually(async () => expectOk(await key.get(`/v1/payment_links/${link.id}`)).status === 'paid', 'link paid');

    const refunded = await burst(acct.live_key, `/v1/payment_links/${link.id}/refund`, { reason: 'duplicate' });
    expect(executedOnce(refunded.answers, 200)).toMatchObject({ id: link.id, status: 'refunded' });
    expect(await eventsUnder(acct.account_id, 'payment_link.refunded', refunded.key)).toBe(1);
    expect(
      (await db().query(`SELECT count(*)::int AS n FROM events WHERE object_id = $1 AND type = 'payment_link.refunded'`, [link.id]))[0].n,
    ).toBe(1);
    await eventually(
      async () => (await db().query('SELECT refund_rail_payment_id FROM payments WHERE id = $1', [pay.id]))[0].refund_rail_payment_id,
      'refund sent',
    );
    const back = await db().query('SELECT amount_minor FROM sandbox_chain_transfers WHERE idempotency_key LIKE $1', [`refund:${pay.id}%`]);
    expect(back).toHaveLength(1);
    // The refund signals the payment's own workflow (signalWithStart runs it again if it had closed): no other workflow.
    await expectWorkflows(acct.account_id, 'paymentWorkflow', [pay.id], false);
  },
  90_000,
);

test.concurrent(
  'subscriptions: one subscription, one workflow, one first invoice',
  async () => {
    const acct = await newAccount();
    const key = client(acct.live_key);
    const clientId = expectOk(
      await key.post('/v1/clients', { display_name: 'Subscriber Co', email: 'billing@subscriber.example' }),
      201,
    ).id;
    const wallet = expectOk(
      await client(acct.session_token).post('/v1/address_book', { kind: 'crypto', chain: 'tempo', address: evm(), label: 'Own wallet' }),
      201,
    ).id;
    const body = {
      client_id: clientId,
      amount: { amount: '25000000', currency: 'USDC', decimals: 6 },
      interval: 'month',
      settlement_destination_id: wallet,
      description: 'Hosting',
    };

    const made = await burst(acct.live_key, '/v1/subscriptions', body);
    const sub = executedOnce(made.answers, 201);
    expect(sub).toMatchObject({ object: 'subscription', status: 'active' });
    expect(await rows('subscriptions', acct.account_id)).toBe(1);
    expect(await eventsUnder(acct.account_id, 'subscription.created', made.key)).toBe(1);
    await expectWorkflows(acct.account_id, 'subscriptionWorkflow', [sub.id]);
    await eventually(async () => (await rows('subscription_invoices', acct.account_id)) > 0, 'first invoice');

    const mixed = await burst(acct.live_key, '/v1/subscriptions', (i: number) => ({ ...body, description: `Hosting ${i}` }));
    const winner = oneWinner(mixed.answers, 201);
    expect(await rows('subscriptions', acct.account_id)).toBe(2);
    await expectWorkflows(acct.account_id, 'subscriptionWorkflow', [sub.id, winner.id]);
    await eventually(async () => (await rows('subscription_invoices', acct.account_id)) === 2, 'one first invoice each');
    expect(await rows('subscription_invoices', acct.account_id)).toBe(2);
  },
  90_000,
);
