/** Wire projections of account readiness, the setup guide, session revocation and waitlist entries (spec 4.10, 2.2). */
import Joi from 'joi';
import type { Readiness, SetupGuide } from '../domain/readiness';
import type { WaitlistEntry } from '../entities';
import { timestamp } from './schema';
import type { AccountGetReadiness, AccountGetSetupGuide, AccountSessionsRevokeAll, CardWaitlistJoin } from './wire';

export function readinessView(readiness: Readiness): AccountGetReadiness {
  return {
    object: 'account_readiness',
    livemode: readiness.livemode,
    ready: readiness.ready,
    checks: readiness.checks.map((c) => ({ ...c })),
  };
}

export const readinessResponse = Joi.object({
  object: Joi.string().valid('account_readiness').required(),
  livemode: Joi.boolean().required(),
  ready: Joi.boolean().required(),
  checks: Joi.array()
    .items(
      Joi.object({
        code: Joi.string().required(),
        required: Joi.boolean().required(),
        status: Joi.string().valid('complete', 'action_required', 'blocked', 'not_applicable').required(),
        description: Joi.string().required(),
        acceptance: Joi.object({
          revision: Joi.string().required(),
          accepted_at: timestamp.required(),
          accepted_by_user_id: Joi.string().required(),
        }).allow(null),
      }),
    )
    .required(),
});

export function setupGuideView(setupGuide: SetupGuide): AccountGetSetupGuide {
  return {
    object: 'setup_guide',
    livemode: setupGuide.livemode,
    completed_count: setupGuide.completedCount,
    total_count: setupGuide.steps.length,
    next_step: setupGuide.nextStep,
    steps: setupGuide.steps.map((s) => ({
      key: s.key,
      title: s.title,
      completed: s.completed,
      completed_at: s.completed_at?.toISOString() ?? null,
    })),
  };
}

export const setupGuideResponse = Joi.object({
  object: Joi.string().valid('setup_guide').required(),
  livemode: Joi.boolean().required(),
  completed_count: Joi.number().integer().min(0).required(),
  total_count: Joi.number().integer().min(0).required(),
  next_step: Joi.string().allow(null).required(),
  steps: Joi.array()
    .items(
      Joi.object({
        key: Joi.string().required(),
        title: Joi.string().required(),
        completed: Joi.boolean().required(),
        completed_at: timestamp.allow(null).required(),
      }),
    )
    .required(),
});

/** Result of `POST /account/sessions/revoke_all`. */
export function sessionRevocationView(count: number, at: Date): AccountSessionsRevokeAll {
  return { object: 'session_revocation', revoked_count: count, revoked_at: at.toISOString() };
}

export const sessionRevocationResponse = Joi.object({
  object: Joi.string().valid('session_revocation').required(),
  revoked_count: Joi.number().integer().min(0).required(),
  revoked_at: timestamp.required(),
});

export function waitlistEntryView(waitlistEntry: WaitlistEntry): CardWaitlistJoin {
  return {
    object: 'waitlist_entry',
    waitlist: waitlistEntry.waitlist,
    livemode: true,
    email: waitlistEntry.email,
    use_case: waitlistEntry.use_case,
    joined_at: waitlistEntry.created_at.toISOString(),
    updated_at: waitlistEntry.updated_at.toISOString(),
  };
}

export const waitlistEntryResponse = Joi.object({
  object: Joi.string().valid('waitlist_entry').required(),
  waitlist: Joi.string().valid('webhooks', 'cards').required(),
  livemode: Joi.boolean().required(),
  email: Joi.string().required(),
  use_case: Joi.string().allow(null).required(),
  joined_at: timestamp.required(),
  updated_at: timestamp.required(),
});
