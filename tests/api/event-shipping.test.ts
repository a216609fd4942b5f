/**
 * Shipping a catalogued event family is an operator switch (spec 6; issue 14): with
 * `events.ship.send_intent` off (the default) the `send_intent.*` events are in the outbox but
 * neither listed nor delivered; switched on (here for one account's cohort, so parallel test files
 * are untouched) the family is listed, readable by id, and fanned out to webhook endpoints, while
 * another account still sees nothing.
 */
import { call, client, connectDb, eventually, eventuallyReported, expectError, expectOk, newAccount } from '../helpers/api';
import { db } from '../../lib/db';
import { setSwitch } from '../../lib/switches';

beforeAll(async () => {
  await connectDb();
});

const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';

async function holderWithEndpoint() {
  const acct = await newAccount();
  const s = client(acct.session_token);
  const key = client(acct.live_key);
  const wallet = expectOk(await s.get('/v1/wallet/wallets')).data[0];
  const asset = expectOk(await s.get('/v1/wallet/balances')).balances[0].asset as string;
  expectOk(
    await call(
      'POST',
      '/sim/chain/transfers',
      { chain: wallet.chain, asset, to_address: wallet.address, amount: '5000000', from_address: OTHER },
      { idem: null },
    ),
    201,
  );
  const endpoint = expectOk(
    await key.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/wallet', description: 'all events' }),
    201,
  );
  const sendIntent = async () => {
    const si = expectOk(
      await s.post('/v1/wallet/send_intents', {
        destination_chain: wallet.chain,
        destination_address: OTHER,
        amount: { amount: '100000', currency: asset, decimals: 6 },
      }),
      201,
    );
    return (await db().query(`SELECT id FROM events WHERE object_id = $1 AND type = 'send_intent.created'`, [si.id]))[0].id as string;
  };
  // Dispatched = the dispatcher's durable cursor has passed the event.
  const dispatched = (eventId: string) =>
    eventuallyReported(
      async () =>
        (
          await db().query(`SELECT (SELECT seq FROM outbox_cursors WHERE name = 'webhooks') >= seq AS passed FROM events WHERE id = $1`, [
            eventId,
          ])
        )[0].passed === true,
      'dispatched',
    );
  const deliveries = async (eventId: string) =>
    Number(
      (await db().query('SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2', [eventId, endpoint.id]))[0]
        .count,
    );
  return { acct, key, sendIntent, dispatched, deliveries };
}

test('off by default: recorded, not listed, not delivered; on for the account: listed, readable, delivered', async () => {
  const h = await holderWithEndpoint();
  const first = await h.sendIntent();
  await h.dispatched(first);
  expect(await h.deliveries(first)).toBe(0);
  expect(expectOk(await h.key.get('/v1/events?type=send_intent.created')).data).toEqual([]);
  expectError(await h.key.get(`/v1/events/${first}`), 404, 'not_found');

  await setSwitch('events.ship.send_intent', true, h.acct.account_id);
  // The API's flag cache turns over within seconds; the event recorded before is listed from then on.
  await eventually(
    async () => expectOk(await h.key.get('/v1/events?type=send_intent.created')).data.length === 1,
    'the family listed',
    10000,
  );
  expect(expectOk(await h.key.get(`/v1/events/${first}`)).type).toBe('send_intent.created');
  const second = await h.sendIntent();
  await eventually(async () => (await h.deliveries(second)) === 1, 'delivered to the endpoint', 30000);
  // Only that family: wallet.created and the other families stay unshipped for this account.
  expectError(await h.key.get('/v1/events?type=send_intent.bogus'), 400, 'invalid_request', 'event_type_unknown', 'type');

  const other = await holderWithEndpoint();
  const theirs = await other.sendIntent();
  await other.dispatched(theirs);
  expect(await other.deliveries(theirs)).toBe(0);
  expect(expectOk(await other.key.get('/v1/events?type=send_intent.created')).data).toEqual([]);
});
