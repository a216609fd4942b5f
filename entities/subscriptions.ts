/**
 * Subscriptions billed in USDC (spec 4.2): the plan and its billing state, and one
 * invoice per billed period (`sin_`), each paid through its own pay-in (`payments.subscription_id`).
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { InvoiceStatus, SubscriptionInterval, SubscriptionStatus } from '../domain/subscriptions';

@Entity('subscriptions')
export class Subscription {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') client_id: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  @Column('text') interval: SubscriptionInterval;
  @Column('integer') interval_count: number;
  @Column('timestamptz') billing_cycle_anchor: Date;
  @Column('integer', { nullable: true }) cycles: number | null;
  @Column('integer') grace_period_days: number;
  @Column('text') settlement_destination_id: string;
  @Column('text') settlement_chain: string;
  @Column('text') settlement_address: string;
  @Column('text') status: SubscriptionStatus;
  /** The next period (0-based) to bill or skip. */
  @Column('integer') next_period: number;
  /** Periods skipped because they started while paused. */
  @Column('integer') skipped_periods: number;
  @Column('timestamptz', { nullable: true }) paused_at: Date | null;
  @Column('timestamptz', { nullable: true }) cancelled_at: Date | null;
  @Column('timestamptz', { nullable: true }) ended_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('subscription_invoices')
export class SubscriptionInvoice {
  @PrimaryColumn('text') id: string;
  @Column('text') subscription_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** 1-based period number. */
  @Column('integer') number: number;
  @Column('timestamptz') period_start: Date;
  @Column('timestamptz') period_end: Date;
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  @Column('text') status: InvoiceStatus;
  @Column('text') payment_id: string;
  @Column('timestamptz') issued_at: Date;
  @Column('timestamptz') due_at: Date;
  @Column('timestamptz', { nullable: true }) overdue_at: Date | null;
  @Column('timestamptz', { nullable: true }) paid_at: Date | null;
  @Column('timestamptz', { nullable: true }) voided_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
