/** Wire projections of request logs and API-key usage (spec 4.10 developers: request logs, key usage). */
import Joi from 'joi';
import type { RequestLog } from '../entities';
import { timestamp } from './schema';
import type { ApiKeysGetUsage } from './wire';

/** One recorded request. `id` is the request id (`req_`) also returned in the `Request-Id` header. */
export function requestLogView(r: RequestLog): Record<string, unknown> {
  return {
    id: r.id,
    object: 'request_log',
    livemode: r.livemode,
    method: r.method,
    path: r.path,
    status: r.status,
    latency_ms: r.latency_ms,
    request_id: r.id,
    caller_type: r.caller_type,
    api_key_id: r.api_key_id,
    idempotency_key: r.idempotency_key,
    error: r.error_type ? { type: r.error_type, code: r.error_code } : null,
    api_version: r.api_version,
    source_ip: r.ip,
    created_at: r.created_at.toISOString(),
  };
}

export const requestLogResponse = Joi.object({
  id: Joi.string().required(),
  object: Joi.string().valid('request_log').required(),
  livemode: Joi.boolean().required(),
  method: Joi.string().required(),
  path: Joi.string().required(),
  status: Joi.number().integer().required(),
  latency_ms: Joi.number().integer().min(0).required(),
  request_id: Joi.string().required(),
  caller_type: Joi.string().valid('business_key', 'dashboard_session').required(),
  api_key_id: Joi.string().allow(null).required(),
  idempotency_key: Joi.string().allow(null).required(),
  error: Joi.object({ type: Joi.string().required(), code: Joi.string().allow(null).required() }).allow(null).required(),
  api_version: Joi.string().allow(null).required(),
  source_ip: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
});

/** Request counts by HTTP status class. */
export interface StatusClasses { '2xx': number; '3xx': number; '4xx': number; '5xx': number }

export const statusClassesResponse = Joi.object({
  '2xx': Joi.number().integer().min(0).required(),
  '3xx': Joi.number().integer().min(0).required(),
  '4xx': Joi.number().integer().min(0).required(),
  '5xx': Joi.number().integer().min(0).required(),
});

/** Usage of one API key over the last `days` days (UTC), computed from its request logs. */
export interface ApiKeyUsage {
  keyId: string; livemode: boolean; start: Date; end: Date; total: number; classes: StatusClasses;
  p50: number | null; p95: number | null; lastRequestAt: Date | null;
  daily: Array<{ date: string; requests: number; errors: number }>;
}

export function apiKeyUsageView(u: ApiKeyUsage): ApiKeysGetUsage {
  return {
    object: 'api_key_usage',
    api_key_id: u.keyId,
    livemode: u.livemode,
    period: { start: u.start.toISOString(), end: u.end.toISOString() },
    total_requests: u.total,
    by_status_class: u.classes,
    error_rate: u.total ? Number(((u.classes['4xx'] + u.classes['5xx']) / u.total).toFixed(4)) : 0,
    latency_ms: u.p50 === null || u.p95 === null ? null : { p50: u.p50, p95: u.p95 },
    last_request_at: u.lastRequestAt?.toISOString() ?? null,
    daily: u.daily,
  };
}

export const apiKeyUsageResponse = Joi.object({
  object: Joi.string().valid('api_key_usage').required(),
  api_key_id: Joi.string().required(),
  livemode: Joi.boolean().required(),
  period: Joi.object({ start: timestamp.required(), end: timestamp.required() }).required(),
  total_requests: Joi.number().integer().min(0).required(),
  by_status_class: statusClassesResponse.required(),
  error_rate: Joi.number().min(0).max(1).required(),
  latency_ms: Joi.object({ p50: Joi.number().integer().required(), p95: Joi.number().integer().required() }).allow(null).required(),
  last_request_at: timestamp.allow(null).required(),
  daily: Joi.array().items(Joi.object({
    date: Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/).required(),
    requests: Joi.number().integer().min(0).required(),
    errors: Joi.number().integer().min(0).required(),
  })).required(),
});
