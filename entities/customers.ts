/** Customers (`cus_`) and their verification links (`cvl_`) (spec 2.8, 4.7). No personal data is stored here. */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { CustomerType, VerificationState } from '../domain/customers';

@Entity('customers')
export class Customer {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('text') owner_user_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') customer_type: CustomerType;
  @Column('text', { nullable: true }) country: string | null;
  /** Business customers only; the verified legal name once `approved`. */
  @Column('text', { nullable: true }) legal_name: string | null;
  @Column('text') verification_state: VerificationState;
  @Column('text', { array: true }) requirements_due: string[];
  @Column('text', { array: true }) endorsements: string[];
  @Column('text', { nullable: true }) rejection_outcome: string | null;
  @Column('text') provider_customer_id: string;
  @Column('jsonb') compliance_profile: Record<string, unknown>;
  @Column('timestamptz', { nullable: true }) verified_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('customer_verification_links')
export class CustomerVerificationLink {
  @PrimaryColumn('text') id: string;
  @Column('text') customer_id: string;
  @Column('text') kind: string;
  @Column('text') url: string;
  @Column('timestamptz') expires_at: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
