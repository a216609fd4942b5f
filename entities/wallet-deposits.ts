/**
 * Wallet deposit intents (`dpi_`) and conversions (`cnv_`) (spec 2.5, 4.5). Amounts are
 * bigint minor units (6 decimals) stored as text-typed bigint columns.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('wallet_deposit_intents')
export class WalletDepositIntent {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') wallet_id: string;
  /** domain/wallet-deposits DepositIntentStatus. */
  @Column('text') status: string;
  @Column('text') source_chain: string;
  @Column('text') source_asset: string;
  /** The bridge's deposit address on the source chain (EIP-55). */
  @Column('text') deposit_address: string;
  /** The sandbox bridge pay-in transfer (`btr_`). */
  @Column('text') bridge_transfer_id: string;
  @Column('text') destination_chain: string;
  @Column('text') destination_asset: string;
  @Column('text') destination_address: string;
  /** Expected amount out (null when the holder sends any amount). */
  @Column('bigint', { nullable: true }) amount_out_minor: string | null;
  @Column('bigint', { nullable: true }) amount_in_minor: string | null;
  @Column('bigint') bridge_fee_minor: string;
  @Column('bigint', { nullable: true }) received_minor: string | null;
  @Column('bigint', { nullable: true }) delivered_minor: string | null;
  @Column('text', { nullable: true }) refund_address: string | null;
  @Column('text', { nullable: true }) source_tx_hash: string | null;
  @Column('text', { nullable: true }) source_from_address: string | null;
  @Column('text', { nullable: true }) delivery_tx_hash: string | null;
  @Column('text', { nullable: true }) recovery_tx_hash: string | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @Column('timestamptz') expires_at: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('wallet_conversions')
export class WalletConversion {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') wallet_id: string;
  /** domain/wallet-deposits ConversionStatus. */
  @Column('text') status: string;
  @Column('text') chain: string;
  @Column('text') wallet_address: string;
  @Column('text') from_asset: string;
  @Column('text') to_asset: string;
  @Column('bigint') amount_in_minor: string;
  @Column('bigint') fee_minor: string;
  @Column('bigint') amount_out_minor: string;
  /** The unsigned transaction the holder signs: `{ chain_id, from, to, data, value, token_transfer }`. */
  @Column('jsonb') unsigned_tx: Record<string, unknown>;
  @Column('text', { nullable: true }) source_tx_hash: string | null;
  @Column('text', { nullable: true }) settlement_tx_hash: string | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @Column('timestamptz') signable_until: Date;
  @Column('timestamptz', { nullable: true }) submitted_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
