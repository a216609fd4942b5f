/**
 * Customers over HTTP (spec 4.7, 2.8, 2.2; issue 15): create (owner only, no personal data, the
 * account's customer type and country follow), every named error, the race of two creates with
 * different types (one wins, the other `409 customer_type_conflict`), `me` with its Deprecation
 * header, verification links (`tos` first), the provider's decisions played by `/sim/kyc/decisions`
 * applied by the customer's workflow with their events, the stale mapping, associated persons, the
 * compliance profile meeting a requirement, payouts freezing the verified legal name, the flag.
 */
import { call, client, connectDb, eventually, expectError, expectOk, memberSession, newAccount } from '../helpers/api';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';
import { customerResponse } from '../../views/customer';

beforeAll(async () => {
  await connectDb();
});

const decide = (b: Record<string, unknown>) => call('POST', '/sim/kyc/decisions', b, { idem: null });
const types = async (id: string) =>
  (await db().query('SELECT type FROM events WHERE object_id = $1 ORDER BY seq', [id])).map((r: { type: string }) => r.type);

test('create: owner only, no personal data, the account follows; every named error', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  expect(expectOk(await s.get('/v1/customers'))).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  expectError(await client(acct.live_key).post('/v1/customers', { customer_type: 'business' }), 403, 'permission_error', 'role_denied');
  expectError(
    await client(await memberSession(acct.account_id, 'admin')).post('/v1/customers', { customer_type: 'business' }),
    403,
    'permission_error',
    'scope_denied',
  );
  expectError(await client(acct.test_key).get('/v1/customers'), 503, 'temporarily_unavailable');
  // Spec 4.7: a test-mode key on POST /customers is 503 (test mode comes before the caller class), not 403.
  expectError(
    await client(acct.test_key).post('/v1/customers', { customer_type: 'business' }),
    503,
    'temporarily_unavailable',
    'test_mode_not_supported',
  );
  // `country` is `^[A-Z]{2}$` exactly: lower case is refused, not upper-cased.
  expectError(
    await s.post('/v1/customers', { customer_type: 'business', country: 'de' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'country',
  );
  expectError(
    await s.post('/v1/customers', { customer_type: 'individual', legal_name: 'Acme' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'legal_name',
  );
  expectError(
    await s.post('/v1/customers', { customer_type: 'business', legal_name: '   ' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'legal_name',
  );
  expectError(
    await s.post('/v1/customers', { customer_type: 'business', country: 'ZZ' }),
    400,
    'invalid_request',
    'country_invalid',
    'country',
  );
  expectError(
    await s.post('/v1/customers', { customer_type: 'business', date_of_birth: '1990-01-01' }),
    400,
    'invalid_request',
    'parameter_unknown',
  );
  const c = expectOk(await s.post('/v1/customers', { customer_type: 'business', country: 'DE', legal_name: '  Acme GmbH  ' }), 201);
  const { error } = customerResponse.validate(c);
  expect(error).toBeUndefined();
  expect(c).toMatchObject({
    object: 'customer',
    customer_type: 'business',
    country: 'DE',
    legal_name: 'Acme GmbH',
    verification_state: 'not_started',
    requirements_outstanding: 0,
  });
  expect(c.id).toMatch(/^cus_/);
  expect(expectOk(await s.get('/v1/account'))).toMatchObject({ customer_type: 'business' });
  expectError(await s.post('/v1/customers', { customer_type: 'business' }), 409, 'conflict', 'customer_already_exists');
  expectError(await s.post('/v1/customers', { customer_type: 'individual' }), 409, 'conflict', 'customer_type_conflict');
  const list = expectOk(await client(acct.live_key).get('/v1/customers'));
  expect(list).toMatchObject({ has_more: false, data: [{ id: c.id }] });
  const me = await s.get('/v1/customers/me');
  expect(expectOk(me).id).toBe(c.id);
  expect(me.headers.get('deprecation')).toBeTruthy();
  expect(me.headers.get('sunset')).toBeTruthy();
  expect((await s.get(`/v1/customers/${c.id}`)).headers.get('deprecation')).toBeNull();
  expectError(await client((await newAccount()).session_token).get(`/v1/customers/${c.id}`), 404, 'not_found');
});

test('two creates at once with different types: one wins, the other 409 customer_type_conflict', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const [a, b] = await Promise.all([
    s.post('/v1/customers', { customer_type: 'business' }),
    s.post('/v1/customers', { customer_type: 'individual' }),
  ]);
  expect([a.status, b.status].sort()).toEqual([201, 409]);
  const lost = a.status === 409 ? a : b;
  expectError(lost, 409, 'conflict', 'customer_type_conflict');
  const won = a.status === 201 ? a : b;
  expect(expectOk(await s.get('/v1/account')).customer_type).toBe(won.body.customer_type);
  expect(Number((await db().query('SELECT count(*) FROM customers WHERE account_id = $1', [acct.account_id]))[0].count)).toBe(1);
});

test('verification: links (tos first), the provider decides, the workflow applies it with events; stale mapping; persons; profile; payouts take the verified legal name', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const c = expectOk(await s.post('/v1/customers', { customer_type: 'business', legal_name: 'Verified Legal Name Ltd' }), 201);
  expectError(
    await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'beneficial_owners' }),
    409,
    'conflict',
    'tos_link_required',
  );
  expectError(
    await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'identity_document' }),
    400,
    'invalid_request',
    'parameter_invalid',
    'kind',
  );
  const tos = expectOk(await s.post(`/v1/customers/${c.id}/verification_links`, { kind: 'tos' }), 201);
  expect(tos).toMatchObject({
    object: 'verification_link',
    kind: 'tos',
    customer_id: c.id,
    url: expect.stringMatching(new RegExp(`^${process.env.PAYER_HOST}/sandbox/kyc/kyc_[0-9a-f]+/tos\\?t=`)),
  });
  expectOk(await s.post('/v1/customers/me/verification_links', { kind: 'beneficial_owners' }), 201);
  // Spec 5: a business key with customers.write creates verification links.
  expect(expectOk(await client(acct.live_key).post(`/v1/customers/${c.id}/verification_links`, { kind: 'tos' }), 201)).toMatchObject({
    kind: 'tos',
    customer_id: c.id,
  });
  const get = async () => expectOk(await s.get(`/v1/customers/${c.id}`));
  await eventually(async () => (await get()).verification_state === 'pending', 'pending');

  expectOk(
    await decide({
      customer_id: c.id,
      state: 'action_required',
      requirements_due: ['compliance_profile', 'proof_of_address'],
      associated_persons: [{ id: 'per_1', role: 'ubo', name_masked: 'J*** D***', verification_state: 'approved' }],
    }),
    201,
  );
  const ar = await eventually(async () => {
    const x = await get();
    return x.verification_state === 'action_required' ? x : null;
  }, 'action required');
  expect(ar).toMatchObject({ requirements_outstanding: 2, requirements_due: ['compliance_profile', 'proof_of_address'] });
  expect(expectOk(await s.get(`/v1/customers/${c.id}/associated_persons`)).data).toEqual([
    { id: 'per_1', object: 'associated_person', role: 'ubo', name_masked: 'J*** D***', verification_state: 'approved' },
  ]);
  const prof = expectOk(
    await s.patch(`/v1/customers/${c.id}/compliance_profile`, { business_activity: 'Software', account_purpose: 'payouts' }),
  );
  expect(prof).toMatchObject({
    requirements_due: ['proof_of_address'],
    compliance_profile: { business_activity: 'Software', account_purpose: 'payouts' },
  });
  expect(expectOk(await s.patch(`/v1/customers/${c.id}/compliance_profile`, {})).compliance_profile).toMatchObject({
    business_activity: 'Software',
  });
  expectError(
    await s.patch(`/v1/customers/${c.id}/compliance_profile`, { date_of_birth: '1990-01-01' }),
    400,
    'invalid_request',
    'parameter_unknown',
  );

  expectOk(await decide({ customer_id: c.id, state: 'stale_mapping' }), 201);
  await eventually(async () => ((await s.get('/v1/customers')).status === 409 ? true : null), 'stale');
  expectError(await s.get('/v1/customers'), 409, 'conflict', 'customer_mapping_stale');

  expectOk(await decide({ customer_id: c.id, state: 'approved', requirements_due: [], endorsements: ['base', 'sepa'] }), 201);
  const ok = await eventually(async () => {
    const x = await get();
    return x.verification_state === 'approved' ? x : null;
  }, 'approved');
  expect(ok).toMatchObject({ endorsements: ['base', 'sepa'], requirements_outstanding: 0 });
  expect(ok.verified_at).not.toBeNull();
  const evs = expectOk(await s.get(`/v1/customers/${c.id}/events`)).data.map((e: { type: string }) => e.type);
  expect(evs).toEqual(expect.arrayContaining(['customer.verification_state_changed', 'customer.requirements_updated']));
  expect((await types(c.id)).filter((t: string) => t === 'customer.verification_state_changed').length).toBeGreaterThanOrEqual(3);

  // Payouts freeze the verified legal name.
  const po = expectOk(
    await client(acct.live_key).post('/v1/payouts', {
      invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 },
      corridor_id: 'usd_ach',
    }),
    201,
  );
  expect(po.capability_snapshot.legal_entity_name).toBe('Verified Legal Name Ltd');

  expectOk(await decide({ customer_id: c.id, state: 'rejected', rejection_outcome: 'resubmission_allowed' }), 201);
  const rej = await eventually(async () => {
    const x = await get();
    return x.verification_state === 'rejected' ? x : null;
  }, 'rejected');
  expect(rej).toMatchObject({
    rejection_outcome: 'resubmission_allowed',
    rejection_guidance: expect.stringContaining('new verification link'),
  });
  expect(await types(c.id)).toContain('customer.rejected');
  expectError(await decide({ customer_id: 'cus_nope', state: 'approved' }), 404, 'not_found');
});

test('the flag closed for the account: 409 capability_unavailable', async () => {
  const acct = await newAccount();
  const s = client(acct.session_token);
  await setSwitch('customers.enabled', false, acct.account_id);
  await eventually(async () => ((await s.get('/v1/customers')).status === 409 ? true : null), 'closed', 10000);
  expectError(await s.get('/v1/customers'), 409, 'capability_unavailable', 'capability_unavailable');
});
