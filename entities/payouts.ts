/**
 * Payouts (spec 2.6): the payout, its funding attempts (`poa_`), deposits observed at a funding
 * address, prepared service-wallet sends, and the sandbox ledgers of the bridge (USDC -> fiat
 * transfer) and the fiat rails. Money columns are bigint minor units: fiat in the corridor's
 * currency, source amounts in USDC (6 decimals).
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MaskedBeneficiary } from '../domain/bank-details';
import type { PayoutAttemptStatus, PayoutStatus } from '../domain/payouts/statuses';
import type { WalletSendStatus } from '../domain/wallet-sends';

@Entity('payouts')
export class Payout {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') status: PayoutStatus;
  /** Invoice amount in minor units of `currency` (fiat). */
  @Column('bigint') invoice_minor: string;
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  @Column('text') corridor_id: string;
  @Column('text') fiat_rail: string;
  /** Stored source chain; null while unchosen (the view shows the default). */
  @Column('text', { nullable: true }) source_chain: string | null;
  @Column('text') source_asset: string;
  @Column('text') payer_type: string;
  @Column('integer') fee_bps: number;
  @Column('boolean') notify_recipient: boolean;
  @Column('text', { nullable: true }) recipient_email: string | null;
  @Column('text', { nullable: true }) note: string | null;
  @Column('text') capability_version: string;
  /** Null on a pre-freeze payout (no snapshot identity). */
  @Column('timestamptz', { nullable: true }) snapshot_frozen_at: Date | null;
  @Column('text', { nullable: true }) sender_display: string | null;
  @Column('text', { nullable: true }) legal_entity_name: string | null;
  @Column('boolean') needs_attention: boolean;
  @Column('bigint', { nullable: true }) settled_minor: string | null;
  @Column('bigint', { nullable: true }) provider_paid_minor: string | null;
  @Column('bigint', { nullable: true }) shortfall_minor: string | null;
  @Column('text', { nullable: true }) failure_reason: string | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  /** USDC minor units held by the provider awaiting return to the payer (null when none). */
  @Column('bigint', { nullable: true }) held_minor: string | null;
  @Column('text', { nullable: true }) beneficiary_ciphertext: string | null;
  @Column('jsonb', { nullable: true }) beneficiary_masked: MaskedBeneficiary | null;
  @Column('text', { nullable: true }) funding_source: string | null;
  @Column('text', { nullable: true }) refund_address: string | null;
  @Column('text', { nullable: true }) current_attempt_id: string | null;
  @Column('text', { nullable: true }) replaces_id: string | null;
  @Column('text', { nullable: true }) replaced_by_id: string | null;
  @Column('timestamptz', { nullable: true }) marked_sent_at: Date | null;
  @Column('timestamptz', { nullable: true }) funded_at: Date | null;
  @Column('timestamptz', { nullable: true }) paid_at: Date | null;
  @Column('timestamptz', { nullable: true }) settled_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payout_attempts')
