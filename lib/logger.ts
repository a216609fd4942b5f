/** Structured logging (pino). One root logger per process; level from LOG_LEVEL (default info). */
import pino from 'pino';

export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'payments-platform' },
  redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.secret', '*.account_number', '*.iban'], remove: true },
});
