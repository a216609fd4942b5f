/**
 * Temporal as production runs it (docs/decisions/0092-temporal-cluster.md): the
 * server's services as separate processes on PostgreSQL persistence with SQL visibility, for
 * `npm run start:cluster`, the benches' and chaos's `--temporal=cluster` and the cluster test run.
 *
 * - Binaries: temporal/dev/cluster-build.ts (server, SQL tool and UI server from their Go modules).
 * - Databases: `<prefix>` (persistence) and `<prefix>_visibility` on the given PostgreSQL server,
 *   created with temporal-sql-tool `create-database` and `setup-schema -v 0.0` the first time, and
 *   `update-schema` from the binary's embedded `postgresql/v12` schema on every start (an upgrade
 *   of the pinned server migrates them).
 * - Processes: frontend, `historyHosts` history hosts (default 2; the shards are spread between
 *   them), matching and worker, each `temporal-server start --service X` on one config file
 *   (temporal/dev/cluster/server.template.yaml, rendered by the server from each process's
 *   environment) and one dynamic config file (temporal/dev/cluster/dynamicconfig.yaml); then the
 *   namespace and the custom search attributes are registered, and the UI server starts.
 * Each process logs to `<dir>/logs/<service>.log` and serves Prometheus metrics on its own port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Client as PgClient } from 'pg';
import { freePort } from '../../lib/ports';
import { TEMPORAL_NAMESPACE } from '../config';
import { ensureClusterBinaries, type ClusterBinaries } from './cluster-build';
import { CUSTOM_SEARCH_ATTRIBUTES, registerSearchAttributes } from './servers';
import { type BootstrapLog, PREFIX, defaultLog, formatDuration, repoFile, runLogged, sleep, tailOfFile } from './util';

/** Shards of a cluster this project creates: fixed at creation (operator runbook, decision 0092). */
export const CLUSTER_HISTORY_SHARDS = 16;
/**
 * Temporal's conventional ports (its docker and development configs): gRPC, membership and metrics
 * per service process, the frontend's HTTP API, and the UI.
 */
export const CONVENTIONAL_PORTS: Readonly<Record<string, { grpc: number; membership: number; metrics: number }>> = {
  frontend: { grpc: 7233, membership: 6933, metrics: 8000 },
  'history-0': { grpc: 7234, membership: 6934, metrics: 8001 },
  'history-1': { grpc: 7236, membership: 6936, metrics: 8002 },
  matching: { grpc: 7235, membership: 6935, metrics: 8003 },
  worker: { grpc: 7239, membership: 6939, metrics: 8004 },
};
/** The frontend's HTTP API and the UI at their conventional ports. */
const CONVENTIONAL_HTTP_PORT = 7243;
const CONVENTIONAL_UI_PORT = 8233;

/** How long closed workflows stay in the namespace (the dev server's default is one day). */
const RETENTION_SECONDS = 3 * 24 * 3600;

/** Options of `startTemporalCluster`. */
export interface ClusterOptions {
  /** A PostgreSQL URL whose role may create databases; its host, port, user and password are Temporal's. */
  postgresUrl: string;
  /** Database names: `<prefix>` and `<prefix>_visibility` (default `temporal`). */
  databasePrefix?: string;
  /** Where the rendered config, logs and pids go (created). */
  dir: string;
  /**
   * `conventional`: Temporal's usual ports (CONVENTIONAL_PORTS; frontend 7233, UI 8233), the same on
   * every start, so a restarted cluster finds its members where the membership table last saw them
   * (a stale address costs a 30 s join); `free` (default): free ports (throwaway stacks).
   */
  ports?: 'conventional' | 'free';
  /** No UI server (throwaway stacks). */
  headless?: boolean;
  /**
   * PostgreSQL connections per service process: persistence and visibility pools (default 10 and
   * 4; throwaway stacks sharing a server with the product and the tests take fewer).
   */
  pgConnections?: { persistence: number; visibility: number };
  /** History hosts (default 2). */
  historyHosts?: number;
  /** Server log level (default warn). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  log?: BootstrapLog;
}

/** One service process of the cluster. */
export interface ClusterService {
  name: string;
  service: 'frontend' | 'history' | 'matching' | 'worker';
  port: number;
  metricsPort: number;
  logFile: string;
}

/** A running cluster. */
export interface ClusterHandle {
  kind: 'temporal-cluster';
  /** Frontend gRPC address, host:port. */
  address: string;
  uiUrl: string | null;
  namespace: string;
  serverVersion: string;
  /** Every service process, by name (`frontend`, `history-0`, `history-1`, `matching`, `worker`). */
  services: ClusterService[];
  /** The persistence and visibility database names. */
  databases: { persistence: string; visibility: string };
  /** Sends `signal` to service `name` and waits for it to exit (SIGTERM: 20 s, then SIGKILL). */
  stopService(name: string, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts service `name` again; resolves once it serves (the frontend: once it answers for the namespace). */
  startService(name: string): Promise<void>;
  /**
   * Stops every service process, leaves the cluster down `downMs`, and starts it again on the same
   * ports and databases (the frontend first); resolves once it serves the namespace again.
   */
  restart(downMs?: number): Promise<void>;
  /** Stops every process (SIGTERM to all at once, SIGKILL after 20 s). Idempotent. */
  stop(): Promise<void>;
}

/** host, port, user, password and database of a PostgreSQL URL. */
function pgParts(url: string): { host: string; port: string; user: string; password: string; database: string } {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port || '5432',
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1) || 'postgres',
  };
}

