/**
 * Locates, builds and resolves the Temporal servers used in development and tests, without the
 * SDK's own server download (which needs general internet access).
 *
 * - Dev server: the Temporal CLI (`temporal server start-dev`), built from its Go module at
 *   TEMPORAL_CLI_VERSION with `go install` into the cache.
 * - Time-skipping test server: the Java test server from Maven Central, resolved with
 *   temporal/dev/pom.xml into the cache and started through the wrapper temporal/dev/test-server.sh
 *   (copied next to the jars), which TestWorkflowEnvironment.createTimeSkipping runs as an
 *   'existing-path' executable with arguments `<port> [extraArgs...]`.
 *
 * Resolution order for both: explicit env path (TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH),
 * then PATH (`temporal` / `temporal-test-server`), then the cache (PAYMENTS_CACHE_DIR, default
 * ~/.cache/payments-platform), then build/resolve into the cache, then a clear error.
 * Progress goes to the `log` callback (stderr by default).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TEMPORAL_CLI_GO_PACKAGE, TEMPORAL_CLI_VERSION, TEST_SERVER_VERSION, cacheDir } from '../config';
import {
  type BootstrapLog,
  PREFIX,
  defaultLog,
  findJava,
  findMaven,
  findOnPath,
  formatDuration,
  goInstall,
  isExecutableFile,
  repoFile,
  runLogged,
  withCacheLock,
} from './util';

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
      await goInstall({
        go,
        target: `${TEMPORAL_CLI_GO_PACKAGE}@${TEMPORAL_CLI_VERSION}`,
        gobin: stagingDir,
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

/** Copies temporal/dev/test-server.sh into the cache dir (refreshing it if the checkout's copy changed). */
function installWrapper(dir: string): string {
  const source = fs.readFileSync(repoFile(path.join('temporal', 'dev', 'test-server.sh')), 'utf8');
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
 * resolves io.temporal:temporal-test-server with Maven (temporal/dev/pom.xml) into the cache.
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
    const pom = repoFile(path.join('temporal', 'dev', 'pom.xml'));
    const logFile = path.join(cacheDir(), 'logs', 'temporal-test-server-resolve.log');
    const started = Date.now();
    log(
      `${PREFIX} resolving Java test server io.temporal:temporal-test-server:${TEST_SERVER_VERSION} ` +
        `with Maven into ${libDir} (first run downloads ~40 jars)...`,
    );
    try {
      await runLogged(
        mvn,
        [
          '-B',
          '--no-transfer-progress',
          '-Dstyle.color=never',
          '-f',
          pom,
          `-Dtestserver.lib.dir=${staging}`,
          `-Dtemporal.test-server.version=${TEST_SERVER_VERSION}`,
          'dependency:copy-dependencies',
        ],
        { cwd: path.dirname(pom), logFile, log, what: 'resolving the Java test server with Maven' },
      );
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
