/**
 * The dev stack's runtime file `.data/runtime.json` ({ api_url, database_url, temporal_address,
 * temporal_ui_url, app_encryption_key }) written by `npm start`, read by `npm run seed`, `demo`,
 * `switch` and the bench, so they act on the running product.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Runtime { api_url: string; database_url: string; temporal_address: string; temporal_ui_url: string | null; app_encryption_key: string }

export const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.data');
export const RUNTIME_FILE = path.join(DATA_DIR, 'runtime.json');
export const CREDENTIALS_FILE = path.join(DATA_DIR, 'dev-credentials.json');

/** Reads the runtime file; throws a clear error when the product is not running from this checkout. */
export function readRuntime(): Runtime {
  if (!fs.existsSync(RUNTIME_FILE)) throw new Error(`${RUNTIME_FILE} not found: start the product first with \`npm start\``);
  return JSON.parse(fs.readFileSync(RUNTIME_FILE, 'utf8')) as Runtime;
}

/** Applies the runtime to this process's environment (DATABASE_URL etc.) unless already set. */
export function useRuntimeEnv(): Runtime {
  const rt = readRuntime();
  process.env.DATABASE_URL ??= rt.database_url;
  process.env.TEMPORAL_ADDRESS ??= rt.temporal_address;
  process.env.APP_ENCRYPTION_KEY ??= rt.app_encryption_key;
  return rt;
}
