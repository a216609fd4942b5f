/**
 * Temporal worker process: runs every workflow and activity on the task queue, plus the outbox
 * dispatcher that turns new events into webhook delivery workflows (ARCHITECTURE.md "Data flow" 6).
 */
import './lib/tracing-init'; // first: tracing instruments http, pg and undici before they load
import 'reflect-metadata';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { activities } from './activities';
import { startDispatcher } from './activities/webhooks/dispatcher';
import { startHousekeeping } from './activities/housekeeping/purge';
import { ensureLinkWorkflows } from './activities/payment-links/signals';
import { ensurePaymentWorkflows } from './activities/payments/signals';
import { ensurePayoutWorkflows } from './activities/payouts/signals';
import { ensurePayrollWorkflows } from './activities/payroll/signals';
import { ensureConversionWorkflows } from './activities/conversions/signals';
import { ensureDepositIntentWorkflows } from './activities/deposit-intents/signals';
import { ensureOfframpWorkflows } from './activities/offramp-intents/signals';
import { ensureSendIntentWorkflows } from './activities/send-intents/signals';
import { ensureVirtualAccountWorkflows } from './activities/virtual-accounts/signals';
import { ensureOrderWorkflows } from './activities/orders/signals';
import { ensureSubscriptionWorkflows } from './activities/subscriptions/signals';
import { ensureWebhookEndpointWorkflows } from './activities/webhooks/signals';
import { startMetricsSampler } from './activities/observability/sampler';
import { loadConfig } from './lib/config';
import { ensureMetricsServer, stopMetricsServer } from './lib/metrics-server';
import { closeDb, initDb } from './lib/db';
import { survivesDependencyOutages } from './lib/dependency-errors';
import { stopNotifyListener } from './lib/notify';
import { logger } from './lib/logger';
import { stopTracing, temporalClientTracing, temporalWorkerTracing } from './lib/tracing';
import { setTemporalClient } from './temporal/client';
import { intentsSettled, startIntentSweep } from './temporal/intents';
import { temporalConnectConfig } from './temporal/connect';
import { watchTemporal } from './temporal/outage';
import { HEARTBEAT_THROTTLE_MS } from './temporal/config';
import { installRuntimeMetrics } from './temporal/runtime-metrics';

/** Creates the worker (and the dispatcher) without running it; returns a shutdown function with it. */
export async function createWorker(): Promise<{ worker: Worker; stopDispatcher: () => Promise<void> }> {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) throw new Error('DATABASE_URL is required');
  await initDb(cfg.databaseUrl, 20);
  // Metrics (decision 0085): the SDK's worker metrics join this process's scrape; the worker's own
  // listener (METRICS_PORT) and the sampled gauges (outbox lag, endpoints, money objects, parked workflows).
  await installRuntimeMetrics();
  await ensureMetricsServer();
  const { connectionOptions, namespace } = temporalConnectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  // Starts from this process (dispatcher, recovery) ride the worker's connection, so they may ask
  // the server to hand the first workflow task straight to this worker (eager start).
  setTemporalClient(new Client({ connection, namespace, ...temporalClientTracing() }), { eager: true });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: cfg.temporalTaskQueue,
    workflowsPath: path.join(__dirname, 'workflows'),
    activities,
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 200,
    // Heartbeats reach the server every 2 s at most, well inside the shortest heartbeat timeout (10 s).
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
    // Graceful stop (SIGTERM, decision 0082): polling stops at once; running activities get this
    // long to finish (then they are cancelled and retried elsewhere, with their idempotency keys);
    // past ten seconds more the worker gives up and the process exits.
    shutdownGraceTime: cfg.workerShutdownGraceSeconds * 1000,
    shutdownForceTime: (cfg.workerShutdownGraceSeconds + 10) * 1000,
    // Tracing on (lib/tracing.ts): Temporal's OpenTelemetry interceptors and span sink; off: nothing.
    ...temporalWorkerTracing(),
  });
  const stopDispatcherLoop = await startDispatcher();
  // Housekeeping, the partition manager included (decision 0078): a pass now, then every 10 minutes.
  const stopHousekeeping = startHousekeeping(undefined, (m, msg) => (m.err ? logger.error(m, msg) : logger.info(m, msg)));
  // Recovery: workflows whose start was lost between a commit and the start call (idempotent by id),
  // at boot and again whenever the Temporal server answers after an outage (API processes leave
  // the starts they could not make to this sweep: temporal/outage.ts).
  const stopWatch = watchTemporal(() => {
    logger.info('Temporal is back: recovery pass');
    recoveryPass();
  });
  const stopSampler = startMetricsSampler({ business: true });
  // Workflow starts and signals recorded with a commit whose own process did not make them (a crash,
  // a Temporal outage): performed every second by every worker, sharing the rows (temporal/intents.ts).
  const stopIntentSweep = startIntentSweep();
  const stopDispatcher = async () => {
    stopWatch();
    stopHousekeeping();
    stopSampler();
    await stopIntentSweep();
    await stopDispatcherLoop();
    await intentsSettled();
  };
  recoveryPass();
  return { worker, stopDispatcher };
}

/** One recovery pass over every object kind (logged; never throws). */
function recoveryPass(): void {
  void Promise.all([
    ensurePaymentWorkflows(),
    ensureLinkWorkflows(),
    ensurePayoutWorkflows(),
    ensurePayrollWorkflows(),
    ensureSendIntentWorkflows(),
    ensureVirtualAccountWorkflows(),
    ensureOfframpWorkflows(),
    ensureOrderWorkflows(),
    ensureSubscriptionWorkflows(),
    ensureDepositIntentWorkflows(),
    ensureConversionWorkflows(),
    ensureWebhookEndpointWorkflows(),
  ])
    .then(([payments, links, payouts]) => logger.info({ payments, links, payouts }, 'workflow recovery pass done'))
    .catch((e) => logger.error({ err: e }, 'workflow recovery pass failed'));
}

/**
 * Runs a created worker until SIGTERM or SIGINT, then stops gracefully (decision 0082): the SDK's
 * runtime stops polling on the signal and lets running activities finish (WORKER_SHUTDOWN_GRACE_SECONDS);
 * the outbox dispatcher and housekeeping stop at once (the other workers' dispatchers carry on);
 * then the database pools and the LISTEN connection close. Resolves with the exit code: 0 after a
 * clean stop, 1 when the grace period ran out or the worker failed.
 */
export async function runUntilStopped({
  worker,
  stopDispatcher,
}: {
  worker: Worker;
  stopDispatcher: () => Promise<void>;
}): Promise<number> {
  const onSignal = (signal: string) => {
    logger.info(
      { signal, grace_seconds: loadConfig().workerShutdownGraceSeconds },
      'worker stopping: polling stops, running activities finish',
    );
    void stopDispatcher();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  let code = 0;
  try {
    await worker.run();
  } catch (e) {
    logger.error({ err: e }, 'worker stopped with an error');
    code = 1;
  }
  await stopDispatcher().catch(() => undefined);
  await stopNotifyListener();
  await closeDb().catch(() => undefined);
  await stopMetricsServer();
  await stopTracing();
  logger.info({ code }, 'worker stopped');
  return code;
}

if (require.main === module) {
  survivesDependencyOutages(logger);
  createWorker()
    .then(async (created) => {
      logger.info('worker started');
      process.exit(await runUntilStopped(created));
    })
    .catch((e) => {
      logger.fatal({ err: e }, 'worker failed');
      process.exit(1);
    });
}
