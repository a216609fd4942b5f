/**
 * Send intents out of the holder's wallet (`wsi_`; spec 2.5, 4.5). Money columns are
 * bigint minor units of the stablecoin (6 decimals): `amount_minor` leaves the wallet,
 * `fee_minor` is the bridge's fee on a cross-chain route (0 direct), `amount_out_minor` arrives.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { UnsignedEvmCall } from '../domain/evm-calls';
import type { SendFailureReason, SendIntentStatus } from '../domain/wallet-sends';

@Entity('wallet_send_intents')
export class WalletSendIntent {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') wallet_id: string;
  @Column('text') status: SendIntentStatus;
  /** The wallet's chain (the source of every send) and stablecoin. */
  @Column('text') chain: string;
  @Column('text') asset: string;
  @Column('text') from_address: string;
  @Column('text') destination_chain: string;
  @Column('text') destination_address: string;
  @Column('text') route_kind: 'direct' | 'bridge';
  @Column('bigint') amount_minor: string;
  @Column('bigint') fee_minor: string;
  @Column('bigint') amount_out_minor: string;
  /** Where the signed transfer goes on the wallet's chain: the destination (direct) or the bridge's deposit address. */
  @Column('text') transfer_to: string;
  /** The built ERC-20 transfer the holder signs (spec 2.5: built by the API, signed outside it). */
  @Column('jsonb') unsigned_transaction: UnsignedEvmCall;
  @Column('text', { nullable: true }) bridge_transfer_id: string | null;
  @Column('text', { nullable: true }) source_tx_hash: string | null;
  @Column('timestamptz', { nullable: true }) source_tx_recorded_at: Date | null;
  @Column('text', { nullable: true }) delivery_tx_hash: string | null;
  @Column('text', { nullable: true }) failure_reason: SendFailureReason | null;
  @Column('text', { nullable: true }) note: string | null;
  @Column('timestamptz') expires_at: Date;
  @Column('timestamptz', { nullable: true }) submitted_at: Date | null;
  @Column('timestamptz', { nullable: true }) settled_at: Date | null;
  @Column('timestamptz', { nullable: true }) failed_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
