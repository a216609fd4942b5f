/** Structured logging (pino). One root logger per process; children carry request ids. */
import pino from 'pino';
import { loadConfig } from './config';

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (() => { try { return loadConfig().logLevel; } catch { return 'info'; } })(),
  base: { service: 'payments-platform' },
  redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.secret', '*.account_number', '*.iban'], remove: true },
});
