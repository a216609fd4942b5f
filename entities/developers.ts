/** Events outbox, webhook endpoints, deliveries, attempts and sandbox emails (spec 2.11, 6). */
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { WebhookDeliveryStatus, WebhookEndpointDisabledReason } from '../domain/webhooks';

@Entity('events')
export class EventRow {
  @Column({ type: 'bigint', insert: false, update: false }) seq: string;
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') type: string;
  @Column('text') object_type: string;
  @Column('text') object_id: string;
  @Column('text', { array: true }) related_object_ids: string[];
  @Column('jsonb') data: Record<string, unknown>;
  @Column('text', { nullable: true }) request_id: string | null;
  @Column('text', { nullable: true }) idempotency_key: string | null;
  @Column('text') api_version: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column('timestamptz', { nullable: true }) dispatched_at: Date | null;
  /** W3C `traceparent` of the span that wrote the event (tracing on), else null: its webhook deliveries join that trace. */
  @Column('text', { nullable: true }) trace_parent: string | null;
}

@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') url: string;
  @Column('text', { array: true }) event_types: string[];
  @Column('boolean') enabled: boolean;
  /** Set while disabled (`enabled` false); the endpoint's status is domain/webhooks.ts `webhookEndpointStatus`. */
  @Column('text', { nullable: true }) disabled_reason: WebhookEndpointDisabledReason | null;
  /** When it was last disabled (manually or automatically); null while enabled. */
  @Column('timestamptz', { nullable: true }) disabled_at: Date | null;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text') secret_ciphertext: string;
  @Column('text') secret_prefix: string;
  @Column('text', { nullable: true }) previous_secret_ciphertext: string | null;
  @Column('timestamptz', { nullable: true }) previous_secret_expires_at: Date | null;
  @Column('integer') consecutive_failures: number;
  @Column('timestamptz', { nullable: true }) deleted_at: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn('text') id: string;
  @Column('text') account_id: string;
  @Column('boolean') livemode: boolean;
  @Column('text') endpoint_id: string;
  @Column('text') event_id: string;
  @Column('text') event_type: string;
  /** Changes only as domain/webhooks.ts `webhookDeliveryTransitions` allows. */
  @Column('text') status: WebhookDeliveryStatus;
  @Column('integer') attempt_count: number;
  @Column('timestamptz', { nullable: true }) next_attempt_at: Date | null;
  @Column('integer', { nullable: true }) last_status_code: number | null;
  @Column('text', { nullable: true }) last_error: string | null;
  @Column('timestamptz', { nullable: true }) workflow_started_at: Date | null;
  /** Set while the delivery waits for the `api_v1.webhooks_delivery` switch (cleared by the dispatcher's nudge or an attempt). */
  @Column('timestamptz', { nullable: true }) held_at: Date | null;
  @Column('timestamptz', { nullable: true }) delivered_at: Date | null;
  @Column('text', { nullable: true }) replay_of: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/**
 * One HTTP attempt of a delivery. Partitioned by `delivery_created_at` (one partition per UTC day,
 * dropped 30 days after; migration 1764620000000, docs/decisions/0078-retention-by-partition-drop.md):
 * the primary key is `(id, delivery_created_at)`.
 */
@Entity('webhook_attempts')
export class WebhookAttempt {
  @PrimaryColumn('text') id: string;
  /** The creation time of the attempt's delivery: the partition key (every attempt of a delivery in one partition). */
  @PrimaryColumn('timestamptz') delivery_created_at: Date;
  @Column('text') delivery_id: string;
  @Column('integer') attempt_number: number;
  @Column('integer', { nullable: true }) status_code: number | null;
  @Column('text', { nullable: true }) error: string | null;
  @Column('integer') latency_ms: number;
  @Column('text', { nullable: true }) response_excerpt: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

@Entity('sandbox_emails')
export class SandboxEmail {
  @PrimaryColumn('text') id: string;
  @Column('text', { nullable: true }) account_id: string | null;
  @Column('text') to_address: string;
  @Column('text') template: string;
  @Column('text') subject: string;
  @Column('text') body: string;
  @Column('text', { nullable: true }) related_object_id: string | null;
  @Column('text') idempotency_key: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}

/**
 * One recorded API request (spec 4.10 request logs); never a body. `account_id` null when
 * unauthenticated. Partitioned by `created_at` (one partition per UTC day, dropped after
 * REQUEST_LOG_RETENTION_DAYS; migration 1764620000000): the primary key is `(id, created_at)`.
 */
@Entity('request_logs')
export class RequestLog {
  @PrimaryColumn('text') id: string;
  @Column('text', { nullable: true }) account_id: string | null;
  @Column('boolean', { nullable: true }) livemode: boolean | null;
  @Column('text', { nullable: true }) caller_type: string | null;
  @Column('text', { nullable: true }) api_key_id: string | null;
  @Column('text', { nullable: true }) user_id: string | null;
  @Column('text') method: string;
  @Column('text') path: string;
  @Column('integer') status: number;
  @Column('integer') latency_ms: number;
  @Column('text', { nullable: true }) idempotency_key: string | null;
  @Column('text', { nullable: true }) error_type: string | null;
  @Column('text', { nullable: true }) error_code: string | null;
  @Column('text', { nullable: true }) api_version: string | null;
  @Column('text', { nullable: true }) ip: string | null;
  @PrimaryColumn('timestamptz') created_at: Date;
}

/** An account's place on a product waitlist (`webhooks` or `cards`; spec 4.10). */
@Entity('waitlist_entries')
export class WaitlistEntry {
  @PrimaryColumn('text') account_id: string;
  @PrimaryColumn('text') waitlist: 'webhooks' | 'cards';
  @Column('text') email: string;
  @Column('text', { nullable: true }) use_case: string | null;
  @Column('text') joined_by: string;
  @Column('timestamptz') created_at: Date;
  @Column('timestamptz') updated_at: Date;
}
