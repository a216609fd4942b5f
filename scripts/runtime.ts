/**
 * The dev stack's runtime file `.data/runtime.json` ({ api_url, database_url, temporal_address,
 * temporal_ui_url, app_encryption_key, network }) written by `npm start`, read by `npm run seed`,
 * `demo`, `switch`, `migrate`, `temporal` and the bench, so they act on the running product and
 * follow its settings (not their own environment's).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Runtime {
  api_url: string;
  database_url: string;
  temporal_address: string;
  temporal_ui_url: string | null;
  app_encryption_key: string;
  /** The chain network the stack runs on (NETWORK at `npm start`); absent in files written before it was recorded. */
  network?: 'mainnet' | 'testnet';
}

export const DATA_DIR = path.resolve(process.env.DATA_DIR ?? '.data');
export const RUNTIME_FILE = path.join(DATA_DIR, 'runtime.json');
export const CREDENTIALS_FILE = path.join(DATA_DIR, 'dev-credentials.json');

/** Reads the runtime file; throws a clear error when the product is not running from this checkout. */
export function readRuntime(): Runtime {
  if (!fs.existsSync(RUNTIME_FILE)) throw new Error(`${RUNTIME_FILE} not found: start the product first with \`npm start\``);
  return JSON.parse(fs.readFileSync(RUNTIME_FILE, 'utf8')) as Runtime;
}

/**
 * Points this process at the running stack: its database, Temporal server, encryption key and
 * network replace whatever this process's environment says (a script talking to the stack must
 * act as the stack does, e.g. provision a service wallet on the stack's network). A runtime file
 * without `network` (a stack started before it was recorded) leaves NETWORK as it is, with a warning.
 */
export function useRuntimeEnv(): Runtime {
  const rt = readRuntime();
  process.env.DATABASE_URL = rt.database_url;
  process.env.TEMPORAL_ADDRESS = rt.temporal_address;
  process.env.APP_ENCRYPTION_KEY = rt.app_encryption_key;
  if (rt.network) process.env.NETWORK = rt.network;
  else
    process.stderr.write(
      `warning: ${RUNTIME_FILE} does not record the stack's network (restart \`npm start\`); using NETWORK=${process.env.NETWORK ?? 'testnet'}\n`,
    );
  return rt;
}
