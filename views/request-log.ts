/** Wire projections of request logs and API-key usage (spec 4.10 developers: request logs, key usage). */
import Joi from 'joi';
import type { RequestLog } from '../entities';
import { timestamp } from './schema';
import type { ApiKeysGetUsage } from './wire';

/** One recorded request. `id` is the request id (`req_`) also returned in the `Request-Id` header. */
export function requestLogView(requestLog: RequestLog): Record<string, unknown> {
  return {
    id: requestLog.id,
    object: 'request_log',
    livemode: requestLog.livemode,
    method: requestLog.method,
    path: requestLog.path,
    status: requestLog.status,
    latency_ms: requestLog.latency_ms,
    request_id: requestLog.id,
    caller_type: requestLog.caller_type,
    api_key_id: requestLog.api_key_id,
    idempotency_key: requestLog.idempotency_key,
    error: requestLog.error_type ? { type: requestLog.error_type, code: requestLog.error_code } : null,
    api_version: requestLog.api_version,
    source_ip: requestLog.ip,
    created_at: requestLog.created_at.toISOString(),
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
  error: Joi.object({ type: Joi.string().required(), code: Joi.string().allow(null).required() })
    .allow(null)
    .required(),
  api_version: Joi.string().allow(null).required(),
  source_ip: Joi.string().allow(null).required(),
  created_at: timestamp.required(),
});

/** Request counts by HTTP status class. */
export interface StatusClasses {
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
}

export const statusClassesResponse = Joi.object({
  '2xx': Joi.number().integer().min(0).required(),
  '3xx': Joi.number().integer().min(0).required(),
  '4xx': Joi.number().integer().min(0).required(),
  '5xx': Joi.number().integer().min(0).required(),
});

/** Usage of one API key over the last `days` days (UTC), computed from its request logs. */
export interface ApiKeyUsage {
  keyId: string;
  livemode: boolean;
  start: Date;
  end: Date;
  total: number;
  classes: StatusClasses;
  p50: number | null;
  p95: number | null;
  lastRequestAt: Date | null;
  daily: Array<{ date: string; requests: number; errors: number }>;
}

export function apiKeyUsageView(apiKeyUsage: ApiKeyUsage): ApiKeysGetUsage {
  return {
    object: 'api_key_usage',
    api_key_id: apiKeyUsage.keyId,
    livemode: apiKeyUsage.livemode,
    period: { start: apiKeyUsage.start.toISOString(), end: apiKeyUsage.end.toISOString() },
    total_requests: apiKeyUsage.total,
    by_status_class: apiKeyUsage.classes,
    error_rate: apiKeyUsage.total ? Number(((apiKeyUsage.classes['4xx'] + apiKeyUsage.classes['5xx']) / apiKeyUsage.total).toFixed(4)) : 0,
    latency_ms: apiKeyUsage.p50 === null || apiKeyUsage.p95 === null ? null : { p50: apiKeyUsage.p50, p95: apiKeyUsage.p95 },
    last_request_at: apiKeyUsage.lastRequestAt?.toISOString() ?? null,
    daily: apiKeyUsage.daily,
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
  daily: Joi.array()
    .items(
      Joi.object({
        date: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/)
          .required(),
        requests: Joi.number().integer().min(0).required(),
        errors: Joi.number().integer().min(0).required(),
      }),
    )
    .required(),
});
