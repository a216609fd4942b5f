/**
 * Writes the OpenAPI document (api/openapi.ts) without a server or database: registers every
 * area's operations and the payer routes on throwaway routers, then prints the JSON.
 * Usage: `node dist/api/openapi-cli.js [out.json]` (stdout when no file; `--tmp` writes a temp
 * file and prints its path, for `npm run lint:openapi`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Router from '@koa/router';
import type { AppState } from './context';
import { buildOpenApi } from './openapi';
import { REGISTRY } from './operation';
import { mountAreas, publicRouters } from './routes';

/** The document of every operation this build serves: the same routers the server mounts (api/app.ts). */
export function documentOfThisBuild(): Record<string, unknown> {
  mountAreas(new Router<AppState>({ prefix: '/v1' }));
  publicRouters();
  return buildOpenApi(REGISTRY);
}

if (require.main === module) {
  const json = `${JSON.stringify(documentOfThisBuild(), null, 2)}\n`;
  const arg = process.argv[2];
  if (!arg) process.stdout.write(json);
  else {
    const out = arg === '--tmp' ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json') : arg;
    fs.writeFileSync(out, json);
    process.stdout.write(`${out}\n`);
  }
}
