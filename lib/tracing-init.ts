/**
 * Side-effect module, the first import of each process entry (api/main.ts, worker.ts, api/serve.ts):
 * starts tracing (lib/tracing.ts) before anything loads `http`, `pg` or `undici`, when the standard
 * OpenTelemetry environment asks for it; otherwise it loads nothing more. The service is the entry
 * being run (`dist/api/main.js` api, `dist/worker.js` worker, `dist/api/serve.js` both); a process
 * that merely imports an entry (tests, scripts) starts nothing unless OTEL_* asks, then as `api`.
 */
import path from 'node:path';
import { startTracing, type TracedService } from './tracing';

const entry = path.basename(process.argv[1] ?? '', path.extname(process.argv[1] ?? ''));
const service: TracedService = entry === 'worker' ? 'worker' : entry === 'serve' ? 'serve' : 'api';
startTracing(service);
