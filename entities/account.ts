/** Account, user, membership, dashboard session and API key entities (spec 2.2, 5). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ApiKeyStatus } from '../domain/api-keys';
import type { MemberRole } from '../domain/caller';

@Entity('users')
export class User {
  @PrimaryColumn('text') id: string;
  @Column('text') email: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('accounts')
export class Account {
  @PrimaryColumn('text') id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') display_name: string;
  @Column('text') email: string;
  @Column('text') customer_type: 'individual' | 'business';
  @Column('text', { nullable: true }) country: string | null;
  @Column('text', { nullable: true }) language: string | null;
  @Column('text') access_state: string;
  @Column('jsonb', { nullable: true }) support_contact: Record<string, unknown> | null;
  @Column('jsonb') notification_preferences: { marketing: boolean; product_tips: boolean };
  @Column('jsonb') dashboard_preferences: Record<string, unknown>;
  @Column('text', { nullable: true }) market_country: string | null;
  @Column('text') market_currency: string;
  @Column('text') market_source: string;
  @Column('text') owner_user_id: string;
  @Column('text') default_version: string;
  @Column('bigint') link_reference_seq: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

export type { MemberRole } from '../domain/caller';

@Entity('memberships')
export class Membership {
  @PrimaryColumn('text') account_id: string;
  @PrimaryColumn('text') user_id: string;
  @Column('text') role: MemberRole;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('dashboard_sessions')
export class DashboardSession {
  @PrimaryColumn('text') id: string;
  @Column('text') user_id: string;
  @Column('text') token_hash: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column('timestamptz') expires_at: Date;
  @Column('timestamptz', { nullable: true }) revoked_at: Date | null;
}

@Entity('api_keys')
export class ApiKey {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text', { nullable: true }) name: string | null;
  @Column('text') secret_hash: string;
  @Column('text') secret_last4: string;
  @Column('text', { array: true }) scopes: string[];
  @Column('text', { array: true }) ip_allowlist: string[];
  @Column('text') status: ApiKeyStatus;
  @Column('timestamptz', { nullable: true }) expires_at: Date | null;
  @Column('text', { nullable: true }) default_version: string | null;
  @Column('text', { nullable: true }) created_by_user_id: string | null;
  @Column('text', { nullable: true }) rolled_from_key_id: string | null;
  @Column('timestamptz', { nullable: true }) last_used_at: Date | null;
  @Column('timestamptz', { nullable: true }) revoked_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('feature_switches')
export class FeatureSwitch {
  @PrimaryColumn('text') name: string;
  @Column('boolean') enabled: boolean;
  @Column('text', { nullable: true }) description: string | null;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('account_flags')
export class AccountFlag {
  @PrimaryColumn('text') account_id: string;
  @PrimaryColumn('text') name: string;
  @Column('boolean') enabled: boolean;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('idempotency_records')
export class IdempotencyRecord {
  @PrimaryColumn('text') account_id: string;
  @PrimaryColumn('text') route: string;
  @PrimaryColumn('text') key: string;
  @Column('boolean') livemode: boolean;
  @Column('text') request_hash: string;
  @Column('text') state: 'in_progress' | 'completed' | 'failed';
  @Column('integer', { nullable: true }) response_status: number | null;
  /** `json`, not `jsonb`: the text is kept verbatim, so a replay is byte-identical to the first answer (jsonb reorders keys). */
  @Column('json', { nullable: true }) response_body: unknown;
  @Column('jsonb', { nullable: true }) redactions: string[] | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column('timestamptz', { nullable: true }) completed_at: Date | null;
}
