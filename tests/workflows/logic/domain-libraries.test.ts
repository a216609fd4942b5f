/**
 * Tier A: the domain rules that rest on third-party libraries (issue 26 item 7: the payroll CSV,
 * the ISO 4217 scales, the ISO 3166 list, the billing calendar's month arithmetic) bundle into a
 * workflow (the bundler refuses Node built-ins) and give, inside the workflow sandbox, exactly what
 * they give in Node, also when the worker's process runs in a time zone far from UTC (the sandbox
 * replaces `Date`, which defeats libraries that subclass it: a UTC date class made that way falls back
 * to the local zone there). No workflow of ours imports these modules today; the domain promises
 * they could.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { COUNTRIES } from '../../../domain/countries';
import { currencyDecimals, FIAT_DECIMALS } from '../../../domain/money';
import { payrollExportCsv, type PayrollExportItem } from '../../../domain/payroll-rows';
import { addIntervals } from '../../../domain/subscriptions';
import { startTimeSkipping } from '../../helpers/time-skipping';
import { domainLibrariesWorkflow, type DomainLibrariesInput, type DomainLibrariesOutput } from './fixtures/domain-libraries';
import { uid } from './harness';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* already installed */
  }
  env = await startTimeSkipping();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

const item = (over: Partial<PayrollExportItem>): PayrollExportItem => ({
  item_id: 'pri_1',
  recipient_id: 'prc_1',
  recipient_name: 'Ana',
  recipient_email: 'ana@example.com',
  amount: { amount: '150000', currency: 'USD', decimals: 2 },
  status: 'paid',
  destination: 'ach ****6789',
  failure_reason: null,
  paid_at: '2026-11-23T10:00:00.000Z',
  memo: null,
  ...over,
});

const INPUT: DomainLibrariesInput = {
  items: [
    item({}),
    item({
      recipient_name: 'Diaz, "Ana"',
      recipient_email: '=cmd@example.com',
      memo: ' two\r\nlines ',
      failure_reason: '-x',
      destination: null,
    }),
    item({ amount: { amount: '500', currency: 'JPY', decimals: 0 }, memo: '@sum' }),
  ],
  cases: [
    [Date.parse('2027-01-31T09:30:00.000Z'), 'month', 1],
    [Date.parse('2028-01-31T00:00:00.000Z'), 'month', 1],
    [Date.parse('2028-02-29T12:00:00.000Z'), 'year', 1],
    [Date.parse('2027-03-31T18:45:07.250Z'), 'month', 3],
    [Date.parse('2027-11-15T00:00:00.000Z'), 'month', 14],
    [Date.parse('2027-01-01T00:00:00.000Z'), 'week', 2],
    // Late in the UTC day: another local date in Pacific/Chatham (UTC+13:45) and America/St_Johns (UTC-3:30).
    [Date.parse('2027-01-31T23:30:00.000Z'), 'month', 1],
    [Date.parse('2027-03-01T01:00:00.000Z'), 'month', 1],
    [Date.parse('2028-02-29T23:59:59.999Z'), 'year', 1],
  ],
  currencies: ['USD', 'JPY', 'KWD', 'USDC'],
};

const CALENDAR = [
  '2027-02-28T09:30:00.000Z',
  '2028-02-29T00:00:00.000Z',
  '2029-02-28T12:00:00.000Z',
  '2027-06-30T18:45:07.250Z',
  '2029-01-15T00:00:00.000Z',
  '2027-01-15T00:00:00.000Z',
  '2027-02-28T23:30:00.000Z',
  '2027-04-01T01:00:00.000Z',
  '2029-02-28T23:59:59.999Z',
];

const CSV =
  'item_id,recipient_id,recipient_name,recipient_email,amount,currency,status,destination,failure_reason,paid_at,memo\r\n' +
  'pri_1,prc_1,Ana,ana@example.com,1500.00,USD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n' +
  'pri_1,prc_1,"Diaz, ""Ana""",\'=cmd@example.com,1500.00,USD,paid,,-x,2026-11-23T10:00:00.000Z," two\r\nlines "\r\n' +
  "pri_1,prc_1,Ana,ana@example.com,500,JPY,paid,ach ****6789,,2026-11-23T10:00:00.000Z,'@sum\r\n";

/** What the rules give in this process (Node, outside the sandbox). */
const inNode = (): DomainLibrariesOutput => ({
  csv: payrollExportCsv(INPUT.items),
  fiat: Object.entries(FIAT_DECIMALS),
  decimals: INPUT.currencies.map((c) => currencyDecimals(c)),
  countries: [...COUNTRIES],
  calendar: INPUT.cases.map(([a, i, k]) => addIntervals(a, i, k)),
});

let bundle: WorkflowBundleWithSourceMap;
const bundled = async () => {
  bundle ??= await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/domain-libraries'), logger: new DefaultLogger('WARN') });
  return bundle;
};

test('the CSV, currency, country and calendar rules bundle and run the same inside a workflow', async () => {
  const taskQueue = uid('domain-libs-');
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundled() });
  const got = await worker.runUntil(
    env.client.workflow.execute(domainLibrariesWorkflow, { taskQueue, workflowId: uid('domain-libs-'), args: [INPUT] }),
  );
  expect(got).toEqual(inNode());
  expect(got.calendar.map((ms) => new Date(ms).toISOString())).toEqual(CALENDAR);
  expect(got.csv).toBe(CSV);
}, 120_000);

/** Runs the fixture workflow on a worker in a child process whose local time zone is `tz`. */
async function inWorkerZone(tz: string): Promise<{ offset: number; result: DomainLibrariesOutput }> {
  const child = `
    const { NativeConnection, Worker, Runtime, DefaultLogger } = require('@temporalio/worker');
    const { Client, Connection } = require('@temporalio/client');
    (async () => {
      const chunks = [];
      for await (const c of process.stdin) chunks.push(c);
      const { address, code, input, taskQueue, workflowId } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      Runtime.install({ logger: new DefaultLogger('ERROR') });
      const worker = await Worker.create({ connection: await NativeConnection.connect({ address }), taskQueue, workflowBundle: { code } });
      const client = new Client({ connection: await Connection.connect({ address }) });
      const result = await worker.runUntil(client.workflow.execute('domainLibrariesWorkflow', { taskQueue, workflowId, args: [input], workflowExecutionTimeout: '60s' }));
      process.stdout.write(JSON.stringify({ offset: new Date(Date.UTC(2027, 0, 15)).getTimezoneOffset(), result }));
      process.exit(0);
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const proc = spawn(process.execPath, ['-e', child], {
    cwd: path.resolve(__dirname, '../../..'),
    env: { ...process.env, TZ: tz },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  proc.stdin.end(
    JSON.stringify({
      address: env.address,
      code: (await bundled()).code,
      input: INPUT,
      taskQueue: uid('domain-libs-tz-'),
      workflowId: uid('domain-libs-tz-'),
    }),
  );
  const status = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000);
    proc.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (status !== 0) throw new Error(`worker in ${tz} exited ${status}: ${err}`);
  return JSON.parse(out);
}

test('inside a workflow on a worker far from UTC (Pacific/Chatham, UTC+13:45 in January), the same results', async () => {
  const { offset, result } = await inWorkerZone('Pacific/Chatham');
  expect(offset).toBe(-825); // the zone did apply to the worker's process
  expect(result.calendar.map((ms) => new Date(ms).toISOString())).toEqual(CALENDAR);
  expect(result).toEqual(inNode());
}, 120_000);
