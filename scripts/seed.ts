/**
 * `npm run seed`: creates one more account on the running product (owner, live and test keys with
 * every scope, an owner dashboard session, a service wallet) and prints only
 * `{ account_id, live_key, test_key, session_token }`.
 */
import 'reflect-metadata';
import { provisionAccount } from '../activities/accounts/commands';
import { closeDb, initDb } from '../lib/db';
import { useRuntimeEnv } from './runtime';

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) useRuntimeEnv();
  await initDb(process.env.DATABASE_URL!, 2);
  const creds = await provisionAccount();
  process.stdout.write(`${JSON.stringify(creds, null, 2)}\n`);
  await closeDb();
}

main().catch((e) => { process.stderr.write(`seed failed: ${String(e)}\n`); process.exit(1); });
