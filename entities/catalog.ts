/** Clients, products, address-book entries and wallets (spec 2.3, 2.5, 2.11). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MaskedBeneficiary } from '../domain/bank-details';

@Entity('clients')
export class Client {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') display_name: string;
  @Column('text', { nullable: true }) email: string | null;
  @Column('text', { nullable: true }) company: string | null;
  @Column('text', { nullable: true }) country: string | null;
  @Column('text', { nullable: true }) role: string | null;
  @Column('text', { nullable: true }) notes: string | null;
  @Column('timestamptz', { nullable: true }) archived_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('products')
export class Product {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') name: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text') currency: string;
  /** Unit price in minor units of `currency`; null means no fixed price. */
  @Column('bigint', { nullable: true }) unit_price_minor: string | null;
  @Column('timestamptz', { nullable: true }) archived_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('address_book_entries')
export class AddressBookEntry {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') kind: 'crypto' | 'bank';
  @Column('text', { nullable: true }) label: string | null;
  @Column('text', { nullable: true }) chain: string | null;
  @Column('text', { nullable: true }) address: string | null;
  @Column('text', { nullable: true }) bank_details_ciphertext: string | null;
  @Column('text', { nullable: true }) counterparty_name: string | null;
  @Column('text', { nullable: true }) counterparty_country: string | null;
  @Column('text', { nullable: true }) counterparty_vasp_name: string | null;
  @Column('text', { nullable: true }) counterparty_vasp_jurisdiction: string | null;
  @Column('boolean') travel_rule_required: boolean;
  @Column('timestamptz', { nullable: true }) travel_rule_last_attested_at: Date | null;
  @Column('text', { nullable: true }) proof_method: string | null;
  @Column('timestamptz', { nullable: true }) proof_verified_at: Date | null;
  @Column('text', { nullable: true }) proof_artifact_url: string | null;
  @Column('timestamptz', { nullable: true }) deleted_at: Date | null;
  /** Duplicate-detection key of a crypto address (lower-cased where the format ignores case). */
  @Column('text', { nullable: true }) address_key: string | null;
  /** Latest address screening of a crypto entry (providers/screening.ts result), null for bank entries. */
  @Column('jsonb', { nullable: true }) screening: AddressScreening | null;
  @Column('text', { nullable: true }) bank_rail: string | null;
  @Column('text', { nullable: true }) bank_currency: string | null;
  /** Masked projection of the bank details (domain/bank-details.ts; the only form ever read back; raw details are in `bank_details_ciphertext`). */
  @Column('jsonb', { nullable: true }) beneficiary_masked: MaskedBeneficiary | null;
  @Column('timestamptz', { nullable: true }) beneficiary_set_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/** Stored screening of an address-book entry (spec 2.9 fields; `status` unavailable when the provider could not answer). */
export interface AddressScreening {
  status: 'completed' | 'unavailable';
  risk_score: number | null;
  risk_level: string | null;
  verdict: string | null;
  action: string | null;
  flags: string[];
  provider_version: string | null;
  screened_at: string;
}

@Entity('wallets')
export class Wallet {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  /** Checksum-cased address, stored and returned verbatim (spec 2.5). */
  @Column('text') address: string;
  @Column('text') chain: string;
  @Column('text') network: string;
  @Column('text') status: string;
  @Column('text', { nullable: true }) label: string | null;
  @Column('text') credential_id: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
