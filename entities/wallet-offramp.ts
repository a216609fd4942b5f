/**
 * Off-ramp to a bank (spec 2.5, 3, 4.5): the holder's external bank accounts (`ba_`; raw
 * details only as ciphertext, read back masked) and off-ramp intents (`ofr_`). USDC columns are
 * bigint minor units (6 decimals); `destination_amount_minor` and `settled_amount_minor` minor
 * units of the destination currency.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MaskedBeneficiary } from '../domain/bank-details';
import type { OfframpFailureReason, OfframpStatus } from '../domain/offramp';

@Entity('wallet_external_accounts')
export class WalletExternalAccount {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') rail: string;
  @Column('text') currency: string;
  @Column('jsonb') masked: MaskedBeneficiary;
  @Column('text') details_ciphertext: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('wallet_offramp_intents')
export class WalletOfframpIntent {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') wallet_id: string;
  @Column('text') wallet_address: string;
  @Column('text') status: OfframpStatus;
  @Column('text') external_account_id: string;
  @Column('text') destination_currency: string;
  @Column('integer') destination_decimals: number;
  @Column('text') destination_payment_rail: string;
  @Column('text') chain: string;
  @Column('text') asset: string;
  @Column('bigint') amount_minor: string;
  @Column('integer') developer_fee_bps: number;
  @Column('bigint') service_fee_minor: string;
  @Column('bigint') developer_fee_minor: string;
  @Column('bigint') rate_usdc_per_major: string;
  @Column('bigint') destination_amount_minor: string;
  @Column('text') transit_address: string;
  @Column('text', { nullable: true }) transit_memo: string | null;
  @Column('text') reference: string;
  @Column('bigint') received_minor: string;
  @Column('text', { nullable: true }) source_tx_hash: string | null;
  @Column('text', { nullable: true }) rail_payment_id: string | null;
  @Column('bigint', { nullable: true }) settled_amount_minor: string | null;
  @Column('text', { nullable: true }) refund_tx_hash: string | null;
  @Column('text', { nullable: true }) failure_reason: OfframpFailureReason | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  @Column('timestamptz') funding_deadline: Date;
  @Column('timestamptz', { nullable: true }) funds_received_at: Date | null;
  @Column('timestamptz', { nullable: true }) payment_submitted_at: Date | null;
  @Column('timestamptz', { nullable: true }) completed_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
