/**
 * Email provider (ARCHITECTURE.md "providers/": an interface plus a deterministic sandbox).
 * Used for payment-link invoices and reminders (spec 4.1 `send_invoice`, ReminderSchedule) and
 * payer receipts. Every send is idempotent by `idempotencyKey`: a repeat returns the id of the
 * first send and sends nothing.
 */
import { db } from '../lib/db';
import { newId } from '../lib/ids';
import { instrumentProvider } from '../lib/metrics';

/** One outgoing email. `template` names the message kind (e.g. `payment_link_invoice`). */
export interface EmailMessage {
  to: string;
  template: string;
  subject: string;
  body: string;
  /** Merchant account the email is sent for (null for platform mail). */
  accountId: string | null;
  /** Object the email is about (e.g. `pl_...`), for support look-ups. */
  relatedObjectId: string | null;
  /** Deduplication key: the same key never sends twice. */
  idempotencyKey: string;
}

/** Sends emails. Implementations throw on a transport failure (callers retry with the same key). */
export interface EmailProvider {
  /** Sends `msg` once per `idempotencyKey`; returns the provider's message id (`eml_...` in the sandbox). */
  send(msg: EmailMessage): Promise<{ id: string }>;
}

/** One email the sandbox recorded (what `GET /sim/emails` lists). */
export interface RecordedEmail {
  id: string;
  to_address: string;
  template: string;
  subject: string;
  body: string;
  related_object_id: string | null;
  created_at: Date;
}

/**
 * Sandbox provider: records each email as a row of `sandbox_emails` (the outbox a developer or a
 * test reads) instead of delivering it. Idempotent by `idempotency_key` (unique column).
 */
export class SandboxEmailProvider implements EmailProvider {
  async send(msg: EmailMessage): Promise<{ id: string }> {
    if (!msg.to || !msg.idempotencyKey) throw new Error('email: `to` and `idempotencyKey` are required');
    const inserted: Array<{ id: string }> = await db().query(
      `INSERT INTO sandbox_emails(id, account_id, to_address, template, subject, body, related_object_id, idempotency_key)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
      [newId('eml_'), msg.accountId, msg.to, msg.template, msg.subject, msg.body, msg.relatedObjectId, msg.idempotencyKey],
    );
    if (inserted[0]) return { id: inserted[0].id };
    const existing: Array<{ id: string }> = await db().query('SELECT id FROM sandbox_emails WHERE idempotency_key = $1', [
      msg.idempotencyKey,
    ]);
    if (!existing[0]) throw new Error('email: idempotent send lost its row');
    return { id: existing[0].id };
  }

  /** The newest 100 recorded emails, optionally only those about `relatedObjectId` (the simulator's read). */
  async recorded(relatedObjectId: string | null): Promise<RecordedEmail[]> {
    return db().query(
      `SELECT id, to_address, template, subject, body, related_object_id, created_at FROM sandbox_emails
        WHERE ($1::text IS NULL OR related_object_id = $1) ORDER BY created_at DESC LIMIT 100`,
      [relatedObjectId],
    );
  }
}

let provider: SandboxEmailProvider | null = null;

/** The process's email provider (the sandbox on every environment this build supports). */
export function emailProvider(): SandboxEmailProvider {
  if (!provider) provider = instrumentProvider('email', new SandboxEmailProvider());
  return provider;
}
