/** `npm run migrate`: applies pending TypeORM migrations to DATABASE_URL (or the running dev stack's database). */
import 'reflect-metadata';
import { makeDataSource, runMigrations } from '../lib/db';
import { useRuntimeEnv } from './runtime';

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) useRuntimeEnv();
  const ds = makeDataSource(process.env.DATABASE_URL!, 1);
  await ds.initialize();
  const done = await runMigrations(ds);
  process.stdout.write(done.length ? `applied: ${done.join(', ')}\n` : 'no pending migrations\n');
  await ds.destroy();
}

main().catch((e) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
