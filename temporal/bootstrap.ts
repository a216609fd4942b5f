/**
 * Locates, builds and starts the Temporal servers used in development and tests, without the
 * SDK's own server download (which needs general internet access).
 *
 * - Dev server: the Temporal CLI (`temporal server start-dev`), built from its Go module at
 *   TEMPORAL_CLI_VERSION with `go install` into the cache.
 * - Time-skipping test server: the Java test server from Maven Central, resolved with
 *   temporal/pom.xml into the cache and started through the wrapper temporal/test-server.sh
 *   (copied next to the jars), which TestWorkflowEnvironment.createTimeSkipping runs as an
 *   'existing-path' executable with arguments `<port> [extraArgs...]`.
 *
 * Resolution order for both: explicit env path (TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH),
 * then PATH (`temporal` / `temporal-test-server`), then the cache (PAYMENTS_CACHE_DIR, default
 * ~/.cache/payments-platform), then build/resolve into the cache, then a clear error.
 * Progress goes to the `log` callback (stderr by default).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import {
  SEARCH_ATTRIBUTE_ACCOUNT,
  TEMPORAL_CLI_GO_PACKAGE,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_NAMESPACE,
  TEST_SERVER_VERSION,
  cacheDir,
} from './config';

/** Progress/warning sink. */
export type BootstrapLog = (msg: string) => void;

/** Options for startDevServer. */
export interface DevServerOptions {
  /** SQLite file for persistence; in-memory when omitted. Ignored (with a warning) by the Java fallback. */
  dbFile?: string;
  /**
   * With `dbFile`: `durable` (default) keeps SQLite's NORMAL sync (safe across crashes of the
   * server, WAL); `throwaway` turns syncing off (test and benchmark stacks whose file is deleted).
   */
  dbDurability?: 'durable' | 'throwaway';
  /** gRPC frontend port; a free port is picked when omitted. */
  port?: number;
  /** Web UI port; a free port is picked when omitted; `null` disables the UI (same as headless). */
  uiPort?: number | null;
  /** Disable the Web UI. */
  headless?: boolean;
  /** Namespace created at startup (default "default"). */
  namespace?: string;
  /** IP to bind (default 127.0.0.1). */
  ip?: string;
  /** Server log level passed to the CLI (default "warn"). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'never';
  /** Forward the server's stdout/stderr lines to `log` (default false; kept for error reports either way). */
  forwardOutput?: boolean;
  /** How long to wait for the server to accept requests (default 60 s). */
  startTimeoutMs?: number;
  /** Extra arguments appended to `temporal server start-dev`. */
  extraArgs?: string[];
  log?: BootstrapLog;
}

/** A running dev server (or the Java test server standing in for it). */
export interface DevServerHandle {
  /** gRPC address, host:port. */
  address: string;
  /** Web UI URL, or null when headless / Java fallback. */
  uiUrl: string | null;
  /** Namespace created at startup. */
  namespace: string;
  /** Which server is running. */
  kind: 'temporal-cli' | 'java-test-server';
  /** PID of the server process (also its process group id). */
  pid: number;
  /** Kill the server's process group and wait for it to exit. Idempotent. */
  stop(): Promise<void>;
}

