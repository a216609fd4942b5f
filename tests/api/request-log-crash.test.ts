/**
 * Request logs survive a SIGKILL (issue 27 item 4, decision 0079; api/middleware/request-log.ts):
 * a second API process on the test database, whose buffer never flushes on its own (1 minute, 10,000
 * rows), answers requests and is SIGKILLed; none of its rows is in the database then. A third API
 * process on the same write-ahead directory replays them at start: every answered request is logged,
 * once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { db } from '../../lib/db';
import { freePort } from '../../lib/ports';
import { connectDb, newAccount } from '../helpers/api';

const root = path.resolve(__dirname, '../..');
const walDir = fs.mkdtempSync(path.join(os.tmpdir(), 'request-log-crash-'));

async function startApi(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'dist/api/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYER_HOST: `http://127.0.0.1:${port}`,
      REQUEST_LOG_WAL_DIR: walDir,
      REQUEST_LOG_FLUSH_MS: '60000',
      REQUEST_LOG_BATCH: '10000',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`api exited early with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child };
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('api did not become healthy');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) r();
    else c.once('exit', () => r());
  });

test('rows of a killed process are replayed by the next start: every answered request logged once', async () => {
  await connectDb();
  const acct = await newAccount();
  const first = await startApi();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${first.url}/v1/account`, { headers: { 'x-api-key': acct.live_key } });
    expect(r.status).toBe(200);
    ids.push(r.headers.get('request-id')!);
  }
  first.child.kill('SIGKILL');
  await exited(first.child);
  const count = async () => Number((await db().query('SELECT count(*)::int AS n FROM request_logs WHERE id = ANY($1)', [ids]))[0].n);
  expect(await count()).toBe(0); // nothing was flushed: the rows were only in memory and in the file

  const second = await startApi();
  try {
    expect(await count()).toBe(ids.length); // replayed before the server listened
    const rows = await db().query('SELECT account_id, api_key_id, status, path FROM request_logs WHERE id = $1', [ids[0]]);
    expect(rows[0]).toMatchObject({ account_id: acct.account_id, status: 200, path: '/v1/account' });
    expect(fs.readdirSync(walDir).filter((f) => !f.startsWith(`${second.child.pid}-`))).toEqual([]); // the dead process's file is gone
  } finally {
    second.child.kill('SIGTERM');
    await exited(second.child);
  }
  expect(fs.readdirSync(walDir)).toEqual([]); // a graceful stop stores its rows and deletes its file
});
