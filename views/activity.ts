/** Wire projections of activity rows and the activity summary (spec 4.10 `/activity`, `/activity/summary`). */
import Joi from 'joi';
import { ACTIVITY_CATEGORIES, activityCategory, describeActivity } from '../domain/activity';
import type { EventRow } from '../entities';
import { moneyOut, timestamp } from './schema';
import type { ActivityGetSummary } from './wire';

/** One activity row, projected from a shipped event (`id` is the event id). */
export function activityView(e: EventRow): Record<string, unknown> {
  const obj = (e.data as { object?: Record<string, unknown> } | null)?.object ?? {};
  const amount = obj.amount as { amount?: unknown; currency?: unknown; decimals?: unknown } | undefined;
  const money = amount && typeof amount === 'object' && typeof amount.amount === 'string' && /^-?[0-9]+$/.test(amount.amount)
    && typeof amount.currency === 'string' && Number.isInteger(amount.decimals)
    ? { amount: amount.amount, currency: amount.currency, decimals: amount.decimals as number } : null;
  return {
    id: e.id,
    object: 'activity',
    livemode: e.livemode,
    type: e.type,
    category: activityCategory(e.type),
    description: describeActivity(e.type, e.object_id),
    subject: { id: e.object_id, type: e.object_type },
    amount: money,
    status: typeof obj.status === 'string' ? obj.status : null,
    occurred_at: e.created_at.toISOString(),
  };
}

export const activityResponse = Joi.object({
  id: Joi.string().required(),
  object: Joi.string().valid('activity').required(),
  livemode: Joi.boolean().required(),
  type: Joi.string().required(),
  category: Joi.string().valid(...ACTIVITY_CATEGORIES).required(),
  description: Joi.string().required(),
  subject: Joi.object({ id: Joi.string().required(), type: Joi.string().required() }).required(),
  amount: moneyOut.allow(null).required(),
  status: Joi.string().allow(null).required(),
  occurred_at: timestamp.required(),
});

/** Counts per category (every category present, zero-filled). */
export const byCategoryResponse = Joi.object(Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, Joi.number().integer().min(0).required()])));

export interface ActivitySummary {
  livemode: boolean; start: Date; end: Date; total: number;
  byCategory: Record<string, number>; byType: Record<string, number>; firstAt: Date | null; lastAt: Date | null;
}

export function activitySummaryView(s: ActivitySummary): ActivityGetSummary {
  return {
    object: 'activity_summary',
    livemode: s.livemode,
    period: { start: s.start.toISOString(), end: s.end.toISOString() },
    total: s.total,
    by_category: Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, s.byCategory[c] ?? 0])) as ActivityGetSummary['by_category'],
    by_type: s.byType,
    first_at: s.firstAt?.toISOString() ?? null,
    last_at: s.lastAt?.toISOString() ?? null,
  };
}

export const activitySummaryResponse = Joi.object({
  object: Joi.string().valid('activity_summary').required(),
  livemode: Joi.boolean().required(),
  period: Joi.object({ start: timestamp.required(), end: timestamp.required() }).required(),
  total: Joi.number().integer().min(0).required(),
  by_category: byCategoryResponse.required(),
  by_type: Joi.object().pattern(/^[a-z_]+\.[a-z_.]+$/, Joi.number().integer().min(1)).required(),
  first_at: timestamp.allow(null).required(),
  last_at: timestamp.allow(null).required(),
});
