/**
 * Contract fuzzing (issue 3 section 3): schemathesis (pinned, cached venv: scripts/schemathesis.ts)
 * runs against the test stack's API with the document it serves (`GET /v1/openapi.json`), for
 * every operation in it, with real credentials: a live business key with every scope (provisioned
 * like `npm run seed`), and the owner's dashboard session for the session-only operations.
 *
 * Checks: status_code_conformance, content_type_conformance, response_schema_conformance, and
 * two of ours (tests/contract/schemathesis_hooks.py): `no_server_fault` (no 5xx except a 503
 * `temporarily_unavailable` from a switch another suite may flip meanwhile) and `error_envelope`
 * (every error is the part 7 envelope with the type its status prescribes). Path parameters are half of
 * the time real ids of objects created here (a fixture file read by the hooks), so the fuzzer
 * reaches the handlers, not only the 404; each operation has its own entry (`'<METHOD> <template>'`,
 * so a destructive call gets objects of its own), and a last test checks that the hooks served
 * every entry (tests/contract/fixture-coverage.test.ts checks that every template has one).
 * Any failure fails the test with schemathesis's report.
 *
 * Knobs: FUZZ_MAX_EXAMPLES (default 25 per operation), FUZZ_SEED (default fixed, reproducible),
 * FUZZ_WORKERS (default 1: CPython 3.11, the python3 here, crashes now and then with 2).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureSchemathesis } from '../../scripts/schemathesis';
import { API, call, connectDb, newAccount } from '../helpers/api';
import { createAccountObjects, realIdsFor } from '../helpers/contract';
import { Receiver } from '../helpers/receiver';

jest.setTimeout(20 * 60_000);

const HOOKS = path.join(__dirname, 'schemathesis_hooks.py');
const CHECKS = ['no_server_fault', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance', 'error_envelope'];
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '25';
const SEED = process.env.FUZZ_SEED ?? '20260904';
// One worker: CPython 3.11's ast.parse is not thread-safe and schemathesis parses in its workers.
const WORKERS = process.env.FUZZ_WORKERS ?? '1';

let acct: Awaited<ReturnType<typeof newAccount>>;
let bin: string;
let doc: { paths: Record<string, Record<string, { operationId: string; 'x-callers'?: string[] }>> };
let workDir: string;
let fixtureFile: string;
let usedFile: string;
const receiver = new Receiver();

function expectStatus(res: { status: number; body: unknown }, status: number, what: string): any {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Real ids of the fuzzed account, by path parameter of each operation of the document, keyed
 * `'<METHOD> <path template>'` (a destructive operation has objects of its own).
 */
async function buildFixtures(): Promise<Record<string, Record<string, string[]>>> {
  const objects = await createAccountObjects(acct, receiver);
  const out: Record<string, Record<string, string[]>> = {};
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      const ids = realIdsFor(template, objects, method);
      if (Object.keys(ids).length) out[`${method.toUpperCase()} ${template}`] = ids;
    }
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
      env: { ...process.env, SCHEMATHESIS_HOOKS: HOOKS, CONTRACT_FIXTURES: fixtureFile, CONTRACT_FIXTURES_USED: usedFile, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
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
  usedFile = path.join(workDir, 'fixtures-used.txt');
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

test('every operation with real ids was fuzzed with them (the hooks matched each fixture key)', () => {
  const fixtures = Object.keys(JSON.parse(fs.readFileSync(fixtureFile, 'utf8')) as object);
  const used = new Set(fs.existsSync(usedFile) ? fs.readFileSync(usedFile, 'utf8').split('\n').filter(Boolean) : []);
  expect(fixtures.length).toBeGreaterThan(40);
  expect(fixtures.filter((k) => !used.has(k))).toEqual([]);
});
