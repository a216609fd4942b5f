/**
 * Payroll test fixtures (issue 13): a run created through the product's own command
 * (activities/payroll/commands.ts), its items given destinations as an adoption would leave them
 * (encrypted raw details and masked projection), and a run moved to `funded` with its funding
 * confirmed, for the workflow, crash and bench tests that start at execution.
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { approveRun, createRun } from '../../activities/payroll/commands';
import { normalizeBeneficiary } from '../../domain/bank-details';
import type { PayrollDestination } from '../../domain/payroll-execution';
import type { MaskedPayrollDestination } from '../../entities';
import { db } from '../../lib/db';
import { encrypt } from '../../lib/secrets';
import { systemScope } from '../../activities/scope';

const req = { id: 'req_payroll_fixture', idempotency_key: null };

/** A US bank destination with `account` as account number (sandbox test numbers end in 1116 / 1113). */
export function usBank(account: string, name = 'Ana Diaz'): PayrollDestination {
  const { details } = normalizeBeneficiary({
    account_owner_type: 'individual',
    account_holder_name: name,
    rail: 'ach',
    account_number: account,
    routing_number: '021000021',
  });
  return { type: 'bank_account', bank: details };
}

/** A USDC wallet destination on the sandbox chain. */
export function wallet(address: string): PayrollDestination {
  return { type: 'wallet', chain: 'tempo', asset: 'USDC', address };
}

function masked(d: PayrollDestination): MaskedPayrollDestination {
  if (d.type === 'wallet')
    return { type: 'wallet', chain: d.chain, asset: d.asset, address_masked: `${d.address.slice(0, 6)}...${d.address.slice(-4)}` };
  return {
    type: 'bank_account',
    bank: normalizeBeneficiary({
      ...d.bank,
      account_owner_type: d.bank.account_owner_type,
      account_holder_name: d.bank.account_holder_name,
      rail: d.bank.rail,
    } as never).masked,
  };
}

/**
 * A USD run of `amounts` (minor units) created and approved through the commands, each item given
 * `destinationOf(i)` (null leaves it without one). Returns the ids.
 */
export async function approvedRun(
  amounts: bigint[],
  destinationOf: (i: number) => PayrollDestination | null,
): Promise<{ accountId: string; runId: string; itemIds: string[] }> {
  const creds = await provisionAccount();
  const run = await createRun(systemScope(creds.account_id, true, req), {
    title: 'Fixture payroll',
    currency: 'USD',
    rows: amounts.map((a, i) => ({
      email: `r${i}@example.com`,
      name: `Recipient ${i}`,
      amount: { amount: a.toString(), currency: 'USD', decimals: 2 },
    })),
  });
  const items: Array<{ id: string; position: number }> = await db().query(
    'SELECT id, position FROM payroll_run_items WHERE run_id = $1 ORDER BY position',
    [run.id],
  );
  for (const it of items) {
    const d = destinationOf(it.position);
    if (!d) continue;
    await db().query(
      `UPDATE payroll_run_items SET destination_status = 'ready', destination_ciphertext = $2, destination_masked = $3 WHERE id = $1`,
      [it.id, encrypt(JSON.stringify(d)), JSON.stringify(masked(d))],
    );
  }
  await approveRun(systemScope(creds.account_id, true, req), { id: run.id });
  return { accountId: creds.account_id, runId: run.id, itemIds: items.map((i) => i.id) };
}

/** Records the run as funded in full (what the funding poll writes once the whole total is confirmed). */
export async function markFunded(runId: string): Promise<void> {
  await db().query(
    `UPDATE payroll_runs SET status = 'funded', funding_state = 'funded', funding_confirmed_minor = total_minor, funding_confirmed_currency = currency,
       funded_at = now() WHERE id = $1 AND status = 'funding_pending'`,
    [runId],
  );
}
