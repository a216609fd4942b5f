/**
 * The Idempotency-Key replay window through the API (spec 8: "replay within 24 hours returns the
 * stored response; forgotten after"), its value from tests/fixtures/deadlines.ts: a record a minute
 * short of 24 hours old is replayed, one a second past it is forgotten and the request runs anew.
 */
import { db } from '../../lib/db';
import { BEFORE_MS, deadline } from '../fixtures/deadlines';
import { client, expectOk, idem, newAccount } from '../helpers/api';

test('a stored response is replayed a minute before 24 hours, forgotten a second after', async () => {
  const creds = await newAccount();
  const api = client(creds.live_key);
  const key = idem();
  const body = { display_name: 'Window Client', email: 'window@example.com' };
  const first = expectOk(await api.post('/v1/clients', body, { idem: key }), 201);
  const window = deadline('idempotency_replay');
  /** Makes the key's record `ageMs` old (database clock, the API's machine). */
  const age = (ageMs: number) =>
    db().query(`UPDATE idempotency_records SET created_at = now() - make_interval(secs => $3) WHERE account_id = $1 AND key = $2`, [
      creds.account_id,
      key,
      ageMs / 1000,
    ]);

  await age(window.ms - BEFORE_MS);
  const replayed = await api.post('/v1/clients', body, { idem: key });
  expect(replayed.status).toBe(201);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.id).toBe(first.id);

  await age(window.ms + window.slackMs);
  const anew = await api.post('/v1/clients', body, { idem: key });
  expect(anew.status).toBe(201);
  expect(anew.headers.get('idempotent-replayed')).toBeNull();
  expect(anew.body.id).not.toBe(first.id);
});
