/**
 * The most used client generator against this build's document: OpenAPI Generator's
 * `typescript-fetch` client, generated from the document of this build and compiled under
 * `tsc --strict`. A document that the generator cannot turn into a compiling client fails here
 * (and so CI, .ci/run), not in a merchant's project.
 *
 * - The generator: `org.openapitools:openapi-generator-cli` (a self-contained jar) at the pinned
 *   OPENAPI_GENERATOR_VERSION, resolved from Maven Central with clients/openapi-generator/pom.xml
 *   (`mvn dependency:copy`) into `<cache>/openapi-generator-cli-<version>/` (cache =
 *   PAYMENTS_CACHE_DIR, default ~/.cache/payments-platform, shared with the Temporal servers).
 *   Resolved once per machine; later runs use the cached jar and need no network.
 *   OPENAPI_GENERATOR_VERSION=<x.y.z> tries another release (cached beside the pinned one);
 *   OPENAPI_GENERATOR_JAR=<path> uses that jar as it is.
 * - What is generated: everything but the webhooks (GENERATE_OPTIONS, below).
 * - The document: `node dist/api/openapi-cli.js --tmp` (the build's own document; `npm run build`
 *   first), or the file or URL given as the first argument / OPENAPI_SOURCE.
 * - The client: examples/generated/openapi-generator/ (gitignored, rewritten on each run), compiled
 *   with clients/openapi-generator/tsconfig.json (`strict: true`, no emit).
 *
 * `npm run client:generate:openapi-generator`; exits 1 with the compiler's errors when the client
 * does not compile. Needs Java (>= 11) and, on the first run of a machine, Maven (`mvn`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../temporal/config';
import { findJava, findMaven, formatDuration, repoFile, tailOfFile, withCacheLock } from '../temporal/dev/util';

/** The pinned generator release (Maven Central); keep clients/openapi-generator/pom.xml's default in sync. */
export const OPENAPI_GENERATOR_VERSION = '7.17.0';
/** The generator of the client (`-g`). */
export const GENERATOR = 'typescript-fetch';

/**
 * Everything but the webhooks (`--global-property` naming apis, models and supporting files leaves
 * `webhooks` out): typescript-fetch writes each webhook as a client call whose model imports it
 * leaves unnamed (`import { , , }`: the generator's webhook path skips the post-processing that
 * names them; 7.17 to 7.25 alike), so no document with typed webhooks compiles with it. The
 * webhooks' payload models are still generated and compiled (docs/decisions/0065-client-generator-compiles-our-document.md).
 */
export const GENERATE_OPTIONS = ['--global-property', 'apis=,models=,supportingFiles='];

const PREFIX = '[openapi-generator]';
const log = (m: string) => process.stderr.write(`${PREFIX} ${m}\n`);

function version(): string {
  const v = process.env.OPENAPI_GENERATOR_VERSION?.trim();
  return v ? v : OPENAPI_GENERATOR_VERSION;
}

/** The checkout root (the directory holding clients/openapi-generator/; from dist/scripts too). */
function root(): string {
  return path.resolve(path.dirname(repoFile(path.join('clients', 'openapi-generator', 'pom.xml'))), '..', '..');
}

/** Where the pinned jar is cached: `<cache>/openapi-generator-cli-<version>/openapi-generator-cli.jar`. */
export function generatorCacheDir(value = version()): string {
  return path.join(cacheDir(), `openapi-generator-cli-${value}`);
}

/** Runs `cmd` with its output appended to `logFile`; throws with the log's last lines when it fails. */
function runToLog(cmd: string, args: string[], logFile: string, what: string, cwd?: string): void {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, 'a');
  fs.writeSync(out, `\n$ ${cmd} ${args.join(' ')}   # ${new Date().toISOString()}\n`);
  try {
    const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', out, out], timeout: 10 * 60_000 });
    if (r.status !== 0) {
      throw new Error(
        `${what} failed (${r.error ? r.error.message : (r.signal ?? `exit ${r.status}`)}); last lines of ${logFile}:\n${tailOfFile(logFile, 40)}`,
      );
    }
  } finally {
    fs.closeSync(out);
  }
}

/**
 * The path of the generator jar: $OPENAPI_GENERATOR_JAR, else the cached jar of the pinned
 * version, else resolves it from Maven Central into the cache (once per machine).
 */
