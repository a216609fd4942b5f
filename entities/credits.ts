/** Screening credits: the owner's personal balance, its ledger and pack checkouts (spec 2.11 "Credits", 4.10). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('credit_balances')
export class CreditBalanceRow {
  @PrimaryColumn('text') user_id: string;
  @Column('integer') free_remaining: number;
  @Column('integer') paid_balance: number;
  @Column('integer') total_checks: number;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('credit_events')
export class CreditEventRow {
  @PrimaryColumn('text') id: string;
  @Column('text') user_id: string;
  @Column('text', { nullable: true }) account_id: string | null;
  @Column('boolean') livemode: boolean;
  @Column('text') type: string;
  /** Change of the spendable balance (free + paid) made by this row. */
  @Column('integer') credits: number;
  /** Balance after this row. */
  @Column('integer') free_remaining: number;
  @Column('integer') paid_balance: number;
  @Column('integer') total_checks: number;
  @Column('text', { nullable: true }) checkout_id: string | null;
  @Column('text', { nullable: true }) related_object_id: string | null;
  @Column('text', { nullable: true }) refund_of: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('credit_checkouts')
export class CreditCheckout {
  @PrimaryColumn('text') id: string;
  @Column('text') user_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('integer') pack: number;
  /** Price in minor units of `currency`. */
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('text') status: 'open' | 'completed' | 'failed' | 'expired';
  @Column('text') provider: string;
  @Column('text', { nullable: true }) provider_session_id: string | null;
  @Column('text', { nullable: true }) url: string | null;
  @Column('timestamptz', { nullable: true }) expires_at: Date | null;
  @Column('timestamptz', { nullable: true }) completed_at: Date | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