const PREFIX = '[temporal]';
const defaultLog: BootstrapLog = (msg) => process.stderr.write(`${msg}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Small filesystem / process helpers
// ---------------------------------------------------------------------------------------------

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** First executable called `name` on PATH, or null. */
function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Walks up from this module to the checkout root (the directory holding temporal/pom.xml). */
function repoFile(rel: string): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i += 1) {
    const candidate = path.join(dir, rel);
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`${PREFIX} cannot find ${rel} above ${__dirname}; is the checkout complete?`);
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tailOfFile(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Cross-process lock (a directory under <cache>/locks) so parallel jest workers or CI jobs on
 * one machine do not build/resolve into the same place at once. Stale locks (dead owner) are
 * taken over.
 */
async function withCacheLock<T>(name: string, log: BootstrapLog, fn: () => Promise<T>): Promise<T> {
  const lockDir = path.join(cacheDir(), 'locks', `${name}.lock`);
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const started = Date.now();
  let lastNotice = 0;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = NaN;
      try {
        owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
      } catch {
        // Owner is between mkdir and writing its pid; give it a moment unless the lock is old.
        const st = fs.statSync(lockDir, { throwIfNoEntry: false });
        if (!st) continue; // released meanwhile
        if (Date.now() - st.mtimeMs < 10_000) {
          await sleep(500);
          continue;
        }
      }
      if (!Number.isInteger(owner) || owner === process.pid || !isPidAlive(owner)) {
        log(`${PREFIX} removing stale lock ${lockDir}`);
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - lastNotice >= 30_000) {
        log(`${PREFIX} waiting for another process (pid ${owner}) holding ${lockDir} ` +
          `(${formatDuration(Date.now() - started)} so far)...`);
        lastNotice = Date.now();
      }
      await sleep(1000);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Runs a command with output appended to `logFile`, printing a heartbeat line every 30 s. */
function runLogged(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string; log: BootstrapLog; what: string },
): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
    const out = fs.openSync(opts.logFile, 'a');
    fs.writeSync(out, `\n$ ${cmd} ${args.join(' ')}   # ${new Date().toISOString()}\n`);
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', out, out] });
    const timer = setInterval(() => {
      opts.log(`${PREFIX} ... still ${opts.what} (${formatDuration(Date.now() - started)} elapsed; log: ${opts.logFile})`);
    }, 30_000);
    const finish = (err?: Error) => {
      clearInterval(timer);
      fs.closeSync(out);
      if (err) reject(err);
      else resolve();
    };
    child.on('error', (err) => finish(err));
    child.on('exit', (code, signal) => {
      if (code === 0) finish();
      else {
        finish(new Error(`${cmd} exited with ${signal ?? `code ${code}`} while ${opts.what}; ` +
          `last lines of ${opts.logFile}:\n${tailOfFile(opts.logFile)}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Temporal CLI (dev server)
// ---------------------------------------------------------------------------------------------

/** Where the cached CLI lives: <cache>/bin/temporal. */
export function cachedCliPath(): string {
  return path.join(cacheDir(), 'bin', 'temporal');
}

function findGo(): string | null {
  const candidates = [
    findOnPath('go'),
    process.env.GOROOT ? path.join(process.env.GOROOT, 'bin', 'go') : null,
    '/usr/local/go/bin/go',
    '/usr/lib/go/bin/go',
  ];
  return candidates.find((c): c is string => c !== null && isExecutableFile(c)) ?? null;
}

/**
 * Module version the binary was built from, via `go version -m` (the CLI itself reports
 * 0.0.0-DEV when built with go install). Null if unknown.
 */
function builtCliVersion(binary: string, go: string | null): string | null {
  const stamp = `${binary}.version`;
  try {
    const st = fs.statSync(stamp);
    if (st.mtimeMs >= fs.statSync(binary).mtimeMs) return fs.readFileSync(stamp, 'utf8').trim();
  } catch {
    // no stamp yet
  }
  if (!go) return null;
  const res = spawnSync(go, ['version', '-m', binary], { encoding: 'utf8', timeout: 30_000 });
  const match = /^\s*mod\s+github\.com\/temporalio\/cli\s+(\S+)/m.exec(res.stdout ?? '');
  if (!match) return null;
  try {
    fs.writeFileSync(stamp, `${match[1]}\n`);
  } catch {
    // read-only cache is fine
  }
  return match[1];
}

/**
 * Returns the path of a Temporal CLI binary: $TEMPORAL_CLI_PATH, else `temporal` on PATH, else the
 * cached build, else builds TEMPORAL_CLI_VERSION from its Go module into the cache (a few minutes).
 * Throws a descriptive error when none of these works.
 */
export async function ensureTemporalCli(log: BootstrapLog = defaultLog): Promise<string> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`${PREFIX} TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
    }
    return fromEnv;
  }
  const onPath = findOnPath('temporal');
  if (onPath) return onPath;

  const target = cachedCliPath();
  const go = findGo();
  const cachedOk = (): boolean => {
    if (!isExecutableFile(target)) return false;
    const version = builtCliVersion(target, go);
    if (version === null || version === TEMPORAL_CLI_VERSION) return true;
    log(`${PREFIX} cached Temporal CLI ${target} is ${version}, want ${TEMPORAL_CLI_VERSION}; rebuilding`);
    return false;
  };
  if (cachedOk()) return target;

  if (!go) {
    throw new Error(
      `${PREFIX} Temporal CLI not found: TEMPORAL_CLI_PATH is unset, 'temporal' is not on PATH, ` +
      `${target} does not exist, and no Go toolchain was found to build it ` +
      `(go install ${TEMPORAL_CLI_GO_PACKAGE}@${TEMPORAL_CLI_VERSION}). Install Go >= 1.25 (its go.mod needs 1.25) or point ` +
      `TEMPORAL_CLI_PATH at a CLI binary. (The SDK's own server download needs internet access.)`,
    );
  }

  return withCacheLock('temporal-cli', log, async () => {
    if (cachedOk()) return target; // built by another process while we waited
    const binDir = path.dirname(target);
    const stagingDir = path.join(binDir, `.build-${process.pid}`);
    fs.rmSync(stagingDir, { recursive: true, force: true });
    fs.mkdirSync(stagingDir, { recursive: true });
    const logFile = path.join(cacheDir(), 'logs', 'temporal-cli-build.log');
    const started = Date.now();
    log(`${PREFIX} building Temporal CLI ${TEMPORAL_CLI_VERSION} from its Go module (takes a few minutes)...`);
    try {
      await runLogged(go, ['install', `${TEMPORAL_CLI_GO_PACKAGE}@${TEMPORAL_CLI_VERSION}`], {
        env: { ...process.env, GOBIN: stagingDir, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
        cwd: cacheDir(),
        logFile,
        log,
        what: `building Temporal CLI ${TEMPORAL_CLI_VERSION}`,
      });
      fs.renameSync(path.join(stagingDir, 'temporal'), target);
      fs.writeFileSync(`${target}.version`, `${TEMPORAL_CLI_VERSION}\n`);
    } catch (err) {
      throw new Error(
        `${PREFIX} building the Temporal CLI failed: ${(err as Error).message}\n` +
        `Set TEMPORAL_CLI_PATH to an existing binary, or check Go module proxy access (GOPROXY).`,
      );
    } finally {
      fs.rmSync(stagingDir, { recursive: true, force: true });
    }
    log(`${PREFIX} built Temporal CLI ${TEMPORAL_CLI_VERSION} in ${formatDuration(Date.now() - started)}: ${target}`);
    return target;
  });
}

// ---------------------------------------------------------------------------------------------
// Java test server (time skipping)
// ---------------------------------------------------------------------------------------------

/** Directory holding the cached wrapper script and lib/ for the pinned test server version. */
export function testServerCacheDir(): string {
  return path.join(cacheDir(), `temporal-test-server-${TEST_SERVER_VERSION}`);
}

function findJava(): string | null {
  const home = process.env.JAVA_HOME;
  if (home && isExecutableFile(path.join(home, 'bin', 'java'))) return path.join(home, 'bin', 'java');
  return findOnPath('java');
}

function findMaven(): string | null {
  for (const home of [process.env.MAVEN_HOME, process.env.M2_HOME]) {
    if (home && isExecutableFile(path.join(home, 'bin', 'mvn'))) return path.join(home, 'bin', 'mvn');
  }
  return findOnPath('mvn');
}

/** Copies temporal/test-server.sh into the cache dir (refreshing it if the checkout's copy changed). */
function installWrapper(dir: string): string {
  const source = fs.readFileSync(repoFile(path.join('temporal', 'test-server.sh')), 'utf8');
  const target = path.join(dir, 'temporal-test-server');
  let current: string | null = null;
  try {
    current = fs.readFileSync(target, 'utf8');
  } catch {
    // not installed yet
  }
  if (current !== source) {
    const tmp = `${target}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, source, { mode: 0o755 });
    fs.renameSync(tmp, target);
  }
  fs.chmodSync(target, 0o755);
  return target;
}

/**
 * Returns the path of an executable that starts the Java time-skipping test server with arguments
 * `<port> [--enable-time-skipping]` (as TestWorkflowEnvironment's 'existing-path' executable):
 * $TEMPORAL_TEST_SERVER_PATH, else `temporal-test-server` on PATH, else the cached wrapper, else
 * resolves io.temporal:temporal-test-server with Maven (temporal/pom.xml) into the cache.
 */
export async function ensureTestServer(log: BootstrapLog = defaultLog): Promise<string> {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`${PREFIX} TEMPORAL_TEST_SERVER_PATH=${fromEnv} is not an executable file`);
    }
    return fromEnv;
  }
  const onPath = findOnPath('temporal-test-server');
  if (onPath) return onPath;

  const dir = testServerCacheDir();
  const libDir = path.join(dir, 'lib');
  const marker = path.join(libDir, '.complete');
  if (!findJava()) {
    throw new Error(
      `${PREFIX} the Java test server needs a Java runtime (>= 11): set JAVA_HOME or put 'java' on PATH, ` +
      `or set TEMPORAL_TEST_SERVER_PATH to a test server executable.`,
    );
  }
  if (fs.existsSync(marker)) return installWrapper(dir);

  const mvn = findMaven();
  if (!mvn) {
    throw new Error(
      `${PREFIX} Temporal test server not found: TEMPORAL_TEST_SERVER_PATH is unset, ` +
      `'temporal-test-server' is not on PATH, ${libDir} is not populated, and Maven ('mvn') was not ` +
      `found to resolve io.temporal:temporal-test-server:${TEST_SERVER_VERSION}. Install Maven or ` +
      `set TEMPORAL_TEST_SERVER_PATH. (The SDK's own server download needs internet access.)`,
    );
  }

  return withCacheLock(`temporal-test-server-${TEST_SERVER_VERSION}`, log, async () => {
    if (fs.existsSync(marker)) return installWrapper(dir);
    const staging = path.join(dir, `.lib-${process.pid}`);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    const pom = repoFile(path.join('temporal', 'pom.xml'));
    const logFile = path.join(cacheDir(), 'logs', 'temporal-test-server-resolve.log');
    const started = Date.now();
    log(`${PREFIX} resolving Java test server io.temporal:temporal-test-server:${TEST_SERVER_VERSION} ` +
      `with Maven into ${libDir} (first run downloads ~40 jars)...`);
    try {
      await runLogged(mvn, [
        '-B', '--no-transfer-progress', '-Dstyle.color=never',
        '-f', pom,
        `-Dtestserver.lib.dir=${staging}`,
        `-Dtemporal.test-server.version=${TEST_SERVER_VERSION}`,
        'dependency:copy-dependencies',
      ], { cwd: path.dirname(pom), logFile, log, what: 'resolving the Java test server with Maven' });
      const jars = fs.readdirSync(staging).filter((f) => f.endsWith('.jar'));
      if (!jars.some((f) => f.startsWith('temporal-test-server-'))) {
        throw new Error(`Maven finished but ${staging} has no temporal-test-server jar`);
      }
      fs.writeFileSync(path.join(staging, '.complete'), `${jars.length} jars\n`);
      fs.rmSync(libDir, { recursive: true, force: true });
      fs.renameSync(staging, libDir);
    } catch (err) {
      throw new Error(
        `${PREFIX} resolving the Java test server failed: ${(err as Error).message}\n` +
        `Check Maven Central access (~/.m2/settings.xml mirrors/proxies) or set TEMPORAL_TEST_SERVER_PATH.`,
      );
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    log(`${PREFIX} resolved Java test server in ${formatDuration(Date.now() - started)}: ${libDir}`);
    return installWrapper(dir);
  });
}

// ---------------------------------------------------------------------------------------------
// Dev server
// ---------------------------------------------------------------------------------------------

/** Asks the OS for a free TCP port by binding port 0. */
export function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function tcpProbe(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

function httpStatus(url: string, timeoutMs = 3000): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

function isGrpcCode(err: unknown, code: number): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
const GRPC_ALREADY_EXISTS = 6;
const INDEXED_VALUE_TYPE_KEYWORD = 2;

/**
 * Registers AccountId (Keyword) through the Operator API; existing registrations are fine.
 * The CLI dev server gets it from `--search-attribute` already; the Java test server (time-skipping
 * environment or dev fallback) needs this call because it has no such flag.
 */
export async function registerSearchAttributes(connection: Connection, namespace = TEMPORAL_NAMESPACE): Promise<void> {
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { [SEARCH_ATTRIBUTE_ACCOUNT]: INDEXED_VALUE_TYPE_KEYWORD },
    });
  } catch (err) {
    if (!isGrpcCode(err, GRPC_ALREADY_EXISTS)) throw err;
  }
}

/** Keeps the last lines of a child's output for error reports (and drains the pipe). */
function captureOutput(child: ChildProcess, forward: BootstrapLog | null, tag: string): () => string {
  const lines: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 200) lines.shift();
      forward?.(`${tag} ${line}`);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return () => lines.slice(-40).join('\n');
}

/**
 * Starts a local Temporal dev server (`temporal server start-dev`, in-memory unless dbFile is given)
 * with AccountId registered as a Keyword search attribute, picking free ports when none are given.
 * Resolves once the frontend answers getSystemInfo and the namespace and search attribute are visible.
 * If the CLI cannot be found or built, falls back (with a loud warning) to the Java test server with
 * time skipping off — no UI, no persistence.
 */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServerHandle> {
  const log = opts.log ?? defaultLog;
  const ip = opts.ip ?? '127.0.0.1';
  const namespace = opts.namespace ?? TEMPORAL_NAMESPACE;
  const headless = opts.headless === true || opts.uiPort === null;

  let cli: string | null = null;
  let cliError: unknown = null;
  try {
    cli = await ensureTemporalCli(log);
  } catch (err) {
    cliError = err;
  }

  const port = opts.port ?? (await getFreePort(ip));
  const address = `${ip}:${port}`;
  let child: ChildProcess;
  let kind: DevServerHandle['kind'];
  let uiUrl: string | null = null;

  if (cli) {
    kind = 'temporal-cli';
    const uiPort = headless ? null : opts.uiPort ?? (await getFreePort(ip));
    const args = [
      'server', 'start-dev',
      '--ip', ip,
      '--port', String(port),
      '--namespace', namespace,
      '--log-level', opts.logLevel ?? 'warn',
      '--search-attribute', `${SEARCH_ATTRIBUTE_ACCOUNT}=Keyword`,
      // No outbound version check: this environment has no general internet access.
      '--dynamic-config-value', 'frontend.enableServerVersionCheck=false',
      // One worker fleet per task queue here: a single partition lets every task sync-match a
      // waiting poller instead of being forwarded between partitions (the multi-partition default
      // suits large fleets), and eager start hands a new workflow's first task to the starting worker.
      '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
      '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
      '--dynamic-config-value', 'system.enableEagerWorkflowStart=true',
    ];
    if (opts.dbFile) {
      fs.mkdirSync(path.dirname(path.resolve(opts.dbFile)), { recursive: true });
      args.push('--db-filename', path.resolve(opts.dbFile));
      // WAL lets readers run beside the single writer: about 1.5x the workflow throughput of the
      // default rollback journal or the in-memory database on this machine (bench/webhooks.ts).
      args.push('--sqlite-pragma', 'journal_mode=wal',
        '--sqlite-pragma', `synchronous=${opts.dbDurability === 'throwaway' ? 'off' : 'normal'}`);
    }
    if (uiPort === null) args.push('--headless');
    else {
      args.push('--ui-port', String(uiPort));
      uiUrl = `http://${ip}:${uiPort}`;
    }
    args.push(...(opts.extraArgs ?? []));
    log(`${PREFIX} starting dev server: ${cli} ${args.join(' ')}`);
    child = spawn(cli, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    const banner = '!'.repeat(100);
    log([
      banner,
      `${PREFIX} WARNING: Temporal CLI unavailable (${(cliError as Error)?.message ?? String(cliError)})`,
      `${PREFIX} WARNING: falling back to the Java test server (time skipping OFF) as the dev server:`,
      `${PREFIX} WARNING: NO Web UI, NO persistence${opts.dbFile ? ` (dbFile ${opts.dbFile} ignored)` : ''}, ` +
        'no visibility queries (ListWorkflowExecutions / listSearchAttributes are unimplemented).',
      banner,
    ].join('\n'));
    if (opts.extraArgs?.length) log(`${PREFIX} WARNING: extraArgs ignored by the Java test server`);
    kind = 'java-test-server';
    let wrapper: string;
    try {
      wrapper = await ensureTestServer(log);
    } catch (err) {
      throw new Error(`${PREFIX} no Temporal server available.\n` +
        `Temporal CLI: ${(cliError as Error)?.message ?? String(cliError)}\n` +
        `Java test server fallback: ${(err as Error).message}`);
    }
    child = spawn(wrapper, [String(port)], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  const recentOutput = captureOutput(child, opts.forwardOutput ? log : null, `[temporal:${child.pid}]`);
  // Held in an object so TypeScript does not narrow it to `null` across the callbacks below.
  const state: { exited: { code: number | null; signal: NodeJS.Signals | null } | null } = { exited: null };
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      state.exited = { code, signal };
      resolve();
    });
    child.once('error', (err) => {
      state.exited = state.exited ?? { code: null, signal: null };
      log(`${PREFIX} failed to spawn server: ${err.message}`);
      resolve();
    });
  });
  const pid = child.pid;

  const killGroup = (signal: NodeJS.Signals) => {
    if (pid === undefined || state.exited) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    }
  };
  // Do not leave orphaned servers behind if the caller crashes before stop().
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      if (!state.exited) {
        killGroup('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const graceful = await Promise.race([
          exitPromise.then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), 15_000);
          }),
        ]);
        clearTimeout(timer);
        if (!graceful) {
          killGroup('SIGKILL');
          await exitPromise;
        }
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
    })();
    return stopping;
  };

  try {
    if (pid === undefined) throw new Error('server process did not start');
    await waitUntilReady({
      address, ip, port, namespace, kind, uiUrl,
      timeoutMs: opts.startTimeoutMs ?? 60_000,
      hasExited: () => state.exited !== null,
      log,
    });
  } catch (err) {
    await stop();
    const how = state.exited ? ` (server exited with ${state.exited.signal ?? `code ${state.exited.code}`})` : '';
    throw new Error(`${PREFIX} dev server on ${address} did not become ready${how}: ${(err as Error).message}\n` +
      `--- server output ---\n${recentOutput() || '(none)'}`);
  }

  log(`${PREFIX} dev server ready (${kind}, pid ${pid}): ${address}${uiUrl ? `, UI ${uiUrl}` : ''}`);
  return { address, uiUrl, namespace, kind, pid, stop };
}