export async function ensureGeneratorJar(): Promise<string> {
  const fromEnv = process.env.OPENAPI_GENERATOR_JAR;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`OPENAPI_GENERATOR_JAR=${fromEnv} does not exist`);
    return fromEnv;
  }
  const v = version();
  const dir = generatorCacheDir(v);
  const jar = path.join(dir, 'openapi-generator-cli.jar');
  const marker = path.join(dir, '.complete');
  if (fs.existsSync(marker) && fs.existsSync(jar)) return jar;
  const mvn = findMaven();
  if (!mvn) {
    throw new Error(
      `${jar} is not cached and Maven ('mvn') was not found to resolve org.openapitools:openapi-generator-cli:${v}: install Maven or set OPENAPI_GENERATOR_JAR`,
    );
  }
  return withCacheLock(`openapi-generator-cli-${v}`, log, async () => {
    if (fs.existsSync(marker) && fs.existsSync(jar)) return jar; // resolved by another process meanwhile
    const staging = path.join(cacheDir(), `.openapi-generator-cli-${v}-${process.pid}`);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    const pom = repoFile(path.join('clients', 'openapi-generator', 'pom.xml'));
    const started = Date.now();
    log(`resolving org.openapitools:openapi-generator-cli:${v} from Maven Central into ${dir} (once per machine)...`);
    try {
      runToLog(
        mvn,
        [
          '-B',
          '--no-transfer-progress',
          '-Dstyle.color=never',
          '-f',
          pom,
          `-Dgenerator.lib.dir=${staging}`,
          `-Dopenapi-generator.version=${v}`,
          'dependency:copy',
        ],
        path.join(cacheDir(), 'logs', 'openapi-generator-resolve.log'),
        'resolving the generator with Maven',
        path.dirname(pom),
      );
      if (!fs.existsSync(path.join(staging, 'openapi-generator-cli.jar')))
        throw new Error(`Maven finished but ${staging} has no openapi-generator-cli.jar`);
      fs.writeFileSync(path.join(staging, '.complete'), `${v}\n`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\nCheck Maven Central access (~/.m2/settings.xml mirrors/proxies) or set OPENAPI_GENERATOR_JAR.`,
      );
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    log(`resolved in ${formatDuration(Date.now() - started)}: ${jar}`);
    return jar;
  });
}

/** Writes this build's document to a temp file (dist/api/openapi-cli.js --tmp); returns its path. */
function documentOfThisBuild(base: string): string {
  const cli = path.join(base, 'dist', 'api', 'openapi-cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const r = spawnSync(process.execPath, [cli, '--tmp'], { encoding: 'utf8', timeout: 2 * 60_000 });
  if (r.status !== 0) throw new Error(`writing the document failed: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
}

/** Generates the client from `source` into `out` (emptied first); returns the number of models. */
export function generateClient(jar: string, source: string, out: string): number {
  const java = findJava();
  if (!java) throw new Error('the generator needs a Java runtime (>= 11): set JAVA_HOME or put java on PATH');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const logFile = path.join(cacheDir(), 'logs', 'openapi-generator-generate.log');
  fs.rmSync(logFile, { force: true });
  runToLog(
    java,
    ['-jar', jar, 'generate', '-g', GENERATOR, '-i', source, '-o', out, ...GENERATE_OPTIONS],
    logFile,
    `generating the ${GENERATOR} client`,
  );
  const models = path.join(out, 'models');
  return fs.existsSync(models) ? fs.readdirSync(models).filter((f) => f.endsWith('.ts') && f !== 'index.ts').length : 0;
}

/** Compiles the generated client under `tsc --strict` (clients/openapi-generator/tsconfig.json); returns the compiler's output. */
export function compileClient(base: string): { ok: boolean; output: string } {
  const tsc = path.join(base, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', path.join(base, 'clients', 'openapi-generator', 'tsconfig.json'), '--pretty', 'false'], {
    cwd: base,
    encoding: 'utf8',
    timeout: 5 * 60_000,
  });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim() };
}

async function main(): Promise<void> {
  const base = root();
  const started = Date.now();
  const jar = await ensureGeneratorJar();
  const given = process.argv[2] ?? process.env.OPENAPI_SOURCE;
  const source = given ?? documentOfThisBuild(base);
  const out = path.join(base, 'examples', 'generated', 'openapi-generator');
  try {
    const models = generateClient(jar, source, out);
    log(
      `${GENERATOR} client of ${given ?? "this build's document"} (generator ${process.env.OPENAPI_GENERATOR_JAR ? jar : version()}): ${models} models in ${path.relative(base, out)}/`,
    );
  } finally {
    if (!given) fs.rmSync(path.dirname(source), { recursive: true, force: true });
  }
  const { ok, output } = compileClient(base);
  const errors = (output.match(/error TS\d+/g) ?? []).length;
  if (!ok) {
    process.stderr.write(`${output}\n`);
    throw new Error(
      `the generated client does not compile under tsc --strict: ${errors} error(s) (clients/openapi-generator/tsconfig.json)`,
    );
  }
  log(`tsc --strict: 0 errors (${formatDuration(Date.now() - started)})`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    log(`ERROR: ${(e as Error).message}`);
    process.exit(1);
  });
}
