/**
 * PostgreSQL access through TypeORM (pg driver). One DataSource per process, migrations only
 * (never `synchronize`). `transaction()` is the unit of every money-state change: rows and their
 * outbox events commit together (ARCHITECTURE.md "Data flow" 3).
 */
import 'reflect-metadata';
import { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { ENTITIES, MIGRATIONS } from '../entities';
import { logger } from './logger';

let dataSource: DataSource | null = null;

/**
 * How long a query waits for a pooled connection (a free one, or a new one to the server) before it
 * fails: with PostgreSQL frozen or unreachable, requests fail (503 temporarily_unavailable, see
 * lib/dependency-errors.ts) instead of hanging, and the pool recovers when the server answers again.
 */
export const DB_CONNECT_TIMEOUT_MS = 10_000;
let auxPool: Pool | null = null;

/** Builds (does not connect) a DataSource for `url`. */
export function makeDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS },
  });
}

/** Connects the process-wide DataSource once; later calls return it. */
export async function initDb(url: string, poolSize = 10): Promise<DataSource> {
  if (dataSource?.isInitialized) return dataSource;
  dataSource = makeDataSource(url, poolSize);
  await dataSource.initialize();
  keepClientsListening((dataSource.driver as unknown as { master: Pool }).master);
  auxPool = new Pool({ connectionString: url, max: 4, connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS });
  // An idle connection the server closes (restart, failover, shutdown) is dropped from the pool and
  // replaced on next use; without a listener pg's 'error' event would end the process.
  auxPool.on('error', (e) => logger.warn({ err: e }, 'idle auxiliary database connection lost'));
  keepClientsListening(auxPool);
  return dataSource;
}

/**
 * Gives every connection of `pool` an 'error' listener for its whole life. pg-pool
 * listens only while a connection is idle and TypeORM only until it releases a broken one, but a
 * connection the server terminates (a restart: 57P01, then the socket's end) can emit 'error'
 * again after both stopped listening, and an 'error' event nobody listens to ends the process.
 */
function keepClientsListening(pool: Pool): void {
  const listen = (c: { on(e: 'error', f: (err: Error) => void): unknown }) =>
    c.on('error', (err) => logger.warn({ err }, 'database connection lost'));
  pool.on('connect', listen);
  for (const c of (pool as unknown as { _clients?: Array<{ on(e: 'error', f: (err: Error) => void): unknown }> })._clients ?? []) listen(c);
}

/** The connected process-wide DataSource; throws if `initDb` was not called. */
export function db(): DataSource {
  if (!dataSource?.isInitialized) throw new Error('database not initialised: call initDb() first');
  return dataSource;
}

/**
 * A small separate pool for short autocommit statements that may run while the caller holds a
 * connection of the main pool inside a transaction (switch and flag reads, reference-number
 * allocation). Taking a second connection from the main pool there could deadlock it under load.
 */
export function auxDb(): Pool {
  if (!auxPool) throw new Error('database not initialised: call initDb() first');
  return auxPool;
}

let probePool: Pool | null = null;

/**
 * Readiness probe (api/lifecycle.ts): `SELECT 1` on a one-connection pool of its own, so a stalled
 * server (paused, restarting) holds at most that connection and never one the requests need.
 * Resolves when PostgreSQL answered within `timeoutMs`; throws otherwise.
 */
export async function pingDatabase(timeoutMs: number): Promise<void> {
  if (!dataSource) throw new Error('database not initialised: call initDb() first');
  if (!probePool) {
    const url = (dataSource.options as { url?: string }).url;
    probePool = new Pool({
      connectionString: url,
      max: 1,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      idleTimeoutMillis: 30_000,
    });
    probePool.on('error', () => undefined); // a lost idle probe connection is replaced on the next probe
    keepClientsListening(probePool);
  }
  await probePool.query('SELECT 1');
}

/** A hook run after a commit; a promise it returns is awaited only under `awaitAfterCommitHooks`. */
type AfterCommitHook = () => void | Promise<unknown>;

const afterCommitHooks = new WeakMap<EntityManager, AfterCommitHook[]>();

let awaitHooks = false;

/**
 * Tests under time skipping and the activity tier only: `transaction()` waits for the promises its
 * after-commit hooks return (the workflow starts and signals of temporal/intents.ts), so the test's
 * next step (a skip of hours) finds the workflow started, as if the command had awaited it.
 * Production never waits: the request answers while the start is made.
 */
export function awaitAfterCommitHooks(on = true): void {
  awaitHooks = on;
}

/**
 * Runs `fn` in one READ COMMITTED transaction; rolls back on throw. Hooks registered with
 * afterCommit on its manager run after the commit succeeds (never after a rollback); the caller
 * does not wait for what they start (but see awaitAfterCommitHooks).
 */
export async function transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
  let manager = null as EntityManager | null;
  try {
    const out = await db().transaction((m) => {
      manager = m;
      return fn(m);
    });
    const started = ((manager && afterCommitHooks.get(manager)) ?? []).map((hook) => hook());
    if (awaitHooks) await Promise.all(started);
    return out;
  } finally {
    if (manager) afterCommitHooks.delete(manager);
  }
}

/**
 * Runs `hook` once `m`'s transaction has committed (a `transaction()` manager), or at once when `m`
 * is not inside one (its statements committed as they ran). A hook must not throw.
 */
export function afterCommit(manager: EntityManager, hook: AfterCommitHook): void {
  if (!manager.queryRunner?.isTransactionActive) {
    hook();
    return;
  }
  const hooks = afterCommitHooks.get(manager);
  if (hooks) hooks.push(hook);
  else afterCommitHooks.set(manager, [hook]);
}

/** Applies pending migrations; returns their names. */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  const done = await ds.runMigrations({ transaction: 'each' });
  return done.map((m) => m.name);
}

/** Closes the process-wide DataSource (shutdown, tests). */
export async function closeDb(): Promise<void> {
  if (dataSource?.isInitialized) await dataSource.destroy();
  dataSource = null;
  await auxPool?.end().catch(() => undefined);
  auxPool = null;
  await probePool?.end().catch(() => undefined);
  probePool = null;
}

/**
 * Keyset walk for recovery sweeps: runs `select` (SQL whose `$1` is the last id seen and `$2` the
 * batch size, returning `id` and `account_id` ordered by `id`) until a short batch, calling `each`
 * on every row in order. Returns how many rows it looked at.
 */
export async function forEachByKeyset(
  select: string,
  each: (r: { id: string; account_id: string }) => Promise<void>,
  batch = 500,
): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows: Array<{ id: string; account_id: string }> = await db().query(select, [after, batch]);
    for (const r of rows) await each(r);
    n += rows.length;
    if (rows.length < batch) return n;
    after = rows[rows.length - 1].id;
  }
}