/**
 * Creates (first time) and migrates (every time) the persistence and visibility databases with
 * temporal-sql-tool. Returns their names.
 */
async function prepareDatabases(
  bin: ClusterBinaries,
  o: ClusterOptions,
  log: BootstrapLog,
): Promise<{ persistence: string; visibility: string }> {
  const pg = pgParts(o.postgresUrl);
  const prefix = o.databasePrefix ?? 'temporal';
  const dbs = { persistence: prefix, visibility: `${prefix}_visibility` };
  const admin = new PgClient({ connectionString: o.postgresUrl });
  await admin.connect();
  const exists = async (db: string) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1;
  const logFile = path.join(o.dir, 'logs', 'temporal-sql-tool.log');
  const tool = (db: string, args: string[], what: string) =>
    runLogged(
      bin.sqlTool,
      ['--plugin', 'postgres12', '--ep', pg.host, '-p', pg.port, '-u', pg.user, '--pw', pg.password, '--db', db, ...args],
      { logFile, log, what },
    );
  try {
    for (const [db, schema] of [
      [dbs.persistence, 'postgresql/v12/temporal'],
      [dbs.visibility, 'postgresql/v12/visibility'],
    ] as const) {
      if (!(await exists(db))) {
        log(`${PREFIX} creating database ${db} (temporal-sql-tool create-database, setup-schema -v 0.0)`);
        await tool(db, ['create-database', '--defaultdb', pg.database], `creating ${db}`);
      }
      const versioned = new PgClient({ connectionString: withDatabase(o.postgresUrl, db) });
      await versioned.connect();
      const hasVersionTable =
        (await versioned.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_version'`)).rowCount === 1;
      await versioned.end();
      if (!hasVersionTable) await tool(db, ['setup-schema', '-v', '0.0'], `setting up ${db}`);
      await tool(db, ['update-schema', '--schema-name', schema], `migrating ${db} to the ${schema} schema of ${bin.serverVersion}`);
    }
  } finally {
    await admin.end();
  }
  return dbs;
}

/** `url` pointing at database `db`. */
function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Resolves once the persistence database holds the cluster's metadata record; throws past `deadline` or when `gone()`. */
async function waitForClusterMetadata(url: string, deadline: number, gone: () => string | null): Promise<void> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    while ((await c.query('SELECT 1 FROM cluster_metadata_info LIMIT 1')).rowCount === 0) {
      const why = gone();
      if (why) throw new Error(why);
      if (Date.now() > deadline) throw new Error('the frontend did not write the cluster metadata');
      await sleep(200);
    }
  } finally {
    await c.end();
  }
}

