/**
 * Starts the Temporal dev server (the CLI's `server start-dev`, or the Java test server standing in
 * for it) for the dev stack, the test stack and the benchmarks, and registers the custom search
 * attributes (AccountId and RequestId Keyword, Parked Bool). The binaries come from ./resolve.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort } from '../../lib/ports';
import { SEARCH_ATTRIBUTE_ACCOUNT, SEARCH_ATTRIBUTE_PARKED, SEARCH_ATTRIBUTE_REQUEST, TEMPORAL_NAMESPACE } from '../config';
import { ensureTemporalCli, ensureTestServer } from './resolve';
import { type BootstrapLog, PREFIX, defaultLog, formatDuration, sleep } from './util';

/** Options for startDevServer. */
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

// ---------------------------------------------------------------------------------------------
// Dev server
// ---------------------------------------------------------------------------------------------

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
const INDEXED_VALUE_TYPE_BOOL = 5;

/** The custom search attributes every server must have (contracts/search-attributes.ts), by index type. */
export const CUSTOM_SEARCH_ATTRIBUTES: Readonly<Record<string, number>> = Object.freeze({
  [SEARCH_ATTRIBUTE_ACCOUNT]: INDEXED_VALUE_TYPE_KEYWORD,
  [SEARCH_ATTRIBUTE_REQUEST]: INDEXED_VALUE_TYPE_KEYWORD,
  [SEARCH_ATTRIBUTE_PARKED]: INDEXED_VALUE_TYPE_BOOL,
});

/**
 * Registers AccountId, RequestId (Keyword) and Parked (Bool) through the Operator API; existing
 * registrations are fine.
 * The CLI dev server gets it from `--search-attribute` already; the Java test server (time-skipping
 * environment or dev fallback) needs this call because it has no such flag.
 */
export async function registerSearchAttributes(connection: Connection, namespace = TEMPORAL_NAMESPACE): Promise<void> {
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { ...CUSTOM_SEARCH_ATTRIBUTES },
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
 * with AccountId, RequestId (Keyword) and Parked (Bool) registered as search attributes, picking free
 * ports when none are given.
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

  const port = opts.port ?? (await freePort(ip));
  const address = `${ip}:${port}`;
  let child: ChildProcess;
  let kind: DevServerHandle['kind'];
  let uiUrl: string | null = null;

  if (cli) {
    kind = 'temporal-cli';
    const uiPort = headless ? null : (opts.uiPort ?? (await freePort(ip)));
    const args = [
      'server',
      'start-dev',
      '--ip',
      ip,
      '--port',
      String(port),
      // Its HTTP API and metrics ports too, below the ephemeral range (lib/ports.ts): the CLI's own
      // pick is an ephemeral port an outgoing connection may take before the server binds it.
      '--http-port',
      String(await freePort(ip)),
      '--metrics-port',
      String(await freePort(ip)),
      '--namespace',
      namespace,
      '--log-level',
      opts.logLevel ?? 'warn',
      '--search-attribute',
      `${SEARCH_ATTRIBUTE_ACCOUNT}=Keyword`,
      '--search-attribute',
      `${SEARCH_ATTRIBUTE_REQUEST}=Keyword`,
      '--search-attribute',
      `${SEARCH_ATTRIBUTE_PARKED}=Bool`,
      // No outbound version check: this environment has no general internet access.
      '--dynamic-config-value',
      'frontend.enableServerVersionCheck=false',
      // One worker fleet per task queue here: a single partition lets every task sync-match a
      // waiting poller instead of being forwarded between partitions (the multi-partition default
      // suits large fleets), and eager start hands a new workflow's first task to the starting worker.
      '--dynamic-config-value',
      'matching.numTaskqueueReadPartitions=1',
      '--dynamic-config-value',
      'matching.numTaskqueueWritePartitions=1',
      '--dynamic-config-value',
      'system.enableEagerWorkflowStart=true',
    ];
    if (opts.dbFile) {
      fs.mkdirSync(path.dirname(path.resolve(opts.dbFile)), { recursive: true });
      args.push('--db-filename', path.resolve(opts.dbFile));
      // WAL lets readers run beside the single writer: about 1.5x the workflow throughput of the
      // default rollback journal or the in-memory database on this machine (bench/webhooks.ts).
      args.push(
        '--sqlite-pragma',
        'journal_mode=wal',
        '--sqlite-pragma',
        `synchronous=${opts.dbDurability === 'throwaway' ? 'off' : 'normal'}`,
      );
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
    log(
      [
        banner,
        `${PREFIX} WARNING: Temporal CLI unavailable (${(cliError as Error)?.message ?? String(cliError)})`,
        `${PREFIX} WARNING: falling back to the Java test server (time skipping OFF) as the dev server:`,
        `${PREFIX} WARNING: NO Web UI, NO persistence${opts.dbFile ? ` (dbFile ${opts.dbFile} ignored)` : ''}, ` +
          'no visibility queries (ListWorkflowExecutions / listSearchAttributes are unimplemented).',
        banner,
      ].join('\n'),
    );
    if (opts.extraArgs?.length) log(`${PREFIX} WARNING: extraArgs ignored by the Java test server`);
    kind = 'java-test-server';
    let wrapper: string;
    try {
      wrapper = await ensureTestServer(log);
    } catch (err) {
      throw new Error(
        `${PREFIX} no Temporal server available.\n` +
          `Temporal CLI: ${(cliError as Error)?.message ?? String(cliError)}\n` +
          `Java test server fallback: ${(err as Error).message}`,
      );
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
      address,
      ip,
      port,
      namespace,
      kind,
      uiUrl,
      timeoutMs: opts.startTimeoutMs ?? 60_000,
      hasExited: () => state.exited !== null,
      log,
    });
  } catch (err) {
    await stop();
    const how = state.exited ? ` (server exited with ${state.exited.signal ?? `code ${state.exited.code}`})` : '';
    throw new Error(
      `${PREFIX} dev server on ${address} did not become ready${how}: ${(err as Error).message}\n` +
        `--- server output ---\n${recentOutput() || '(none)'}`,
    );
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
        const missing = Object.keys(CUSTOM_SEARCH_ATTRIBUTES).filter((name) => !res.customAttributes || !(name in res.customAttributes));
        if (missing.length) throw new Error(`search attributes ${missing.join(', ')} not registered yet`);
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
