/**
 * Account readiness and the setup guide (spec 4.10 `GET /account/readiness`,
 * `GET /account/setup_guide`, `GET /account?expand=`). Pure: turns facts read from the database
 * into the two checklists. No I/O.
 *
 * Readiness answers "can this account take and settle payments now": required checks are an
 * active account (restricted/suspended/blocked is `blocked`: the merchant cannot fix it) and, in
 * live mode, a service wallet to settle crypto-only links into, and (while the terms gate is on)
 * the owner's acceptance of the current terms. Recommended checks (never block `ready`): country,
 * support contact (live mode), a webhook endpoint; the terms when the gate is off. Checks that concern live
 * production setup are `not_applicable` for a test-mode caller.
 * The setup guide is the onboarding path in order; `next_step` is the first incomplete step.
 */

export type CheckStatus = 'complete' | 'action_required' | 'blocked' | 'not_applicable';

export interface ReadinessFacts {
  livemode: boolean;
  accessState: string;
  country: string | null;
  hasSupportContact: boolean;
  hasServiceWallet: boolean;
  webhookEndpoints: number;
  /** Terms acceptance (spec 1 rule 6): whether the gate is on, and the owner's acceptance of the current revision. */
  terms: { enforced: boolean; revision: string; acceptedAt: Date | null; acceptedBy: string | null };
}

export interface ReadinessCheck {
  code: string;
  required: boolean;
  status: CheckStatus;
  description: string;
  /** On `terms_accepted`: the acceptance on record (who, revision, when), null when none. */
  acceptance?: { revision: string; accepted_at: string; accepted_by_user_id: string } | null;
}
export interface Readiness {
  livemode: boolean;
  ready: boolean;
  checks: ReadinessCheck[];
}

/** Readiness checks in display order; `ready` = every required check complete. */
export function readiness(readinessFacts: ReadinessFacts): Readiness {
  const live = (ok: boolean): CheckStatus => (readinessFacts.livemode ? (ok ? 'complete' : 'action_required') : 'not_applicable');
  const checks: ReadinessCheck[] = [
    {
      code: 'account_active',
      required: true,
      status: readinessFacts.accessState === 'active' ? 'complete' : 'blocked',
      description: 'The account is active (not restricted, suspended or blocked).',
    },
    {
      code: 'service_wallet',
      required: true,
      status: live(readinessFacts.hasServiceWallet),
      description: 'A service wallet exists to settle crypto-only payment links into.',
    },
    {
      code: 'country',
      required: false,
      status: readinessFacts.country ? 'complete' : 'action_required',
      description: 'The account country is set.',
    },
    {
      code: 'support_contact',
      required: false,
      status: live(readinessFacts.hasSupportContact),
      description: 'A support contact is shown to payers.',
    },
    {
      code: 'webhook_endpoint',
      required: false,
      status: readinessFacts.webhookEndpoints > 0 ? 'complete' : 'action_required',
      description: 'At least one enabled webhook endpoint receives events.',
    },
    {
      code: 'terms_accepted',
      required: readinessFacts.terms.enforced,
      status: readinessFacts.terms.acceptedAt ? 'complete' : 'action_required',
      description: `The account owner accepted the terms (revision ${readinessFacts.terms.revision})${readinessFacts.terms.enforced ? '; money boundaries require it' : ''}.`,
      acceptance:
        readinessFacts.terms.acceptedAt && readinessFacts.terms.acceptedBy
          ? {
              revision: readinessFacts.terms.revision,
              accepted_at: readinessFacts.terms.acceptedAt.toISOString(),
              accepted_by_user_id: readinessFacts.terms.acceptedBy,
            }
          : null,
    },
  ];
  const ready = checks.every((c) => !c.required || c.status === 'complete' || c.status === 'not_applicable');
  return { livemode: readinessFacts.livemode, ready, checks };
}

export interface SetupFacts {
  livemode: boolean;
  /** Earliest time each milestone was reached; null when not yet. */
  apiKeyAt: Date | null;
  paymentLinkAt: Date | null;
  activatedLinkAt: Date | null;
  paidPaymentAt: Date | null;
  webhookEndpointAt: Date | null;
  hasSupportContact: boolean;
}

export interface SetupStep {
  key: string;
  title: string;
  completed: boolean;
  completed_at: Date | null;
}
export interface SetupGuide {
  livemode: boolean;
  steps: SetupStep[];
  completedCount: number;
  nextStep: string | null;
}

/** The onboarding steps in order (support contact only in live mode). */
export function setupGuide(setupFacts: SetupFacts): SetupGuide {
  const step = (key: string, title: string, at: Date | null): SetupStep => ({ key, title, completed: at !== null, completed_at: at });
  const steps = [
    step('create_api_key', 'Create an API key', setupFacts.apiKeyAt),
    step('create_payment_link', 'Create a payment link', setupFacts.paymentLinkAt),
    step('activate_payment_link', 'Activate a payment link', setupFacts.activatedLinkAt),
    step('receive_payment', 'Receive a payment', setupFacts.paidPaymentAt),
    step('add_webhook_endpoint', 'Add a webhook endpoint', setupFacts.webhookEndpointAt),
  ];
  if (setupFacts.livemode)
    steps.push({
      key: 'set_support_contact',
      title: 'Set a support contact for payers',
      completed: setupFacts.hasSupportContact,
      completed_at: null,
    });
  const completedCount = steps.filter((s) => s.completed).length;
  return { livemode: setupFacts.livemode, steps, completedCount, nextStep: steps.find((s) => !s.completed)?.key ?? null };
}
