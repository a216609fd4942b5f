/**
 * `npm run seed`: creates one more account on the running product (owner, live and test keys with
 * every scope, an owner dashboard session, a service wallet on the stack's network) and prints only
 * `{ account_id, live_key, test_key, session_token }`. Without DATABASE_URL it follows the stack
 * `npm start` recorded in `.data/runtime.json` (database, Temporal, encryption key, network),
 * whatever this shell's environment says.
 */
import 'reflect-metadata';
import { useRuntimeEnv } from './runtime';

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) useRuntimeEnv();
  // Imported after the environment is final: configuration is read once.
  const { provisionAccount } = await import('../activities/accounts/commands');
  const { closeDb, initDb } = await import('../lib/db');
  await initDb(process.env.DATABASE_URL!, 2);
  const creds = await provisionAccount();
  process.stdout.write(`${JSON.stringify(creds, null, 2)}\n`);
  await closeDb();
}

main().catch((e) => {
  process.stderr.write(`seed failed: ${String(e)}\n`);
  process.exit(1);
});
