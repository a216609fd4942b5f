/** Payment links, payments (pay-ins), observed deposits and the sandbox chain ledger (spec 2.3, 2.4). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ReminderSchedule } from '../domain/reminders';
import type { LinkStatus, PaymentStatus } from '../domain/verdicts';
import type { WatcherReason, WatcherState } from '../domain/xchain';

export interface LinkItem {
  name: string | null;
  product_id: string | null;
  quantity: number;
  unit_amount: string | null;
}

@Entity('payment_links')
export class PaymentLink {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** Moves only through domain/payment-links.ts `paymentLinkTransitions`. */
  @Column('text') status: LinkStatus;
  @Column('text') title: string;
  @Column('text', { nullable: true }) memo: string | null;
  @Column('text', { nullable: true }) invoice_number: string | null;
  @Column('text') reference_id: string;
  /** Invoice amount in minor units of `currency`. */
  @Column('bigint') amount_minor: string;
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  @Column('text', { nullable: true }) client_id: string | null;
  @Column('text', { nullable: true }) direction: string | null;
  @Column('text', { nullable: true }) expected_payer_type_input: 'crypto' | 'bank' | 'any' | null;
  @Column('text', { array: true, nullable: true }) allowed_rails: string[] | null;
  @Column('text', { array: true, nullable: true }) accepted_rail_kinds: string[] | null;
  @Column('boolean') crypto_only: boolean;
  @Column('timestamptz', { nullable: true }) expires_at: Date | null;
  @Column('text', { nullable: true }) payer_email: string | null;
  @Column('jsonb') reminder_schedule: ReminderSchedule;
  @Column('text', { nullable: true }) settlement_kind: string | null;
  @Column('jsonb', { nullable: true }) settlement_asset: { chain: string; asset: string; token_address: string; decimals: number } | null;
  @Column('text', { nullable: true }) settlement_destination_id: string | null;
  @Column('jsonb') items: LinkItem[];
  @Column('text', { nullable: true }) payer_token: string | null;
  @Column('text') short_code: string;
  @Column('timestamptz', { nullable: true }) activated_at: Date | null;
  @Column('timestamptz', { nullable: true }) viewed_at: Date | null;
  @Column('timestamptz', { nullable: true }) paid_at: Date | null;
  @Column('timestamptz', { nullable: true }) settled_at: Date | null;
  @Column('timestamptz', { nullable: true }) cancelled_at: Date | null;
  @Column('timestamptz', { nullable: true }) expired_at: Date | null;
  @Column('text', { nullable: true }) latest_attempt_status: PaymentStatus | null;
  @Column('jsonb', { nullable: true }) partial_payment: {
    received: { amount: string; currency: string; decimals: number } | null;
    payment_id: string;
  } | null;
  @Column('timestamptz', { nullable: true }) invoice_sent_at: Date | null;
  /** When the merchant refunded the link. */
  @Column('timestamptz', { nullable: true }) refunded_at: Date | null;
  /** Kind of the settlement destination frozen at activation: `bank` (address-book bank entry) or `crypto`; null on a draft or crypto-only link. */
  @Column('text', { nullable: true }) settlement_destination_kind: 'bank' | 'crypto' | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('payments')
