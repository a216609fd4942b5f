/**
 * Contract fuzzing (issue 3 section 3): schemathesis (pinned, cached venv: scripts/schemathesis.ts)
 * runs against the test stack's API with the document it serves (`GET /v1/openapi.json`), for
 * every operation in it, with real credentials: a live business key with every scope (provisioned
 * like `npm run seed`), and the owner's dashboard session for the session-only operations.
 *
 * Checks: not_a_server_error, status_code_conformance, content_type_conformance,
 * response_schema_conformance, and `error_envelope` (tests/contract/schemathesis_hooks.py: every
 * error is the part 7 envelope with the type its status prescribes). Path parameters are half of
 * the time real ids of objects created here (a fixture file read by the hooks), so the fuzzer
 * reaches the handlers, not only the 404. Any failure fails the test with schemathesis's report.
 *
 * Knobs: FUZZ_MAX_EXAMPLES (default 25 per operation), FUZZ_SEED (default fixed, reproducible),
 * FUZZ_WORKERS (default 2).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transaction } from '../../lib/db';
import { insertApiKey } from '../../activities/accounts';
import { ensureSchemathesis } from '../../scripts/schemathesis';
import { API, call, client, connectDb, eventually, newAccount } from '../helpers/api';
import { Receiver } from '../helpers/receiver';

jest.setTimeout(20 * 60_000);

const HOOKS = path.join(__dirname, 'schemathesis_hooks.py');
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance', 'error_envelope'];
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '25';
const SEED = process.env.FUZZ_SEED ?? '20260904';
const WORKERS = process.env.FUZZ_WORKERS ?? '2';

let acct: Awaited<ReturnType<typeof newAccount>>;
let bin: string;
let doc: { paths: Record<string, Record<string, { operationId: string; 'x-callers'?: string[] }>> };
let workDir: string;
let fixtureFile: string;
const receiver = new Receiver();

function expectStatus(res: { status: number; body: unknown }, status: number, what: string): any {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Real objects of the fuzzed account, by path parameter of each path template of the document. */
async function buildFixtures(): Promise<Record<string, Record<string, string[]>>> {
  const k = client(acct.live_key);
  const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
  const cli = expectStatus(await k.post('/v1/clients', { display_name: 'Fuzz client', email: 'fuzz@example.com' }), 201, 'client');
  const prd = expectStatus(await k.post('/v1/products', { name: 'Fuzz product', unit_price: usd('500') }), 201, 'product');
  const draft = expectStatus(await k.post('/v1/payment_links', { amount: usd('2500'), title: 'Fuzz draft', client_id: cli.id }), 201, 'draft link');
  const cryptoDraft = expectStatus(await k.post('/v1/payment_links', { amount: usd('10000'), title: 'Fuzz crypto', accepted_rail_kinds: ['crypto'] }), 201, 'crypto link');
  const active = expectStatus(await k.post(`/v1/payment_links/${cryptoDraft.id}/activate`, { attestation_accepted: true }), 200, 'activate');
  const token = String(active.url).split('/').pop()!;
  const pay = expectStatus(await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }, { idem: null }), 201, 'payer payment');
  const hook = receiver.path('fuzz');
  const whe = expectStatus(await k.post('/v1/webhook_endpoints', { url: hook.url, description: 'fuzz' }), 201, 'webhook endpoint');
  const whd = expectStatus(await k.post(`/v1/webhook_endpoints/${whe.id}/send_test_event`), 200, 'test event');
  const events = await eventually(async () => {
    const r = await k.get('/v1/events?limit=5');
    return r.status === 200 && r.body.data.length > 0 ? r.body.data.map((e: { id: string }) => e.id) : null;
  }, 'an event of the fuzzed account');
  const wallets = expectStatus(await k.get('/v1/wallet/wallets'), 200, 'wallets').data.map((w: { id: string }) => w.id);
  // A key the fuzzer may roll or revoke (never the one it authenticates with).
  const spare = await transaction((m) => insertApiKey(m, { accountId: acct.account_id, livemode: true, scopes: ['account.read'], name: 'fuzz spare' }));

  const byResource: Record<string, string[]> = {
    payment_links: [draft.id, active.id], clients: [cli.id], products: [prd.id], payments: [pay.id],
    webhook_endpoints: [whe.id], webhook_deliveries: [whd.id], events, wallet: wallets, api_keys: [spare.key.id],
  };
  const byParam: Record<string, string[]> = { token: [token], code: [active.short_code], payment_id: [pay.id] };
  const out: Record<string, Record<string, string[]>> = {};
  for (const template of Object.keys(doc.paths)) {
    const params = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    if (!params.length) continue;
    const resource = template.split('/').filter(Boolean)[0];
    const entry: Record<string, string[]> = {};
    for (const p of params) {
      const ids = byParam[p] ?? (p === 'id' ? byResource[resource] : undefined);
      if (ids?.length) entry[p] = ids;
    }
    if (Object.keys(entry).length) out[template] = entry;
  }
  return out;
}

/** Operation ids of the document that a business key cannot call (dashboard session only). */
function sessionOnlyOperations(): string[] {
  return Object.values(doc.paths).flatMap((ops) => Object.values(ops))
    .filter((o) => o['x-callers'] && !o['x-callers'].includes('business_key'))
    .map((o) => o.operationId);
}

/** Runs schemathesis; resolves with its exit code and combined output. */
function schemathesis(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['run', `${API()}/v1/openapi.json`, '--url', `${API()}/v1`, ...args], {
      cwd: workDir,
      env: { ...process.env, SCHEMATHESIS_HOOKS: HOOKS, CONTRACT_FIXTURES: fixtureFile, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function commonArgs(): string[] {
  return [
    '--checks', CHECKS.join(','), '--phases', 'coverage,fuzzing', '--max-examples', MAX_EXAMPLES,
    '--seed', SEED, '--workers', WORKERS, '--request-timeout', '15', '--suppress-health-check', 'all',
  ];
}

function expectClean(run: { code: number | null; output: string }): void {
  if (run.code !== 0) {
    const report = run.output.length > 60_000 ? `...${run.output.slice(-60_000)}` : run.output;
    throw new Error(`schemathesis exited with ${run.code}:\n${report}`);
  }
}

beforeAll(async () => {
  await connectDb();
  bin = await ensureSchemathesis((m) => process.stderr.write(`${m}\n`));
  acct = await newAccount();
  await receiver.start();
  doc = expectStatus(await call('GET', '/v1/openapi.json'), 200, 'openapi document');
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-'));
  fixtureFile = path.join(workDir, 'fixtures.json');
  fs.writeFileSync(fixtureFile, JSON.stringify(await buildFixtures(), null, 2));
});

afterAll(async () => {
  await receiver.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

test('every operation a business key can call: no 5xx, responses match the document, errors use the envelope', async () => {
  const exclude = sessionOnlyOperations().flatMap((id) => ['--exclude-operation-id', id]);
  expectClean(await schemathesis([...commonArgs(), '--header', `x-api-key: ${acct.live_key}`, ...exclude]));
});

test('dashboard-session-only operations, as the owner: same checks', async () => {
  const ids = sessionOnlyOperations();
  expect(ids.length).toBeGreaterThan(0);
  const include = ids.flatMap((id) => ['--include-operation-id', id]);
  expectClean(await schemathesis([...commonArgs(), '--header', `Authorization: Bearer ${acct.session_token}`, ...include]));
});
