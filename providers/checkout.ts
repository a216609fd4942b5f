/**
 * Hosted checkout provider (ARCHITECTURE.md "providers/"): sells credit packs (spec 4.10
 * `POST /credit_checkouts`: "returns `url` of a hosted payment checkout; grants no credits
 * itself"). The product creates a session and hands its `url` to the person; the provider later
 * notifies the outcome (paid, failed, expired), at least once. Credits are granted only on a
 * `paid` notification (activities/credits/commands.ts `handleCheckoutNotification`, idempotent).
 *
 * Sandbox: sessions are rows of `sandbox_checkout_sessions` (the provider's own table; statuses
 * move through domain/credits.ts `checkoutSessionTransitions`), idempotent by `clientReference`
 * (the `cco_` id). The outside world acts through the simulator
 * (`POST /sim/providers/checkout/{checkout_id}/complete|fail|expire`), which moves the session
 * like the hosted page would and returns the notification the provider sends. The hosted page
 * itself is a product-served sandbox page on the payer host (`<PAYER_HOST>/sandbox/checkout/<cs_sbx_ id>`,
 * api/pages/sandbox/) whose buttons do the same.
 */
import { checkoutSessionTransitions, type CheckoutSessionStatus } from '../domain/credits';
import { loadConfig } from '../lib/config';
import { db } from '../lib/db';
import { randomToken } from '../lib/secrets';
import { moveRows } from '../lib/status-writes';
import { instrumentProvider } from '../lib/metrics';

export interface CheckoutSessionRequest {
  /** Our reference (the `cco_` id); the same reference never opens two sessions. */
  clientReference: string;
  /** Price in minor units of `currency`. */
  amountMinor: bigint;
  currency: string;
  description: string;
}

export interface CheckoutSession {
  provider: string;
  sessionId: string;
  url: string;
  expiresAt: Date;
}

/** What the provider tells us about a session (a provider webhook in production). */
export interface CheckoutNotification {
  provider: string;
  sessionId: string;
  clientReference: string;
  outcome: 'paid' | 'failed' | 'expired';
  /** Amount captured (minor units of `currency`); null unless `paid`. */
  paidAmountMinor: bigint | null;
  currency: string;
  paymentReference: string | null;
}

export interface CheckoutProvider {
  readonly name: string;
  /** Opens (or returns the already open) hosted session for `clientReference`. Throws on a transport failure. */
  createSession(req: CheckoutSessionRequest): Promise<CheckoutSession>;
}

/** Refused simulator transition (e.g. paying an expired session): the simulator answers 409. */
export class CheckoutTransitionError extends Error {
  override readonly name = 'CheckoutTransitionError';
}

/** A hosted session stays payable this long (seconds). */
export const CHECKOUT_SESSION_TTL_SECONDS = 30 * 60;

/** The hosted page of sandbox session `sessionId` (`cs_sbx_...`), on the payer host. */
export function sandboxCheckoutUrl(sessionId: string): string {
  return `${loadConfig().payerHost}/sandbox/checkout/${sessionId}`;
}

/** A sandbox session as its hosted page shows it (amounts in minor units of `currency`). */
export interface SandboxCheckoutSession {
  id: string;
  clientReference: string;
  amountMinor: bigint;
  currency: string;
  description: string;
  status: CheckoutSessionStatus;
  expiresAt: Date;
  paidAmountMinor: bigint | null;
}

interface SessionRow {
  id: string;
  client_reference: string;
  amount_minor: string;
  currency: string;
  status: CheckoutSessionStatus;
  url: string;
  expires_at: Date;
  paid_amount_minor: string | null;
  payment_reference: string | null;
}

/** Sandbox hosted checkout backed by `sandbox_checkout_sessions`. */
export class SandboxCheckoutProvider implements CheckoutProvider {
  readonly name = 'sandbox_checkout';