async function waitUntilReady(args: {
  address: string;
  ip: string;
  port: number;
  namespace: string;
  kind: DevServerHandle['kind'];
  uiUrl: string | null;
  timeoutMs: number;
  hasExited: () => boolean;
  log: BootstrapLog;
}): Promise<void> {
  const deadline = Date.now() + args.timeoutMs;
  let lastError: unknown = null;
  const check = () => {
    if (args.hasExited()) throw new Error('server process exited');
    if (Date.now() > deadline) {
      const last = lastError ? `; last error: ${(lastError as Error).message ?? String(lastError)}` : '';
      throw new Error(`timed out after ${formatDuration(args.timeoutMs)}${last}`);
    }
  };

  // 1. TCP port accepts connections.
  while (!(await tcpProbe(args.ip, args.port))) {
    check();
    await sleep(200);
  }

  // 2. gRPC answers; namespace and search attribute are in place.
  for (;;) {
    check();
    let connection: Connection | null = null;
    try {
      connection = await Connection.connect({ address: args.address, connectTimeout: '5s' });
      await connection.workflowService.getSystemInfo({});
      if (args.kind === 'java-test-server') {
        // No namespace registry and no listSearchAttributes here; register the attribute instead.
        await registerSearchAttributes(connection, args.namespace);
      } else {
        await connection.workflowService.describeNamespace({ namespace: args.namespace });
        const res = await connection.operatorService.listSearchAttributes({ namespace: args.namespace });
        if (!res.customAttributes || !(SEARCH_ATTRIBUTE_ACCOUNT in res.customAttributes)) {
          throw new Error(`search attribute ${SEARCH_ATTRIBUTE_ACCOUNT} not registered yet`);
        }
      }
      break;
    } catch (err) {
      lastError = err;
      await sleep(250);
    } finally {
      await connection?.close().catch(() => undefined);
    }
  }

  // 3. Web UI serves its page (non-fatal: the gRPC server is what tests need).
  if (args.uiUrl) {
    const uiDeadline = Math.min(deadline, Date.now() + 20_000);
    let status: number | null = null;
    while (Date.now() < uiDeadline) {
      status = await httpStatus(`${args.uiUrl}/`);
      if (status === 200) return;
      await sleep(250);
    }
    args.log(`${PREFIX} WARNING: Web UI at ${args.uiUrl} did not answer 200 (last status ${status ?? 'none'})`);
  }
}