export class PayoutAttempt {
  @PrimaryColumn('text') id: string;
  @Column('text') payout_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** creating (no provider transfer yet), then the payout statuses it went through. */
  @Column('text') status: PayoutAttemptStatus;
  @Column('text') funding_source: string;
  @Column('text') source_chain: string;
  @Column('text') source_currency: string;
  @Column('text', { nullable: true }) source_tx_hash: string | null;
  @Column('text', { nullable: true }) refund_address: string | null;
  @Column('text', { nullable: true }) provider_transfer_id: string | null;
  @Column('text', { nullable: true }) deposit_address: string | null;
  @Column('text', { nullable: true }) deposit_message: string | null;
  @Column('text') transfer_reference: string;
  @Column('text', { nullable: true }) rail_payment_id: string | null;
  /** Funding estimate, USDC minor units. */
  @Column('bigint') amount_minor: string;
  @Column('bigint') buffer_minor: string;
  @Column('bigint') fee_minor: string;
  @Column('bigint') gross_minor: string;
  @Column('bigint') received_minor: string;
  /** USDC received above `gross_minor` (held for return to the payer); null until the fiat payment is submitted. */
  @Column('bigint', { nullable: true }) surplus_minor: string | null;
  /** USDC already returned to the payer (running total; keys each return at the provider). */
  @Column('bigint') returned_minor: string;
  @Column('timestamptz') expires_at: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payout_deposits')
export class PayoutDeposit {
  @PrimaryColumn('text') id: string;
  @Column('text') payout_id: string;
  @Column('text') attempt_id: string;
  @Column('text') chain: string;
  @Column('text') asset: string;
  @Column('text') to_address: string;
  @Column('text', { nullable: true }) from_address: string | null;
  @Column('text') tx_hash: string;
  @Column('bigint') amount_minor: string;
  /** pending (not applied), applied (funds the attempt), held (arrived when the payout could not use it), refunded. */
  @Column('text') effect: string;
  @Column('timestamptz') observed_at: Date;
}

@Entity('wallet_sends')
export class WalletSend {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('text') payout_id: string;
  @Column('text') attempt_id: string;
  @Column('text') wallet_address: string;
  @Column('text') wallet_chain: string;
  @Column('text') to_address: string;
  @Column('text') to_chain: string;
  @Column('text') asset: string;
  /** What leaves the wallet (delivery + cross-network cost), USDC minor units. */
  @Column('bigint') amount_minor: string;
  @Column('bigint') delivery_minor: string;
  /** signable, signed, expired, closed (domain/wallet-sends.ts `walletSendTransitions`). */
  @Column('text') status: WalletSendStatus;
  @Column('timestamptz') signable_until: Date;
  @Column('text', { nullable: true }) tx_hash: string | null;
  @Column('timestamptz', { nullable: true }) signed_at: Date | null;
  @Column('timestamptz', { nullable: true }) closed_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('sandbox_bridge_transfers')
export class SandboxBridgeTransfer {
  @PrimaryColumn('text') id: string;
  @Column('text') idempotency_key: string;
  @Column('text') client_reference: string;
  @Column('text') source_chain: string;
  @Column('text') source_asset: string;
  @Column('text') deposit_address: string;
  @Column('text') deposit_message: string;
  @Column('text') destination_rail: string;
  @Column('text') destination_currency: string;
  /** awaiting_funds, funds_received, cancelled, refunded. */
  @Column('text') state: string;
  @Column('text', { nullable: true }) refund_address: string | null;
  @Column('text', { nullable: true }) refund_tx_hash: string | null;
  /** `payout` (USDC to fiat) or `pay_in` (cross-network pay-in delivered on the native chain). */
  @Column('text') kind: 'payout' | 'pay_in';
  @Column('text', { nullable: true }) destination_chain: string | null;
  @Column('text', { nullable: true }) destination_address: string | null;
  @Column('text', { nullable: true }) destination_asset: string | null;
  @Column('bigint') fee_minor: string;
  /** Pay-in: source funds already covered by a delivery (minor units). */
  @Column('bigint') covered_minor: string;
  @Column('bigint') delivered_minor: string;
  /** What the simulator forces: `auto` (deliver), `delayed` (hold), `failed`. */
  @Column('text') sim_state: 'auto' | 'delayed' | 'failed';
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('sandbox_rail_payments')
export class SandboxRailPayment {
  @PrimaryColumn('text') id: string;
  @Column('text') idempotency_key: string;
  @Column('text') client_reference: string;
  @Column('text') rail: string;
  @Column('text') currency: string;
  @Column('bigint') amount_minor: string;
  /** submitted, paid, failed, returned. */
  @Column('text') state: string;
  @Column('bigint', { nullable: true }) paid_minor: string | null;
  @Column('bigint', { nullable: true }) recipient_received_minor: string | null;
  @Column('text', { nullable: true }) reason: string | null;
  @Column('text') provider_reference: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
