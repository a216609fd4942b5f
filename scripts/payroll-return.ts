/**
 * `npm run payroll:return -- <pr_id> --reason "<why>"`: operator command (not a merchant
 * operation) returning the money a payroll run owes back (domain/payroll-returns.ts: a cancelled
 * run's funding, a finished run's unpaid items and overfunding) to its funding sources. It prints
 * where the run stands, then sends the `returnFunds` signal to the run's workflow
 * (signalWithStart: a run whose workflow has ended starts it again), which records and sends the
 * returns under their provider idempotency keys; repeating it never returns twice.
 * `npm run payroll:return -- <pr_id> --status` only prints. Acts on the running stack
 * (`.data/runtime.json`) unless DATABASE_URL / TEMPORAL_ADDRESS are set. Follow it with
 * `npm run temporal -- workflow query -w <pr_id> --type waiting_for`.
 */
import 'reflect-metadata';
import { payrollFundsSummary } from '../activities/payroll/returns';
import { requestPayrollFundsReturn } from '../activities/payroll/signals';
import { closeDb, initDb } from '../lib/db';
import { closeTemporalClient } from '../temporal/client';
import { useRuntimeEnv } from './runtime';

const USAGE = 'usage: npm run payroll:return -- <pr_id> --reason "<why>" | <pr_id> --status';

async function print(runId: string): Promise<boolean> {
  const s = await payrollFundsSummary(runId);
  if (!s) {
    process.stderr.write(`no payroll run ${runId}\n`);
    return false;
  }
  process.stdout.write(`${s.run.id} (${s.run.account_id}): ${s.run.status}, needs_attention ${s.run.needs_attention}\n`);
  if (s.position.length === 0) process.stdout.write('  no money received\n');
  for (const p of s.position) {
    process.stdout.write(
      `  ${p.currency}: owed ${p.owed}, returned ${p.returned}, in flight ${p.in_flight}, outstanding ${p.outstanding} (minor units)\n`,
    );
  }
  for (const r of s.returns) {
    process.stdout.write(
      `  ${r.id} ${r.status} ${r.amount_minor} ${r.currency} -> ${r.source}${r.provider_ref ? ` (${r.provider_ref})` : ''}${r.failure_reason ? ` ${r.failure_reason}` : ''}\n`,
    );
  }
  return true;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const runId = args[0];
  const at = args.indexOf('--reason');
  const reason = at >= 0 ? (args[at + 1] ?? '').trim() : '';
  const statusOnly = args.includes('--status');
  if (!runId || !runId.startsWith('pr_') || (!statusOnly && !reason)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!process.env.DATABASE_URL) useRuntimeEnv();
  await initDb(process.env.DATABASE_URL!, 1);
  try {
    if (!(await print(runId))) return 1;
    if (statusOnly) return 0;
    await requestPayrollFundsReturn(runId, reason);
    process.stdout.write(
      `returnFunds sent to ${runId}; follow it with: npm run temporal -- workflow query -w ${runId} --type waiting_for\n`,
    );
    return 0;
  } finally {
    await closeTemporalClient();
    await closeDb();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`payroll:return: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
