/**
 * Payroll funds returns (domain/payroll-returns.ts): the money a cancelled or finished
 * run owes back, sent to the funding source it came from by the run's workflow on an operator's
 * `returnFunds` signal. One row per return (`prfr_`), written before any provider call with its
 * provider idempotency key (`<run id>:return:<n>`, unique), so a retried activity, a crashed worker
 * or a repeated signal never sends the money twice; each names the funding it goes back to
 * (`payroll_fundings` by source). Amounts are bigint minor units of `currency` (spec 2.1).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class PayrollFundReturns1764500000000 implements MigrationInterface {
  name = 'PayrollFundReturns1764500000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE IF NOT EXISTS payroll_fund_returns (
        id text PRIMARY KEY,
        run_id text NOT NULL REFERENCES payroll_runs(id),
        account_id text NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        return_no integer NOT NULL CHECK (return_no >= 1),
        idempotency_key text NOT NULL UNIQUE,
        source_kind text NOT NULL CHECK (source_kind IN ('bank_credit','chain_transfer')),
        source_ref text NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending','submitted','returned','failed')),
        reason text NOT NULL,
        provider_ref text,
        failure_reason text,
        returned_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (run_id, return_no),
        FOREIGN KEY (source_kind, source_ref) REFERENCES payroll_fundings(source_kind, source_ref)
      );
      CREATE INDEX IF NOT EXISTS payroll_fund_returns_run_idx ON payroll_fund_returns(run_id, return_no);
    `);
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS payroll_fund_returns');
  }
}
