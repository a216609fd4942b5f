/**
 * Payroll (spec 2.7, 4.4): runs (`pr_`), their items (`pri_`, one per recipient), the
 * recipients of an account (`prc_`) with their adopted and pending destinations, funding attempts
 * (`prf_`) and the inbound funding observed for a run, item payment attempts (`pria_`),
 * templates (`prt_`) and the returns of money a run owes back (`prfr_`). Money columns are bigint
 * minor units: run and item amounts in the run currency; crypto funding in USDC (6 decimals). Raw
 * destinations are stored only as ciphertext (lib/secrets), read back masked.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MaskedBeneficiary } from '../domain/bank-details';
import type { FundingState, PayrollItemAttemptStatus, PayrollItemStatus, PayrollRunStatus } from '../domain/payroll';
import type { FundingAttemptStatus } from '../domain/payroll-funding';
import type { FundsReturnStatus } from '../domain/payroll-returns';

/** Masked destination of a recipient or item: a bank account (masked) or a wallet address (shortened). */
export type MaskedPayrollDestination =
  { type: 'bank_account'; bank: MaskedBeneficiary } | { type: 'wallet'; chain: string; asset: string; address_masked: string };

@Entity('payroll_runs')
export class PayrollRun {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') status: PayrollRunStatus;
  @Column('text') title: string;
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  /** ISO dates (YYYY-MM-DD) or null. */
  @Column('date', { nullable: true }) pay_period_start: string | null;
  @Column('date', { nullable: true }) pay_period_end: string | null;
  @Column('text') funding_method: 'fiat' | 'crypto';
  @Column('text', { nullable: true }) memo: string | null;
  /** Sum of the items' amounts, minor units of `currency` (what bank funding must bring). */
  @Column('bigint') total_minor: string;
  @Column('integer') item_count: number;
  /** `PAYROLL-` + 12 characters of the id (unique). */
  @Column('text') run_reference: string;
  @Column('text') funding_state: FundingState;
  @Column('boolean') needs_attention: boolean;
  /** Confirmed funding in `funding_confirmed_currency`; null when never confirmed. */
  @Column('bigint', { nullable: true }) funding_confirmed_minor: string | null;
  @Column('text', { nullable: true }) funding_confirmed_currency: string | null;
  /** Crypto funding reason recorded at create when the run cannot be funded by crypto (spec 4.4), else null. */
  @Column('text', { nullable: true }) funding_blocked_reason: string | null;
  @Column('text', { nullable: true }) current_funding_attempt_id: string | null;
  @Column('text', { nullable: true }) template_id: string | null;
  @Column('timestamptz', { nullable: true }) approved_at: Date | null;
  @Column('timestamptz', { nullable: true }) funded_at: Date | null;
  @Column('timestamptz', { nullable: true }) execution_started_at: Date | null;
  @Column('timestamptz', { nullable: true }) completed_at: Date | null;
  @Column('timestamptz', { nullable: true }) cancelled_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payroll_recipients')
export class PayrollRecipient {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** Lower-cased; unique per (account, livemode). */
  @Column('text') email: string;
  @Column('text') name: string;
  /** Adopted destination: ciphertext of the raw details and its masked projection; null when none. */
  @Column('text', { nullable: true }) destination_ciphertext: string | null;
  @Column('jsonb', { nullable: true }) destination_masked: MaskedPayrollDestination | null;
  /** Destination submitted by the recipient, awaiting adoption by the business. */
  @Column('text', { nullable: true }) pending_destination_ciphertext: string | null;
  @Column('jsonb', { nullable: true }) pending_destination_masked: MaskedPayrollDestination | null;
  @Column('timestamptz', { nullable: true }) pending_submitted_at: Date | null;
  @Column('text', { nullable: true }) pending_from_item_id: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payroll_run_items')
export class PayrollRunItem {
  @PrimaryColumn('text') id: string;
  @Column('text') run_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** Row index in the create request (0-based; the list and export order). */
  @Column('integer') position: number;
  @Column('text') recipient_id: string;
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('text', { nullable: true }) memo: string | null;
  @Column('text') status: PayrollItemStatus;
  /** `missing`, `pending_adoption` (the recipient submitted one), `ready` (adopted). */
  @Column('text') destination_status: 'missing' | 'pending_adoption' | 'ready';
  /** Destination the item pays, copied at adoption (a later change never alters a payment in flight). */
  @Column('text', { nullable: true }) destination_ciphertext: string | null;
  @Column('jsonb', { nullable: true }) destination_masked: MaskedPayrollDestination | null;
  /** Recipient session token (`prk_`, public, unique); replaced by reissue_link. */
  @Column('text') session_token: string;
  /** When the current session token submitted a destination (one submission per token); cleared by reissue_link. */
  @Column('timestamptz', { nullable: true }) session_submitted_at: Date | null;
  @Column('text', { nullable: true }) current_attempt_id: string | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  @Column('timestamptz', { nullable: true }) paid_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payroll_funding_attempts')
export class PayrollFundingAttempt {
  @PrimaryColumn('text') id: string;
  @Column('text') run_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** `preparing`, `pending`, `verified`, `blocked`, `failed` (spec 2.7). */
  @Column('text') status: FundingAttemptStatus;
  @Column('text') funding_method: 'fiat' | 'crypto';
  @Column('text') funding_route_type: 'bank' | 'crypto_deposit_to_wallet';
  @Column('text') run_reference: string;
  @Column('boolean') retryable: boolean;
  /** BankDepositInstructions-shaped object when bank. */
  @Column('jsonb', { nullable: true }) bank: Record<string, unknown> | null;
  /** `{ address, chain, asset, amount }` when crypto and priced; null otherwise. */
  @Column('jsonb', { nullable: true }) crypto: Record<string, unknown> | null;
  /** What this attempt must receive, in `required_currency` minor units (run total, or priced USDC). */
  @Column('bigint', { nullable: true }) required_minor: string | null;
  @Column('text') required_currency: string;
  @Column('text', { nullable: true }) failure_reason: string | null;
  /** Set when a later attempt replaced this one (funding method switched before money was observed). */
  @Column('timestamptz', { nullable: true }) superseded_at: Date | null;
  @Column('timestamptz', { nullable: true }) refreshed_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payroll_fundings')
export class PayrollFunding {
  @PrimaryColumn('text') id: string;
  @Column('text') run_id: string;
  @Column('text') attempt_id: string;
  /** `bank_credit` (source_ref: the bank credit id) or `chain_transfer` (source_ref: `<chain>:<tx_hash>`). */
  @Column('text') source_kind: 'bank_credit' | 'chain_transfer';
  @Column('text') source_ref: string;
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('boolean') confirmed: boolean;
  @Column('timestamptz') observed_at: Date;
}

@Entity('payroll_item_attempts')
export class PayrollItemAttempt {
  @PrimaryColumn('text') id: string;
  @Column('text') item_id: string;
  @Column('text') run_id: string;
  /** 1, 2, ... per item; the provider idempotency key is derived from (item id, attempt_no). */
  @Column('integer') attempt_no: number;
  @Column('text') idempotency_key: string;
  /** `bank` rail name (`ach`, `sepa`, ...) or `usdc_onchain`. */
  @Column('text') rail: string;
  @Column('text', { nullable: true }) provider_payment_id: string | null;
  /** `queued`, `processing`, `paid`, `failed`, `returned`. */
  @Column('text') status: PayrollItemAttemptStatus;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/**
 * A return of money a run owes back to one of its funding sources (domain/payroll-returns.ts):
 * recorded before any provider call, sent under `idempotency_key`, followed to `returned` or `failed`.
 */
@Entity('payroll_fund_returns')
export class PayrollFundsReturn {
  @PrimaryColumn('text') id: string;
  @Column('text') run_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** 1, 2, ... per run; the provider idempotency key is `<run id>:return:<return_no>`. */
  @Column('integer') return_no: number;
  @Column('text') idempotency_key: string;
  /** The funding it goes back to (`payroll_fundings.source_kind`, `source_ref`). */
  @Column('text') source_kind: 'bank_credit' | 'chain_transfer';
  @Column('text') source_ref: string;
  /** Minor units of `currency` (the funding's currency: the run currency, or USDC with 6 decimals). */
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('text') status: FundsReturnStatus;
  /** The operator's reason (audit only; not on the wire). */
  @Column('text') reason: string;
  /** Rail payment id (`rpm_...`) or `<chain>:<tx hash>`; null until a provider accepted it. */
  @Column('text', { nullable: true }) provider_ref: string | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @Column('timestamptz', { nullable: true }) returned_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payroll_templates')
export class PayrollTemplate {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') title: string;
  @Column('text') currency: string;
  @Column('text') funding_method: 'fiat' | 'crypto';
  @Column('text', { nullable: true }) memo: string | null;
  /** Validated rows: `{ recipient_id, email, name, amount_minor (string), memo }`. */
  @Column('jsonb') rows: Array<{
    recipient_id: string | null;
    email: string | null;
    name: string | null;
    amount_minor: string;
    memo: string | null;
  }>;
  @Column('text', { nullable: true }) source_run_id: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