  async createSession(req: CheckoutSessionRequest): Promise<CheckoutSession> {
    if (req.amountMinor <= 0n) throw new Error('checkout: amount must be positive');
    const id = randomToken('cs_sbx_', 24);
    await db().query(
      `INSERT INTO sandbox_checkout_sessions(id, client_reference, amount_minor, currency, description, status, url, expires_at)
       VALUES ($1,$2,$3,$4,$5,'open',$6, now() + make_interval(secs => $7)) ON CONFLICT (client_reference) DO NOTHING`,
      [
        id,
        req.clientReference,
        req.amountMinor.toString(),
        req.currency,
        req.description,
        sandboxCheckoutUrl(id),
        CHECKOUT_SESSION_TTL_SECONDS,
      ],
    );
    const row = await this.byReference(req.clientReference);
    if (!row) throw new Error('checkout: session lost after insert');
    return { provider: this.name, sessionId: row.id, url: row.url, expiresAt: row.expires_at };
  }

  /** The hosted page's read of session `sessionId` (`cs_sbx_...`); null when unknown. */
  async session(sessionId: string): Promise<SandboxCheckoutSession | null> {
    const rows: Array<SessionRow & { description: string }> = await db().query('SELECT * FROM sandbox_checkout_sessions WHERE id = $1', [
      sessionId,
    ]);
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      clientReference: r.client_reference,
      amountMinor: BigInt(r.amount_minor),
      currency: r.currency,
      description: r.description,
      status: r.status,
      expiresAt: r.expires_at,
      paidAmountMinor: r.paid_amount_minor === null ? null : BigInt(r.paid_amount_minor),
    };
  }

  private async byReference(ref: string): Promise<SessionRow | null> {
    const rows: SessionRow[] = await db().query('SELECT * FROM sandbox_checkout_sessions WHERE client_reference = $1', [ref]);
    return rows[0] ?? null;
  }

  /**
   * Simulator: the person completes (`complete`, optionally paying `amountMinor` instead of the
   * price), the payment fails (`fail`) or the session times out (`expire`). Returns the
   * notification the provider then sends. Repeating the action that closed the session sends the
   * same notification again (providers deliver at least once); any other move out of a closed
   * session, or paying after `expires_at`, throws CheckoutTransitionError. Unknown reference: null.
   */
  async simulate(
    clientReference: string,
    action: 'complete' | 'fail' | 'expire',
    opts: { amountMinor?: bigint } = {},
  ): Promise<CheckoutNotification | null> {
    const target = action === 'complete' ? 'paid' : action === 'fail' ? 'failed' : 'expired';
    // The session's own table moves through its transition table (domain/credits.ts); paying needs an unexpired session.
    const moved = await moveRows(
      db(),
      checkoutSessionTransitions,
      target === 'paid'
        ? {
            sqlTable: 'sandbox_checkout_sessions',
            where: 'client_reference = $1 AND expires_at > now()',
            to: target,
            params: [clientReference, opts.amountMinor?.toString() ?? null, randomToken('sbxpay_', 16)],
            set: 'updated_at = now(), paid_amount_minor = COALESCE($2::bigint, amount_minor), payment_reference = $3::text',
          }
        : {
            sqlTable: 'sandbox_checkout_sessions',
            where: 'client_reference = $1',
            to: target,
            params: [clientReference],
            set: 'updated_at = now(), paid_amount_minor = NULL, payment_reference = NULL',
          },
    );
    const row = await this.byReference(clientReference);
    if (!row) return null;
    if (moved.length === 0 && row.status !== target) {
      const why = row.status === 'open' ? 'the session has passed its expires_at' : `the session is already ${row.status}`;
      throw new CheckoutTransitionError(`cannot ${action}: ${why}`);
    }
    return {
      provider: this.name,
      sessionId: row.id,
      clientReference,
      outcome: target,
      currency: row.currency,
      paidAmountMinor: row.paid_amount_minor === null ? null : BigInt(row.paid_amount_minor),
      paymentReference: row.payment_reference,
    };
  }
}

let provider: SandboxCheckoutProvider | null = null;

/** The process's checkout provider (the sandbox on every environment this build supports). */
export function checkoutProvider(): SandboxCheckoutProvider {
  if (!provider) provider = instrumentProvider('checkout', new SandboxCheckoutProvider());
  return provider;
}
