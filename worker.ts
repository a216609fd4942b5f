/**
 * Temporal worker process: runs every workflow and activity on the task queue, plus the outbox
 * dispatcher that turns new events into webhook delivery workflows (ARCHITECTURE.md "Data flow" 6).
 */
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
import { ensureConversionWorkflows, ensureDepositIntentWorkflows, ensureOfframpWorkflows, ensureSendIntentWorkflows, ensureVirtualAccountWorkflows } from './activities/wallet/signals';
import { ensureOrderWorkflows } from './activities/orders/signals';
import { ensureSubscriptionWorkflows } from './activities/subscriptions/signals';
import { ensureWebhookEndpointWorkflows } from './activities/webhooks/signals';
import { loadConfig } from './lib/config';
import { initDb } from './lib/db';
import { survivesDependencyOutages } from './lib/dependency-errors';
import { logger } from './lib/logger';
import { setTemporalClient } from './temporal/client';
import { temporalConnectConfig } from './temporal/connect';
import { watchTemporal } from './temporal/outage';

/** Creates the worker (and the dispatcher) without running it; returns a shutdown function with it. */
export async function createWorker(): Promise<{ worker: Worker; stopDispatcher: () => Promise<void> }> {
  const cfg = loadConfig();
  if (!cfg.databaseUrl) throw new Error('DATABASE_URL is required');
  await initDb(cfg.databaseUrl, 20);
  const { connectionOptions, namespace } = temporalConnectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  // Starts from this process (dispatcher, recovery) ride the worker's connection, so they may ask
  // the server to hand the first workflow task straight to this worker (eager start).
  setTemporalClient(new Client({ connection, namespace }), { eager: true });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: cfg.temporalTaskQueue,
    workflowsPath: path.join(__dirname, 'workflows'),
    activities,
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 200,
  });
  const stopDispatcherLoop = await startDispatcher();
  // Housekeeping, the partition manager included (decision 0078): a pass now, then every 10 minutes.
  const stopHousekeeping = startHousekeeping(undefined, (m, msg) => (m.err ? logger.error(m, msg) : logger.info(m, msg)));
  // Recovery: workflows whose start was lost between a commit and the start call (idempotent by id),
  // at boot and again whenever the Temporal server answers after an outage (API processes leave
  // the starts they could not make to this sweep: temporal/outage.ts).
  const stopWatch = watchTemporal(() => { logger.info('Temporal is back: recovery pass'); recoveryPass(); });
  const stopDispatcher = async () => { stopWatch(); stopHousekeeping(); await stopDispatcherLoop(); };
  recoveryPass();
  return { worker, stopDispatcher };
}

/** One recovery pass over every object kind (logged; never throws). */
function recoveryPass(): void {
  void Promise.all([ensurePaymentWorkflows(), ensureLinkWorkflows(), ensurePayoutWorkflows(), ensurePayrollWorkflows(), ensureSendIntentWorkflows(), ensureVirtualAccountWorkflows(), ensureOfframpWorkflows(), ensureOrderWorkflows(), ensureSubscriptionWorkflows(), ensureDepositIntentWorkflows(), ensureConversionWorkflows(), ensureWebhookEndpointWorkflows()])
    .then(([payments, links, payouts]) => logger.info({ payments, links, payouts }, 'workflow recovery pass done'))
    .catch((e) => logger.error({ err: e }, 'workflow recovery pass failed'));
}

if (require.main === module) {
  survivesDependencyOutages(logger);
  createWorker()
    .then(async ({ worker, stopDispatcher }) => {
      logger.info('worker started');
      await worker.run();
      await stopDispatcher();
    })
    .catch((e) => {
      logger.fatal({ err: e }, 'worker failed');
      process.exit(1);
    });
}
