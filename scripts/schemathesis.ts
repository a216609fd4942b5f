/**
 * Contract fuzzing tool bootstrap: schemathesis (from PyPI, pinned) in a virtualenv cached OUTSIDE
 * the checkout, `<cache>/venv-schemathesis-<version>` (cache = PAYMENTS_CACHE_DIR, default
 * ~/.cache/payments-platform, shared with the Temporal binaries), so CI and local runs reuse it.
 * A new pinned version gets a new directory; a half-built venv (no marker file) is rebuilt.
 * Concurrent bootstraps serialise on a lock directory next to it.
 *
 * `node dist/scripts/schemathesis.js` (npm run fuzz:bootstrap) prints `SCHEMATHESIS_PATH=...`;
 * tests/contract/fuzz.test.ts calls `ensureSchemathesis()`. Needs Python 3.9+ with `venv`
 * (3.12+ preferred, see `pickPython`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../temporal/config';

/** The pinned schemathesis release (PyPI). */
export const SCHEMATHESIS_VERSION = '4.32.5';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Directory of the cached virtualenv of the pinned version. */
export function schemathesisVenv(): string {
  return path.join(cacheDir(), `venv-schemathesis-${SCHEMATHESIS_VERSION}`);
}

function run(cmd: string, args: string[], log: (m: string) => void): void {
  log(`[schemathesis] ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 10 * 60_000 });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error ?? '')).slice(-2000)}`,
    );
}

/**
 * The interpreter for the venv: PYTHON when set, else the newest of python3.13, python3.12,
 * python3 that runs. Newer first: CPython 3.11's `ast.parse` is not thread-safe (hypothesis
 * describes lambdas with it), which breaks schemathesis runs with more than one worker.
 */
function pickPython(): string {
  if (process.env.PYTHON) return process.env.PYTHON;
  for (const candidate of ['python3.13', 'python3.12', 'python3']) {
    const r = spawnSync(candidate, ['-c', 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)'], { stdio: 'ignore' });
    if (r.status === 0) return candidate;
  }
  throw new Error('python3 (3.9 or newer, with venv) is required for contract fuzzing');
}

/**
 * Returns the path of the `schemathesis` executable of the pinned version, creating the venv and
 * installing it from PyPI when missing. Throws with pip's output when the install fails.
 */
export async function ensureSchemathesis(log: (m: string) => void = (m) => process.stderr.write(`${m}\n`)): Promise<string> {
  const venv = schemathesisVenv();
  const bin = path.join(venv, 'bin', 'schemathesis');
  const marker = path.join(venv, '.installed');
  if (fs.existsSync(marker) && fs.existsSync(bin)) return bin;
  const locks = path.join(cacheDir(), 'locks');
  fs.mkdirSync(locks, { recursive: true });
  const lock = path.join(locks, `schemathesis-${SCHEMATHESIS_VERSION}.lock`);
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (fs.existsSync(marker)) return bin;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 15 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await sleep(1000);
    }
  }
  try {
    if (fs.existsSync(marker) && fs.existsSync(bin)) return bin;
    fs.rmSync(venv, { recursive: true, force: true });
    const python = pickPython();
    run(python, ['-m', 'venv', venv], log);
    const pip = path.join(venv, 'bin', 'pip');
    run(pip, ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], log);
    fs.writeFileSync(marker, `${SCHEMATHESIS_VERSION}\n`);
    log(`[schemathesis] installed ${SCHEMATHESIS_VERSION} into ${venv}`);
    return bin;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

if (require.main === module) {
  ensureSchemathesis().then(
    (bin) => {
      process.stdout.write(`SCHEMATHESIS_PATH=${bin}\n`);
    },
    (e: unknown) => {
      process.stderr.write(`[schemathesis] ERROR: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}
