/**
 * Small filesystem / process helpers of the dev tooling (temporal/dev/): the log sink, executable
 * lookup on PATH, checkout files (found by walking up from this module, so dist/ works too), a
 * cross-process cache lock and a logged child process run.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../config';

/** Progress/warning sink. */
export type BootstrapLog = (msg: string) => void;

/** Prefix of every progress line. */
export const PREFIX = '[temporal]';
/** Default sink: stderr. */
export const defaultLog: BootstrapLog = (msg) => process.stderr.write(`${msg}\n`);
/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Small filesystem / process helpers
// ---------------------------------------------------------------------------------------------

export function isExecutableFile(path: string): boolean {
  try {
    if (!fs.statSync(path).isFile()) return false;
    fs.accessSync(path, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** First executable called `name` on PATH, or null. */
export function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Walks up from this module to the checkout root (the directory holding temporal/dev/pom.xml; from dist/temporal/dev too). */
export function repoFile(rel: string): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i += 1) {
    const candidate = path.join(dir, rel);
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`${PREFIX} cannot find ${rel} above ${__dirname}; is the checkout complete?`);
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function tailOfFile(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Cross-process lock (a directory under <cache>/locks) so parallel jest workers or CI jobs on
 * one machine do not build/resolve into the same place at once. Stale locks (dead owner) are
 * taken over.
 */
export async function withCacheLock<T>(name: string, log: BootstrapLog, fn: () => Promise<T>): Promise<T> {
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
        log(
          `${PREFIX} waiting for another process (pid ${owner}) holding ${lockDir} ` +
            `(${formatDuration(Date.now() - started)} so far)...`,
        );
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

/**
 * Runs a command with output appended to `logFile`, printing a heartbeat line every `everyMs`
 * (default 30 s). `progress`, when given, turns this run's output so far into the heartbeat's
 * progress words (e.g. `goBuildProgress`).
 */
export function runLogged(
  cmd: string,
  args: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    logFile: string;
    log: BootstrapLog;
    what: string;
    everyMs?: number;
    progress?: (output: string) => string;
  },
): Promise<void> {
  return new Promise((resolve, reject) => {
    fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
    const out = fs.openSync(opts.logFile, 'a');
    fs.writeSync(out, `\n$ ${cmd} ${args.join(' ')}   # ${new Date().toISOString()}\n`);
    const from = fs.fstatSync(out).size;
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', out, out] });
    const timer = setInterval(() => {
      let words = '';
      if (opts.progress) {
        try {
          words = `: ${opts.progress(fs.readFileSync(opts.logFile, 'utf8').slice(from))}`;
        } catch {
          /* log unreadable: no words */
        }
      }
      opts.log(`${PREFIX} ... ${opts.what}${words} (${formatDuration(Date.now() - started)} elapsed; log: ${opts.logFile})`);
    }, opts.everyMs ?? 30_000);
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
        finish(
          new Error(
            `${cmd} exited with ${signal ?? `code ${code}`} while ${opts.what}; ` +
              `last lines of ${opts.logFile}:\n${tailOfFile(opts.logFile)}`,
          ),
        );
      }
    });
  });
}

/** The `java` to run: `$JAVA_HOME/bin/java`, else the one on PATH; null when there is none. */
export function findJava(): string | null {
  const home = process.env.JAVA_HOME;
  if (home && isExecutableFile(path.join(home, 'bin', 'java'))) return path.join(home, 'bin', 'java');
  return findOnPath('java');
}

/** The `mvn` to run: `$MAVEN_HOME` or `$M2_HOME` `/bin/mvn`, else the one on PATH; null when there is none. */
export function findMaven(): string | null {
  for (const home of [process.env.MAVEN_HOME, process.env.M2_HOME]) {
    if (home && isExecutableFile(path.join(home, 'bin', 'mvn'))) return path.join(home, 'bin', 'mvn');
  }
  return findOnPath('mvn');
}

/**
 * The progress of a `go install -v` from its output so far: modules downloaded (`go: downloading`
 * lines) and packages compiled (one import path per line); with `expectedPackages` (what the last
 * complete build of the same target compiled), "N of about M". Pure.
 */
export function goBuildProgress(output: string, expectedPackages: number | null): string {
  let downloaded = 0;
  let compiled = 0;
  for (const line of output.split('\n')) {
    if (line.startsWith('go: downloading ')) downloaded += 1;
    else if (/^[a-z0-9][\w.~-]*(\/[\w.~+-]+)*$/i.test(line.trim()) && line.trim().length > 0) compiled += 1;
  }
  if (compiled === 0) return downloaded ? `downloading modules (${downloaded} so far)` : 'resolving modules';
  const of =
    expectedPackages && expectedPackages >= compiled
      ? ` of about ${expectedPackages} (${Math.floor((100 * compiled) / expectedPackages)}%)`
      : '';
  return `${downloaded ? `${downloaded} module${downloaded === 1 ? '' : 's'} downloaded, ` : ''}compiling: ${compiled}${of} packages`;
}

/**
 * `go install -v <target>` into `gobin` with progress every 10 s (`goBuildProgress`), the output
 * appended to `logFile`. The package count of a complete build is kept beside the log
 * (`<logFile>.packages`) so the next cold build can say how far it is. Throws as `runLogged` does.
 */
export async function goInstall(options: {
  go: string;
  target: string;
  gobin: string;
  logFile: string;
  log: BootstrapLog;
  what: string;
  cwd?: string;
}): Promise<void> {
  const countFile = `${options.logFile}.packages`;
  const expected = Number.parseInt(fs.existsSync(countFile) ? fs.readFileSync(countFile, 'utf8') : '', 10);
  const from = fs.existsSync(options.logFile) ? fs.statSync(options.logFile).size : 0;
  await runLogged(options.go, ['install', '-v', options.target], {
    env: { ...process.env, GOBIN: options.gobin, GOFLAGS: process.env.GOFLAGS ?? '-buildvcs=false' },
    cwd: options.cwd ?? cacheDir(),
    logFile: options.logFile,
    log: options.log,
    what: options.what,
    everyMs: 10_000,
    progress: (output) => goBuildProgress(output, Number.isFinite(expected) ? expected : null),
  });
  // A build that compiled more packages than the estimate (a cold one) sets the estimate for the next.
  const compiled = /compiling: (\d+)/.exec(goBuildProgress(fs.readFileSync(options.logFile, 'utf8').slice(from), null))?.[1];
  if (compiled && (!Number.isFinite(expected) || Number(compiled) > expected)) fs.writeFileSync(countFile, `${compiled}\n`);
}
