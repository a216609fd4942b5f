/** Screenings (`scr_`) and screening reports (`srp_`) (spec 2.9, 4.8). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('screenings')
export class Screening {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') chain: string;
  /** As given (case preserved). */
  @Column('text') address: string;
  /** The address's comparison key (domain/addresses.ts checkAddress). */
  @Column('text') address_key: string;
  @Column('integer') risk_score: number;
  @Column('text') risk_level: 'low' | 'medium' | 'high' | 'severe';
  @Column('text') verdict: 'clear' | 'review' | 'high_risk';
  @Column('text') action: 'proceed' | 'review' | 'avoid';
  @Column('text', { array: true }) flags: string[];
  @Column('text') confidence: string;
  @Column('text', { array: true }) coverage: string[];
  @Column('text') provider_version: string;
  @Column('boolean') cached: boolean;
  @Column('timestamptz') screened_at: Date;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/** The figures a report certifies (rendered in its evidence PDF; hashed into `data_sha256`). */
export interface ReportFigures {
  screening_id: string;
  chain: string;
  address: string;
  risk_score: number;
  risk_level: string;
  verdict: string;
  action: string;
  flags: string[];
  confidence: string;
  coverage: string[];
  provider_version: string;
  screened_at: string;
}

@Entity('screening_reports')
export class ScreeningReport {
  @PrimaryColumn('text') id: string;
  @Column('text') screening_id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') chain: string;
  @Column('text') address_key: string;
  @Column('boolean') cached: boolean;
  /** The report a cached one was served from. */
  @Column('text', { nullable: true }) cached_from: string | null;
  @Column('text', { nullable: true }) credit_event_id: string | null;
  @Column('text') credit_event_type: string;
  @Column('jsonb') figures: ReportFigures;
  @Column('text') data_sha256: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
