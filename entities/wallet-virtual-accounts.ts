/**
 * Virtual accounts (`va_`) and their bank credits (`vac_`) (spec 2.5, 4.5). Fiat amounts
 * are bigint minor units of `currency`; `usdc_minor` is the USDC (6 decimals) the credit became.
 */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { VirtualAccountCreditStatus, VirtualAccountPurpose, VirtualAccountStatus } from '../domain/virtual-accounts';

@Entity('wallet_virtual_accounts')
export class WalletVirtualAccount {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') purpose: VirtualAccountPurpose;
  @Column('text') status: VirtualAccountStatus;
  @Column('text') currency: string;
  @Column('text', { array: true }) rails: string[];
  /** BankDepositInstructions (spec 2.1) per rail, as the collection provider issued them; empty on collection rows. */
  @Column('jsonb') instructions: Array<Record<string, string | null>>;
  @Column('text', { nullable: true }) wallet_id: string | null;
  @Column('text', { nullable: true }) wallet_address: string | null;
  @Column('timestamptz', { nullable: true }) deactivated_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('wallet_virtual_account_credits')
export class WalletVirtualAccountCredit {
  @PrimaryColumn('text') id: string;
  @Column('text') virtual_account_id: string;
  @Column('text') account_id: string;
  @Column('text') provider_credit_id: string;
  @Column('text') rail: string;
  @Column('text') currency: string;
  @Column('bigint') amount_minor: string;
  @Column('integer') decimals: number;
  @Column('text', { nullable: true }) sender_name: string | null;
  @Column('text', { nullable: true }) reference: string | null;
  @Column('text') status: VirtualAccountCreditStatus;
  @Column('bigint', { nullable: true }) usdc_minor: string | null;
  @Column('bigint', { nullable: true }) rate_usdc_per_major: string | null;
  @Column('text', { nullable: true }) tx_hash: string | null;
  @Column('text', { nullable: true }) return_reason: string | null;
  @Column('timestamptz', { nullable: true }) settled_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
