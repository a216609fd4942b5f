/**
 * The typed client example (issue 11): generates types from the document the test stack SERVES
 * (`GET /v1/openapi.json`) with openapi-typescript into examples/generated/api.d.ts (not committed:
 * regenerated on every run, so a document change that breaks the example fails here), compiles
 * examples/merchant-quickstart.ts under `tsc --strict` (examples/tsconfig.json), and runs it against
 * the stack with a fresh account's live key: it must exit 0 and print each object it made.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { API, newAccount } from '../helpers/api';

jest.setTimeout(5 * 60_000);

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 4 * 60_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${out}`);
  return out;
}

test('the merchant quickstart, typed from the served document, compiles under --strict and runs', async () => {
  run(path.join(BIN, 'openapi-typescript'), [`${API()}/v1/openapi.json`, '-o', 'examples/generated/api.d.ts']);
  run(path.join(BIN, 'tsc'), ['-p', 'examples/tsconfig.json']);
  const acct = await newAccount();
  const out = run(process.execPath, [path.join(ROOT, 'dist', 'examples', 'merchant-quickstart.js')], {
    ...process.env,
    API_URL: `${API()}/v1`,
    API_KEY: acct.live_key,
  });
  expect(out).toMatch(/^client cli_\S+ Acme Corp$/m);
  expect(out).toMatch(/^product prd_\S+ Consulting hour$/m);
  expect(out).toMatch(/^link pl_\S+ draft$/m);
  expect(out).toMatch(/^activated pl_\S+ active https?:\/\/\S+\/pay\/\S+$/m);
  expect(out).toMatch(/^links [1-9]\d* has_more=(true|false) summary=\{/m);
  expect(out).toMatch(/^event evt_\S+ \S+$/m);
});
