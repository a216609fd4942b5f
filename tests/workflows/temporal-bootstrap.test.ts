/**
 * Checks the offline Temporal bootstrap (temporal/dev/):
 * (a) the Java time-skipping test server, started by the SDK through our wrapper script, skips a
 *     3-day timer;
 * (b) the CLI dev server starts in-memory on random ports with AccountId, RequestId and Parked registered.
 * The first run may build the CLI (minutes) and resolve the test server jars, hence the timeouts.
 */
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { ensureTemporalCli, registerSearchAttributes, startDevServer, type DevServerHandle } from '../../temporal/dev/bootstrap';
import { SEARCH_ATTRIBUTE_ACCOUNT, SEARCH_ATTRIBUTE_PARKED, SEARCH_ATTRIBUTE_REQUEST } from '../../temporal/config';
import { sleepThreeDays } from './fixtures/sleepy-workflow';
import { startTimeSkipping } from '../helpers/time-skipping';

const SETUP_TIMEOUT_MS = 20 * 60_000;
const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;

beforeAll(() => {
  // Keep the worker quiet; failures still surface through the assertions.
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A Runtime already exists in this process; keep its logger.
  }
});

describe('time-skipping test server (Java, existing-path wrapper)', () => {
  let env: TestWorkflowEnvironment | undefined;

  beforeAll(async () => {
    // The cached wrapper as an existing-path executable, a JVM start missed on a busy machine tried again (helpers/time-skipping.ts).
    env = await startTimeSkipping();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await env?.teardown();
  });

  it('completes a workflow that sleeps 3 days, skipping the time', async () => {
    const testEnv = env!;
    const taskQueue = `bootstrap-ts-${Date.now()}`;
    const worker = await Worker.create({
      connection: testEnv.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('./fixtures/sleepy-workflow'),
    });

    const before = await testEnv.currentTimeMs();
    const wallStart = Date.now();
    const result = await worker.runUntil(
      testEnv.client.workflow.execute(sleepThreeDays, { taskQueue, workflowId: `sleepy-${Date.now()}` }),
    );
    const after = await testEnv.currentTimeMs();

    expect(result).toBe('done');
    expect(after - before).toBeGreaterThanOrEqual(THREE_DAYS_MS);
    expect(Date.now() - wallStart).toBeLessThan(60_000);
  }, 120_000);

  it('accepts AccountId, RequestId and Parked through the Operator API (no --search-attribute flag on this server)', async () => {
    await expect(registerSearchAttributes(env!.connection)).resolves.toBeUndefined();
    // Idempotent: a second registration is tolerated.
    await expect(registerSearchAttributes(env!.connection)).resolves.toBeUndefined();
  });
});

describe('dev server (Temporal CLI, in-memory, random ports, headless)', () => {
  let server: DevServerHandle | undefined;
  let connection: Connection | undefined;

  beforeAll(async () => {
    await ensureTemporalCli(); // may build from the Go module on a cold cache
    server = await startDevServer({ headless: true });
    connection = await Connection.connect({ address: server.address });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  }, 60_000);

  it('answers getSystemInfo and has AccountId, RequestId (Keyword) and Parked (Bool) registered as search attributes', async () => {
    expect(server!.kind).toBe('temporal-cli');
    expect(server!.uiUrl).toBeNull();
    expect(server!.address).toMatch(/^127\.0\.0\.1:\d+$/);

    const client = new Client({ connection: connection!, namespace: server!.namespace });
    const info = await client.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();

    const attrs = await connection!.operatorService.listSearchAttributes({ namespace: server!.namespace });
    // 2 = INDEXED_VALUE_TYPE_KEYWORD, 5 = INDEXED_VALUE_TYPE_BOOL
    expect(attrs.customAttributes?.[SEARCH_ATTRIBUTE_ACCOUNT]).toBe(2);
    expect(attrs.customAttributes?.[SEARCH_ATTRIBUTE_REQUEST]).toBe(2);
    expect(attrs.customAttributes?.[SEARCH_ATTRIBUTE_PARKED]).toBe(5);
  });
});
