/**
 * Terms acceptance (spec 1 rule 6; issue 15), enabled here for each test's own account (the
 * `legal.terms_acceptance` switch as a cohort flag, so parallel files are untouched): a money
 * boundary answers `409 capability_unavailable` `terms_acceptance_required` with
 * `details.revision` and `details.action` until the owner accepts (the sandbox plays the person),
 * and the refused Idempotency-Key works afterwards; only the owner accepts for the account; a
 * personal wallet intent needs the acting user's own acceptance; the registry's outage is `503
 * legal_acceptance_unavailable` with Retry-After; a completed idempotent response stays
 * replayable; reads are never gated; readiness shows the acceptance.
 */
import { call, client, connectDb, eventually, expectError, expectOk, idem, memberSession, newAccount } from '../helpers/api';
import { BENEFICIARY } from '../helpers/bank';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';

beforeAll(async () => {
  await connectDb();
});

const accept = (b: Record<string, unknown>) => call('POST', '/sim/legal/acceptances', b, { idem: null });
const fault = (accountId: string, value: string | null) =>
  call('POST', '/sim/providers/faults', { account_id: accountId, name: 'legal.registry_unavailable', value }, { idem: null });

async function gated() {
  const acct = await newAccount();
  await setSwitch('legal.terms_acceptance', true, acct.account_id);
  const s = client(acct.session_token);
  await eventually(
    async () => expectOk(await s.get('/v1/account/readiness')).checks.find((c: { code: string }) => c.code === 'terms_accepted').required,
    'gate on',
    10000,
  );
  return { acct, s };
}

test('account gate: refused until the owner accepts; the refused key works afterwards; readiness shows who and when', async () => {
  const { acct, s } = await gated();
  const key = idem();
  const refused = await s.post('/v1/payouts/po_nope/funding_instructions', {}, { idem: key });
  expectError(refused, 409, 'capability_unavailable', 'terms_acceptance_required');
  expect(refused.body.error.details).toMatchObject({ revision: '2026-11-01', action: 'owner_accepts_terms' });
  const before = expectOk(await s.get('/v1/account/readiness'));
  expect(before.ready).toBe(false);
  expect(before.checks.find((c: { code: string }) => c.code === 'terms_accepted')).toMatchObject({
    required: true,
    status: 'action_required',
    acceptance: null,
  });

  // Another member cannot accept for the account; the owner can (twice: idempotent).
  await memberSession(acct.account_id, 'admin');
  const adminId = (await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'admin'`, [acct.account_id]))[0]
    .user_id;
  expectError(
    await accept({ account_id: acct.account_id, user_id: adminId, scope: 'account' }),
    409,
    'conflict',
    'terms_acceptance_owner_only',
  );
  expectError(await accept({ account_id: acct.account_id, user_id: 'usr_nope' }), 404, 'not_found', 'not_found', 'user_id');
  const a1 = expectOk(await accept({ account_id: acct.account_id }), 201);
  const a2 = expectOk(await accept({ account_id: acct.account_id }), 201);
  expect(a2.id).toBe(a1.id);
  expect(a1).toMatchObject({ scope: 'account', revision: '2026-11-01' });

  // The same key now runs the operation (the refusal was not recorded): the payout does not exist.
  expectError(await s.post('/v1/payouts/po_nope/funding_instructions', {}, { idem: key }), 404, 'not_found');
  const after = expectOk(await s.get('/v1/account/readiness'));
  expect(after.checks.find((c: { code: string }) => c.code === 'terms_accepted')).toMatchObject({
    status: 'complete',
    acceptance: { revision: '2026-11-01', accepted_by_user_id: a1.user_id, accepted_at: a1.accepted_at },
  });
});

test("personal gate: an off-ramp needs the acting user's own acceptance; reads are not gated; a completed response stays replayable", async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, to_address: wallet.address, amount: '10000000' },
      { idem: null },
    ),
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
    amount: { amount: '2000000', currency: asset, decimals: 6 },
  };
  const doneKey = idem();
  const done = expectOk(await s.post('/v1/wallet/offramp_intents', body, { idem: doneKey }), 201);

  await setSwitch('legal.terms_acceptance', true, acct.account_id);
  await eventually(async () => ((await s.post('/v1/wallet/offramp_intents', body)).status === 409 ? true : null), 'gate on', 10000);
  const r = await s.post('/v1/wallet/offramp_intents', body);
  expectError(r, 409, 'capability_unavailable', 'terms_acceptance_required');
  expect(r.body.error.details).toMatchObject({ action: 'user_accepts_terms' });
  // A completed response under its key is replayed as it was, gate or not.
  const replayed = await s.post('/v1/wallet/offramp_intents', body, { idem: doneKey });
  expect(replayed.status).toBe(201);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.id).toBe(done.id);
  // Reads and recovery are not gated.
  expectOk(await s.get(`/v1/wallet/offramp_intents/${done.id}`));
  // The account's acceptance is not the user's own.
  expectOk(await accept({ account_id: acct.account_id }), 201);
  expectError(await s.post('/v1/wallet/offramp_intents', body), 409, 'capability_unavailable', 'terms_acceptance_required');
  const owner = (await db().query(`SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'`, [acct.account_id]))[0]
    .user_id;
  expectOk(await accept({ account_id: acct.account_id, user_id: owner, scope: 'personal' }), 201);
  expect((await s.post('/v1/wallet/offramp_intents', body)).status).toBe(201);
});

test('the acceptance registry down: 503 legal_acceptance_unavailable with Retry-After; keys are gated like sessions', async () => {
  const { acct, s } = await gated();
  const key = client(acct.live_key);
  expectError(await key.post('/v1/payroll_runs/pr_nope/execute', {}), 409, 'capability_unavailable', 'terms_acceptance_required');
  expectOk(await fault(acct.account_id, 'true'));
  const down = await s.post('/v1/payouts/po_nope/funding_instructions', {});
  expectError(down, 503, 'temporarily_unavailable', 'legal_acceptance_unavailable');
  expect(down.headers.get('retry-after')).toBe('30');
  expectOk(await fault(acct.account_id, null));
  expectOk(await accept({ account_id: acct.account_id }), 201);
  expectError(await key.post('/v1/payroll_runs/pr_nope/execute', {}), 404, 'not_found');
});
