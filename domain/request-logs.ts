/**
 * Request-log rules (spec 4.10 request logs, `GET /api_keys/{id}/usage`). Pure: no I/O.
 */

/** Days request logs are kept (spec 4.10; `GET /api_keys/{id}/usage` covers at most this many days). */
export const REQUEST_LOG_RETENTION_DAYS = 30;
