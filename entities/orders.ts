/**
 * Quotes and orders (spec 2.10, 4.9): a quote keeps the request and every provider's terminal
 * result; each priced offer is a row an order can take exactly once (`order_id`); an order is
 * one offer executed at its provider (`ord_`), followed by its workflow.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MoneyState, OrderFailureKind, OrderPurpose, OrderStatus } from '../domain/orders';
import type { QuoteSide } from '../domain/quotes';

/** One provider's terminal result as stored on a quote (amounts in minor units, decimal strings). */
export interface StoredProviderResult {
  provider: string;
  status: 'quoted' | 'no_offer' | 'paused' | 'failed' | 'timed_out';
  reason: string | null;
  latencyMs: number;
  offerId: string | null;
}

@Entity('quotes')
export class Quote {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') side: QuoteSide;
  @Column('text') from_asset: string;
  @Column('text') to_asset: string;
  @Column('text', { nullable: true }) from_amount: string | null;
  @Column('text', { nullable: true }) to_amount: string | null;
  @Column('text', { nullable: true }) payment_method: string | null;
  @Column('text', { nullable: true }) country: string | null;
  @Column('text', { nullable: true }) network: string | null;
  @Column('text', { nullable: true }) offer_id: string | null;
  @Column('jsonb') providers: StoredProviderResult[];
  @Column('timestamptz') expires_at: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('quote_offers')
export class QuoteOffer {
  @PrimaryColumn('text') id: string;
  @Column('text') quote_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') provider: string;
  /** Rank within the quote (0 = the winning offer). */
  @Column('integer') rank: number;
  /** True when the offer takes part in the comparison (a `to_amount` offer delivering exactly the requested amount). */
  @Column('boolean') comparable: boolean;
  @Column('text') side: QuoteSide;
  @Column('text') from_asset: string;
  @Column('text') to_asset: string;
  @Column('text') payment_method: string;
  @Column('text', { nullable: true }) network: string | null;
  @Column('numeric', { precision: 78, scale: 0 }) final_in_minor: string;
  @Column('numeric', { precision: 78, scale: 0 }) final_out_minor: string;
  @Column('numeric', { precision: 78, scale: 0 }) fee_minor: string;
  @Column('timestamptz') expires_at: Date;
  /** The order that executed this offer (an offer is used once). */
  @Column('text', { nullable: true }) order_id: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

/** Where an order delivers (bank masked; crypto with chain, address and the delivery's tx hash). */
export type OrderDestination =
  | { kind: 'crypto'; chain: string; address: string; tx_hash: string | null; address_book_entry_id: string | null }
  | { kind: 'bank'; address_book_entry_id: string; rail: string | null; currency: string | null; masked: Record<string, unknown> | null };

/** A self-custody deposit the provider awaits (sell, swap): amounts in minor units of `asset`. */
export interface OrderDeposit {
  address: string;
  chain: string;
  asset: string;
  amountMinor: string;
  decimals: number;
  expiresAt: string;
}

@Entity('orders')
export class Order {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') quote_id: string;
  @Column('text') offer_id: string;
  /** The offer the caller selected when another one was executed (spec 2.10 `offer_selection`). */
  @Column('text', { nullable: true }) selected_offer_id: string | null;
  @Column('text', { nullable: true }) selection_reason: string | null;
  @Column('text') provider: string;
  @Column('text') side: QuoteSide;
  @Column('text') from_asset: string;
  @Column('text') to_asset: string;
  @Column('text') payment_method: string;
  @Column('text', { nullable: true }) payment_rail: string | null;
  @Column('text', { nullable: true }) network: string | null;
  @Column('numeric', { precision: 78, scale: 0 }) final_in_minor: string;
  @Column('numeric', { precision: 78, scale: 0 }) final_out_minor: string;
  @Column('numeric', { precision: 78, scale: 0 }) fee_minor: string;
  @Column('text') status: OrderStatus;
  @Column('text') money_state: MoneyState;
  @Column('text', { nullable: true }) failure_kind: OrderFailureKind | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  @Column('text') purpose: OrderPurpose;
  @Column('text', { nullable: true }) payment_link_id: string | null;
  @Column('text', { nullable: true }) payment_id: string | null;
  @Column('jsonb') destination: OrderDestination;
  @Column('text', { nullable: true }) refund_address: string | null;
  @Column('text', { nullable: true }) provider_order_id: string | null;
  @Column('text', { nullable: true }) checkout_url: string | null;
  @Column('timestamptz', { nullable: true }) checkout_expires_at: Date | null;
  @Column('jsonb', { nullable: true }) bank_instructions: Record<string, unknown> | null;
  @Column('jsonb', { nullable: true }) deposit_instructions: OrderDeposit | null;
  @Column('timestamptz', { nullable: true }) completed_at: Date | null;
  @Column('timestamptz', { nullable: true }) cancelled_at: Date | null;
  @Column('timestamptz', { nullable: true }) failed_at: Date | null;
  @Column('timestamptz', { nullable: true }) refunded_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