/** Resolves once `host:port` accepts TCP connections; throws past `deadline` or when `gone()`. */
async function waitForPort(host: string, port: number, deadline: number, gone: () => string | null): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port });
      s.setTimeout(1000, () => {
        s.destroy();
        resolve(false);
      });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    const why = gone();
    if (why) throw new Error(why);
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port}`);
    await sleep(250);
  }
}

/**
 * Registers the namespace (retention RETENTION_SECONDS) and the custom search attributes in SQL
 * visibility, and waits until the frontend serves both (the namespace cache refreshes every few
 * seconds). Existing registrations are fine.
 */
async function registerNamespace(address: string, namespace: string, deadline: number, log: BootstrapLog): Promise<void> {
  let last: unknown = null;
  let noticed = Date.now();
  while (Date.now() < deadline) {
    if (Date.now() - noticed > 10_000 && last) {
      noticed = Date.now();
      log(`${PREFIX} still waiting for the frontend to serve namespace ${namespace}: ${(last as Error).message ?? String(last)}`);
    }
    const connection = await Connection.connect({ address, connectTimeout: '5s' }).catch((e) => {
      last = e;
      return null;
    });
    try {
      if (!connection) {
        await sleep(500);
        continue;
      }
      await connection.workflowService.getSystemInfo({});
      try {
        await connection.workflowService.describeNamespace({ namespace });
      } catch {
        await connection.workflowService
          .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(RETENTION_SECONDS * 1000) })
          .catch((e: { code?: number }) => {
            if (e.code !== 6) throw e;
          });
        await connection.workflowService.describeNamespace({ namespace });
      }
      await registerSearchAttributes(connection, namespace);
      const res = await connection.operatorService.listSearchAttributes({ namespace });
      const missing = Object.keys(CUSTOM_SEARCH_ATTRIBUTES).filter((n) => !res.customAttributes || !(n in res.customAttributes));
      if (missing.length) throw new Error(`search attributes ${missing.join(', ')} not visible yet`);
      // Registered is not yet queryable: each frontend reads its search attribute cache, refreshed
      // on its own schedule (decision 0092). Ready means a visibility query naming all three works.
      await connection.workflowService.countWorkflowExecutions({
        namespace,
        query: Object.keys(CUSTOM_SEARCH_ATTRIBUTES)
          .map((n) => `${n} IS NOT NULL`)
          .join(' AND '),
      });
      return;
    } catch (e) {
      last = e;
      await sleep(500);
    } finally {
      await connection?.close().catch(() => undefined);
    }
  }
  throw new Error(`the frontend at ${address} did not serve namespace ${namespace}: ${(last as Error)?.message ?? String(last)}`);
}

/**
 * Starts a Temporal cluster (module doc) and resolves once the frontend serves the namespace with
 * its search attributes. Throws (having stopped what it started) when a binary cannot be built, a
 * database step fails or a service does not come up within 2 minutes; the error carries the
 * failing process's log tail.
 */
export async function startTemporalCluster(clusterOptions: ClusterOptions): Promise<ClusterHandle> {
  const log = clusterOptions.log ?? defaultLog;
  const started = Date.now();
  const ip = '127.0.0.1';
  const namespace = TEMPORAL_NAMESPACE;
  const bin = await ensureClusterBinaries(log);
  fs.mkdirSync(path.join(clusterOptions.dir, 'config'), { recursive: true });
  fs.mkdirSync(path.join(clusterOptions.dir, 'logs'), { recursive: true });
  const databases = await prepareDatabases(bin, clusterOptions, log);
  fs.copyFileSync(
    repoFile(path.join('temporal', 'dev', 'cluster', 'server.template.yaml')),
    path.join(clusterOptions.dir, 'config', 'cluster.yaml'),
  );
  const dynamicConfig = path.join(clusterOptions.dir, 'config', 'dynamicconfig.yaml');
  fs.copyFileSync(repoFile(path.join('temporal', 'dev', 'cluster', 'dynamicconfig.yaml')), dynamicConfig);
  const pg = pgParts(clusterOptions.postgresUrl);
  const conventional = clusterOptions.ports === 'conventional';
  /** Service `name`'s port of `kind`: conventional, or a free one. */
  const portOf = async (name: string, kind: 'grpc' | 'membership' | 'metrics'): Promise<number> => {
    const fixed = conventional ? CONVENTIONAL_PORTS[name]?.[kind] : undefined;
    if (conventional && fixed === undefined) throw new Error(`${PREFIX} no conventional ports for ${name} (two history hosts at most)`);
    return fixed ?? freePort(ip);
  };
  const frontendPort = await portOf('frontend', 'grpc');
  const shared: NodeJS.ProcessEnv = {
    TEMPORAL_BIND_IP: ip,
    TEMPORAL_LOG_LEVEL: clusterOptions.logLevel ?? 'warn',
    TEMPORAL_NUM_HISTORY_SHARDS: String(CLUSTER_HISTORY_SHARDS),
    TEMPORAL_PG_HOST: pg.host,
    TEMPORAL_PG_PORT: pg.port,
    TEMPORAL_PG_USER: pg.user,
    TEMPORAL_PG_PASSWORD: pg.password,
    TEMPORAL_PG_MAX_CONNS: String(clusterOptions.pgConnections?.persistence ?? 10),
    TEMPORAL_PG_VISIBILITY_MAX_CONNS: String(clusterOptions.pgConnections?.visibility ?? 4),
    TEMPORAL_DB: databases.persistence,
    TEMPORAL_VISIBILITY_DB: databases.visibility,
    TEMPORAL_DYNAMIC_CONFIG_FILE: dynamicConfig,
    TEMPORAL_FRONTEND_PORT: String(frontendPort),
    TEMPORAL_FRONTEND_HTTP_PORT: String(conventional ? CONVENTIONAL_HTTP_PORT : await freePort(ip)),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(await portOf('frontend', 'membership')),
  };
  fs.writeFileSync(
    path.join(clusterOptions.dir, 'config', 'cluster.env'),
    Object.entries(shared)
      .filter(([k]) => k !== 'TEMPORAL_PG_PASSWORD')
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );

  const services: ClusterService[] = [];
  const add = async (name: string, service: ClusterService['service']) =>
    services.push({
      name,
      service,
      port: name === 'frontend' ? frontendPort : await portOf(name, 'grpc'),
      metricsPort: await portOf(name, 'metrics'),
      logFile: path.join(clusterOptions.dir, 'logs', `${name}.log`),
    });
  await add('frontend', 'frontend');
  for (let i = 0; i < (clusterOptions.historyHosts ?? 2); i++) await add(`history-${i}`, 'history');
  await add('matching', 'matching');
  await add('worker', 'worker');
  const membership = new Map<string, number>();
  for (const s of services)
    membership.set(s.name, s.name === 'frontend' ? Number(shared.TEMPORAL_FRONTEND_MEMBERSHIP_PORT) : await portOf(s.name, 'membership'));

  const children = new Map<string, ChildProcess>();
  const ended = new Map<string, string>();
  const spawnService = (s: ClusterService): ChildProcess => {
    const out = fs.openSync(s.logFile, 'a');
    const child = spawn(
      bin.server,
      ['--root', clusterOptions.dir, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start', '--service', s.service],
      {
        env: {
          ...process.env,
          ...shared,
          TEMPORAL_SERVICE_PORT: String(s.port),
          TEMPORAL_MEMBERSHIP_PORT: String(membership.get(s.name)),
          TEMPORAL_METRICS_PORT: String(s.metricsPort),
        },
        detached: true,
        stdio: ['ignore', out, out],
      },
    );
    fs.closeSync(out);
    ended.delete(s.name);
    child.once('exit', (code, signal) => ended.set(s.name, `${s.name} exited (${signal ?? `code ${code}`})`));
    children.set(s.name, child);
    return child;
  };
  const serviceNamed = (name: string): ClusterService => {
    const s = services.find((x) => x.name === name);
    if (!s) throw new Error(`${PREFIX} no cluster service ${name} (${services.map((x) => x.name).join(', ')})`);
    return s;
  };
  const waitServing = async (s: ClusterService, deadline: number) => {
    // The worker service (system workflows) serves no gRPC of its own: its membership port says it is up.
    await waitForPort(ip, s.service === 'worker' ? membership.get(s.name)! : s.port, deadline, () => ended.get(s.name) ?? null);
    if (s.service === 'frontend') await registerNamespace(`${ip}:${frontendPort}`, namespace, deadline, log);
  };
  let ui: ChildProcess | null = null;
  const uiPort = clusterOptions.headless ? null : conventional ? CONVENTIONAL_UI_PORT : await freePort(ip);
  const kill = async (child: ChildProcess | null | undefined, signal: NodeJS.Signals) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* gone */
    }
    const timer =
      signal === 'SIGKILL'
        ? null
        : setTimeout(() => {
            try {
              process.kill(-child.pid!, 'SIGKILL');
            } catch {
              /* gone */
            }
          }, 20_000);
    await exited;
    if (timer) clearTimeout(timer);
  };
  const killAllNow = () => {
    for (const c of [...children.values(), ui])
      if (c?.pid)
        try {
          process.kill(-c.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
  };
  process.once('exit', killAllNow);
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // All at once (each gets SIGTERM, then SIGKILL after 20 s): one by one, history hosts handing
      // their shards to each other in turn would take a minute. Until they are gone, this
      // process's exit still kills them.
      await Promise.all([ui, ...services.map((s) => children.get(s.name))].map((c) => kill(c, 'SIGTERM')));
      process.removeListener('exit', killAllNow);
    })();
    return stopping;
  };

  /** Starts every service process (frontend first) and waits until the frontend serves the namespace. */
  const startServices = async () => {
    const deadline = Date.now() + 120_000;
    // Each process initialises or updates the cluster's metadata record as it boots (a version-checked
    // write); several at once race for it, on a fresh database and on a restart alike (the loser
    // exits: "SaveClusterMetadata encountered version mismatch"). The frontend goes first; the others
    // once the record exists and the frontend listens (it has written the record by then).
    spawnService(services[0]);
    const frontendGone = () => ended.get(services[0].name) ?? null;
    await waitForClusterMetadata(withDatabase(clusterOptions.postgresUrl, databases.persistence), deadline, frontendGone);
    await waitForPort(ip, services[0].port, deadline, frontendGone);
    for (const s of services.slice(1)) spawnService(s);
    for (const s of services) await waitServing(s, deadline);
  };
  try {
    log(
      `${PREFIX} starting the Temporal cluster ${bin.serverVersion}: ${services.map((s) => s.name).join(', ')} (${CLUSTER_HISTORY_SHARDS} shards; logs ${path.join(clusterOptions.dir, 'logs')})`,
    );
    await startServices();
    if (uiPort !== null) {
      fs.copyFileSync(
        repoFile(path.join('temporal', 'dev', 'cluster', 'ui.template.yaml')),
        path.join(clusterOptions.dir, 'config', 'ui.yaml'),
      );
      const out = fs.openSync(path.join(clusterOptions.dir, 'logs', 'ui-server.log'), 'a');
      ui = spawn(bin.uiServer, ['--root', clusterOptions.dir, '--config', 'config', '--env', 'ui', 'start'], {
        env: {
          ...process.env,
          TEMPORAL_BIND_IP: ip,
          TEMPORAL_UI_PORT: String(uiPort),
          TEMPORAL_UI_FRONTEND_ADDRESS: `${ip}:${frontendPort}`,
        },
        detached: true,
        stdio: ['ignore', out, out],
      });
      fs.closeSync(out);
      await waitForPort(ip, uiPort, Date.now() + 30_000, () => (ui!.exitCode !== null ? 'the UI server exited' : null)).catch((e) =>
        log(
          `${PREFIX} WARNING: the Temporal UI did not come up (${(e as Error).message}); see ${path.join(clusterOptions.dir, 'logs', 'ui-server.log')}`,
        ),
      );
    }
  } catch (e) {
    await stop();
    const failing = services.find((s) => ended.has(s.name)) ?? services[0];
    throw new Error(
      `${PREFIX} the Temporal cluster did not come up: ${(e as Error).message}\n--- ${failing.logFile} ---\n${tailOfFile(failing.logFile, 40)}`,
    );
  }
  log(
    `${PREFIX} Temporal cluster ready in ${formatDuration(Date.now() - started)}: frontend ${ip}:${frontendPort}${uiPort !== null ? `, UI http://${ip}:${uiPort}` : ''}`,
  );
  return {
    kind: 'temporal-cluster',
    address: `${ip}:${frontendPort}`,
    uiUrl: uiPort !== null ? `http://${ip}:${uiPort}` : null,
    namespace,
    serverVersion: bin.serverVersion,
    services,
    databases,
    stopService: async (name, signal = 'SIGTERM') => {
      serviceNamed(name);
      await kill(children.get(name), signal);
    },
    startService: async (name) => {
      const s = serviceNamed(name);
      const c = children.get(name);
      if (c && c.exitCode === null && c.signalCode === null) return;
      spawnService(s);
      await waitServing(s, Date.now() + 120_000);
    },
    restart: async (downMs = 0) => {
      await Promise.all(services.map((s) => kill(children.get(s.name), 'SIGTERM')));
      if (downMs > 0) await sleep(downMs);
      await startServices();
    },
    stop,
  };
}
