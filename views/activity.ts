/** Wire projections of activity rows and the activity summary (spec 4.10 `/activity`, `/activity/summary`). */
import Joi from 'joi';
import { ACTIVITY_CATEGORIES, activityCategory, describeActivity } from '../domain/activity';
import type { EventRow } from '../entities';
import { moneyOut, timestamp } from './schema';
import type { ActivityGetSummary } from './wire';

/** One activity row, projected from a shipped event (`id` is the event id). */
export function activityView(eventRow: EventRow): Record<string, unknown> {
  const obj = (eventRow.data as { object?: Record<string, unknown> } | null)?.object ?? {};
  const amount = obj.amount as { amount?: unknown; currency?: unknown; decimals?: unknown } | undefined;
  const money =
    amount &&
    typeof amount === 'object' &&
    typeof amount.amount === 'string' &&
    /^-?[0-9]+$/.test(amount.amount) &&
    typeof amount.currency === 'string' &&
    Number.isInteger(amount.decimals)
      ? { amount: amount.amount, currency: amount.currency, decimals: amount.decimals as number }
      : null;
  return {
    id: eventRow.id,
    object: 'activity',
    livemode: eventRow.livemode,
    type: eventRow.type,
    category: activityCategory(eventRow.type),
    description: describeActivity(eventRow.type, eventRow.object_id),
    subject: { id: eventRow.object_id, type: eventRow.object_type },
    amount: money,
    status: typeof obj.status === 'string' ? obj.status : null,
    occurred_at: eventRow.created_at.toISOString(),
  };
}

export const activityResponse = Joi.object({
  id: Joi.string().required(),
  object: Joi.string().valid('activity').required(),
  livemode: Joi.boolean().required(),
  type: Joi.string().required(),
  category: Joi.string()
    .valid(...ACTIVITY_CATEGORIES)
    .required(),
  description: Joi.string().required(),
  subject: Joi.object({ id: Joi.string().required(), type: Joi.string().required() }).required(),
  amount: moneyOut.allow(null).required(),
  status: Joi.string().allow(null).required(),
  occurred_at: timestamp.required(),
});

/** Counts per category (every category present, zero-filled). */
export const byCategoryResponse = Joi.object(
  Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, Joi.number().integer().min(0).required()])),
);

export interface ActivitySummary {
  livemode: boolean;
  start: Date;
  end: Date;
  total: number;
  byCategory: Record<string, number>;
  byType: Record<string, number>;
  firstAt: Date | null;
  lastAt: Date | null;
}

export function activitySummaryView(activitySummary: ActivitySummary): ActivityGetSummary {
  return {
    object: 'activity_summary',
    livemode: activitySummary.livemode,
    period: { start: activitySummary.start.toISOString(), end: activitySummary.end.toISOString() },
    total: activitySummary.total,
    by_category: Object.fromEntries(
      ACTIVITY_CATEGORIES.map((c) => [c, activitySummary.byCategory[c] ?? 0]),
    ) as ActivityGetSummary['by_category'],
    by_type: activitySummary.byType,
    first_at: activitySummary.firstAt?.toISOString() ?? null,
    last_at: activitySummary.lastAt?.toISOString() ?? null,
  };
}

export const activitySummaryResponse = Joi.object({
  object: Joi.string().valid('activity_summary').required(),
  livemode: Joi.boolean().required(),
  period: Joi.object({ start: timestamp.required(), end: timestamp.required() }).required(),
  total: Joi.number().integer().min(0).required(),
  by_category: byCategoryResponse.required(),
  by_type: Joi.object()
    .pattern(/^[a-z_]+\.[a-z_.]+$/, Joi.number().integer().min(1))
    .required(),
  first_at: timestamp.allow(null).required(),
  last_at: timestamp.allow(null).required(),
});