export class Payment {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text', { nullable: true }) payment_link_id: string | null;
  @Column('text', { nullable: true }) subscription_id: string | null;
  /** Moves only through domain/payments.ts `paymentTransitions`. */
  @Column('text') status: PaymentStatus;
  @Column('text') payment_rail: string;
  @Column('text', { nullable: true }) source_chain: string | null;
  @Column('text', { nullable: true }) stablecoin: string | null;
  @Column('text', { nullable: true }) source_asset: string | null;
  @Column('text', { nullable: true }) deposit_address: string | null;
  @Column('text', { nullable: true }) deposit_chain: string | null;
  /** Settlement asset of every amount below (e.g. USDC, 6 decimals). */
  @Column('text') currency: string;
  @Column('integer') decimals: number;
  @Column('bigint') invoice_minor: string;
  @Column('bigint') fee_minor: string;
  @Column('bigint') amount_expected_minor: string;
  @Column('bigint') amount_received_minor: string;
  @Column('bigint', { nullable: true }) surplus_minor: string | null;
  @Column('bigint', { nullable: true }) last_short_deposit_minor: string | null;
  @Column('text', { nullable: true }) unmatched_reason: string | null;
  @Column('boolean') underpaid_emitted: boolean;
  @Column('boolean') overpaid_emitted: boolean;
  @Column('text', { nullable: true }) settlement: string | null;
  @Column('text', { nullable: true }) settlement_address: string | null;
  @Column('text', { nullable: true }) settlement_tx_hash: string | null;
  @Column('text', { nullable: true }) payer_email: string | null;
  @Column('text', { nullable: true }) payer_type: string | null;
  @Column('timestamptz', { nullable: true }) marked_sent_at: Date | null;
  @Column('text', { nullable: true }) onchain_tx_hash: string | null;
  @Column('timestamptz') expires_at: Date;
  @Column('timestamptz', { nullable: true }) paid_at: Date | null;
  @Column('timestamptz', { nullable: true }) settled_at: Date | null;
  /** Cross-network rail: the native-chain address the bridge delivers to (settlement sends from it). */
  @Column('text', { nullable: true }) delivery_chain: string | null;
  @Column('text', { nullable: true }) delivery_address: string | null;
  /** Cross-network rail: where money on a closed payment or a failed bridge goes back to (source chain). */
  @Column('text', { nullable: true }) refund_address: string | null;
  /** `crypto_transfer`: the payer's declared sending address (optional). */
  @Column('text', { nullable: true }) source_address: string | null;
  @Column('text', { nullable: true }) bridge_transfer_id: string | null;
  /** Cross-network quote: what the payer sends on the source chain (minor units of `stablecoin`), gross of `bridge_fee_minor`. */
  @Column('bigint', { nullable: true }) amount_in_minor: string | null;
  @Column('bigint', { nullable: true }) bridge_fee_minor: string | null;
  @Column('timestamptz', { nullable: true }) quote_expires_at: Date | null;
  @Column('boolean', { nullable: true }) gross_up: boolean | null;
  /** Cross-network watcher (spec 2.4); null on other rails. Moves only through domain/xchain.ts `watcherTransitions`. */
  @Column('text', { nullable: true }) watcher_state: WatcherState | null;
  @Column('text', { nullable: true }) watcher_reason: WatcherReason | null;
  @Column('text', { nullable: true }) recovery_tx_hash: string | null;
  /** BankDepositInstructions (spec 2.1) as the collection provider issued them; null on crypto rails. */
  @Column('jsonb', { nullable: true }) bank_instructions: Record<string, string | null> | null;
  /** The transfer reference the payer types (unique); null on crypto rails. */
  @Column('text', { nullable: true }) bank_reference: string | null;
  /** Receiving account key the provider matches by (account number, sort code + account, CLABE, PIX key, IBAN). */
  @Column('text', { nullable: true }) bank_account_key: string | null;
  /** Provider text of the latest bank return (spec 2.4), never an enum. */
  @Column('text', { nullable: true }) return_reason: string | null;
  @Column('text', { nullable: true }) payer_state: string | null;
  /** Minor units of `currency` already paid out to the merchant's bank destination. */
  @Column('bigint') settled_minor: string;
  /** Rail of the merchant's bank destination the settlement goes out on. */
  @Column('text', { nullable: true }) settlement_rail: string | null;
  /** The fiat rail payment (`rpm_`) of the settlement in flight; null when none. */
  @Column('text', { nullable: true }) settlement_rail_payment_id: string | null;
  /** Settlement payouts the rail failed or returned (each retry after an operator's fix is a new payout). */
  @Column('integer') settlement_attempt: number;
  /** The fiat rail payment (`rpm_`) returning the money to the payer after a refund. */
  @Column('text', { nullable: true }) refund_rail_payment_id: string | null;
  /** Refund payouts the rail failed or returned. */
  @Column('integer') refund_attempt: number;
  /** When the rail reported the refund paid back to the payer (crypto: when the transfer was sent). */
  @Column('timestamptz', { nullable: true }) refund_completed_at: Date | null;
  @Column('text', { nullable: true }) refund_reason: string | null;
  @Column('timestamptz', { nullable: true }) refunded_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/** An inbound bank credit as the collection provider reported it (the bank twin of `deposits`). */
@Entity('bank_credits')
export class BankCredit {
  @PrimaryColumn('text') id: string;
  @Column('text', { nullable: true }) payment_id: string | null;
  @Column('text') provider_credit_id: string;
  @Column('text') rail: string;
  @Column('text') currency: string;
  @Column('bigint') amount_minor: string;
  @Column('integer') decimals: number;
  @Column('text', { nullable: true }) reference: string | null;
  @Column('text') to_account: string;
  @Column('text', { nullable: true }) sender_name: string | null;
  @Column('text') effect: 'pending' | 'applied' | 'recorded_only';
  @Column('timestamptz', { nullable: true }) returned_at: Date | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  /** True once the payment workflow applied the return to the payment. */
  @Column('boolean') return_applied: boolean;
  @Column('timestamptz') observed_at: Date;
  @Column('timestamptz', { nullable: true }) applied_at: Date | null;
}

@Entity('deposits')
export class Deposit {
  @PrimaryColumn('text') id: string;
  @Column('text', { nullable: true }) payment_id: string | null;
  @Column('text') chain: string;
  @Column('text') asset: string;
  @Column('text') to_address: string;
  @Column('text', { nullable: true }) from_address: string | null;
  @Column('text') tx_hash: string;
  @Column('bigint') amount_minor: string;
  @Column('integer') decimals: number;
  /** `to_return` / `returned`: cross-network money on a closed payment, owed to / sent back to the refund address. */
  @Column('text') effect: 'pending' | 'applied' | 'recorded_only' | 'to_return' | 'returned';
  @Column('timestamptz') observed_at: Date;
  @Column('timestamptz', { nullable: true }) applied_at: Date | null;
}

@Entity('sandbox_chain_transfers')
export class SandboxChainTransfer {
  @PrimaryColumn('bigint') seq: string;
  @Column('text') chain: string;
  @Column('text') asset: string;
  @Column('text', { nullable: true }) from_address: string | null;
  @Column('text') to_address: string;
  @Column('bigint') amount_minor: string;
  @Column('integer') decimals: number;
  @Column('text') tx_hash: string;
  @Column('text', { nullable: true }) idempotency_key: string | null;
  @Column('timestamptz') created_at: Date;
}
