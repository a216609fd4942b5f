/**
 * Webhook envelope `sequence` and re-enabling an endpoint with `replay_missed` (issue 17), against
 * the shared stack and a real local https receiver: an object's events carry increasing sequences;
 * a disabled endpoint records `disabled_at`; re-enabling with `replay_missed: true` delivers, once,
 * every event it missed since then (a repeat queues nothing); `replay_missed` alone is refused.
 */
import { client, connectDb, expectError, expectOk, newAccount, webhooksSettled } from '../helpers/api';
import { Receiver, testTls, verify } from '../helpers/receiver';

const receiver = new Receiver({ tls: testTls() });
beforeAll(async () => {
  await connectDb();
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });

test('sequence increases per object; a re-enabled endpoint replays what it missed since disabled_at, once', async () => {
  const acct = await newAccount();
  const api = client(acct.live_key);
  const target = receiver.path('missed');
  const endpoint = expectOk(
    await api.post('/v1/webhook_endpoints', { url: target.url, event_types: ['payment_link.created', 'payment_link.activated'] }),
    201,
  );
  const link = expectOk(
    await api.post('/v1/payment_links', { amount: usd('1200'), title: 'Sequenced', accepted_rail_kinds: ['crypto'] }),
    201,
  );
  expectOk(await api.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
  const seen = await receiver.waitFor(target.path, 2, 'two deliveries');
  const bodies = seen.map((r) => verify(endpoint.secret, r));
  const created = bodies.find((b) => b.type === 'payment_link.created');
  const activated = bodies.find((b) => b.type === 'payment_link.activated');
  expect(Number.isInteger(created.sequence)).toBe(true);
  expect(activated.sequence).toBeGreaterThan(created.sequence);
  const listed = expectOk(await api.get(`/v1/events/${created.id}`));
  expect(listed.sequence).toBe(created.sequence);

  const disabled = expectOk(await api.patch(`/v1/webhook_endpoints/${endpoint.id}`, { enabled: false }));
  expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'manual', disabled_at: expect.any(String) });
  const missed = [];
  for (const title of ['Missed one', 'Missed two'])
    missed.push(expectOk(await api.post('/v1/payment_links', { amount: usd('500'), title }), 201).id);
  await webhooksSettled(acct.account_id); // deterministic: the missed events got no delivery
  expect(receiver.received(target.path)).toHaveLength(2);

  expectError(
    await api.patch(`/v1/webhook_endpoints/${endpoint.id}`, { replay_missed: true }),
    400,
    'invalid_request',
    'parameter_invalid',
    'replay_missed',
  );
  const enabled = expectOk(await api.patch(`/v1/webhook_endpoints/${endpoint.id}`, { enabled: true, replay_missed: true }));
  expect(enabled).toMatchObject({ enabled: true, disabled_at: null, missed_events_replayed: { since: disabled.disabled_at, count: 2 } });
  const all = await receiver.waitFor(target.path, 4, 'the missed events');
  const replayed = all.slice(2).map((r) => verify(endpoint.secret, r));
  expect(replayed.map((b) => b.data.object.id).sort()).toEqual([...missed].sort());
  const again = expectOk(await api.patch(`/v1/webhook_endpoints/${endpoint.id}`, { enabled: true, replay_missed: true }));
  expect(again.missed_events_replayed).toEqual({ since: null, count: 0 });
  await webhooksSettled(acct.account_id); // deterministic: the repeat queued nothing more
  expect(receiver.received(target.path)).toHaveLength(4);
});
