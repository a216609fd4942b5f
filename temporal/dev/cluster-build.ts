/**
 * The binaries of the cluster stack (temporal/dev/cluster.ts), built from their Go modules
 * into the same cache as the CLI (PAYMENTS_CACHE_DIR, default ~/.cache/payments-platform), pinned:
 *
 * - `temporal-server` and `temporal-sql-tool`: `go.temporal.io/server` `cmd/server` and
 *   `cmd/tools/sql` at TEMPORAL_SERVER_VERSION (the server the CLI's dev server embeds). The SQL
 *   tool carries the module's `schema/postgresql/v12` embedded (`--schema-name`), so the schema is
 *   the pinned version's own.
 * - `temporal-ui-server`: `github.com/temporalio/ui-server/v2` `cmd/server` at
 *   TEMPORAL_UI_SERVER_VERSION (the UI the CLI embeds; its web assets are embedded in the module).
 *
 * Each lands in `<cache>/temporal-server-<version>/` (`<cache>/temporal-ui-server-<version>/`) with
 * a `.complete` marker written last, under the cache lock, so concurrent starts build once. With
 * the CLI's Go build cache warm the server builds in about 5 minutes here; later starts find it.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  TEMPORAL_SERVER_GO_MODULE,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_SERVER_GO_MODULE,
  TEMPORAL_UI_SERVER_VERSION,
  cacheDir,
} from '../config';
import { type BootstrapLog, PREFIX, defaultLog, findOnPath, formatDuration, goInstall, isExecutableFile, withCacheLock } from './util';

/** Paths of the built cluster binaries. */
export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  uiServer: string;
  serverVersion: string;
  uiVersion: string;
}

/** The `go` toolchain, or a clear error (the cluster's binaries are built from their modules). */
function goBinary(): string {
  const go = [
    findOnPath('go'),
    process.env.GOROOT ? path.join(process.env.GOROOT, 'bin', 'go') : null,
    '/usr/local/go/bin/go',
    '/usr/lib/go/bin/go',
  ].find((c): c is string => c !== null && isExecutableFile(c));
  if (!go)
    throw new Error(`${PREFIX} the cluster stack builds the Temporal server from its Go module and needs Go >= 1.25 ('go' was not found)`);
  return go;
}

/**
 * Builds (once) `packages` of `module@version` with `go install` into `dir`, renaming each main
 * package's binary (named after its last path element) as `names` says. Resolves when `dir` holds
 * them all; throws with the build log's tail when the build fails.
 */
async function goInstallInto(o: {
  dir: string;
  module: string;
  version: string;
  packages: Record<string, string>;
  log: BootstrapLog;
  what: string;
}): Promise<void> {
  const marker = path.join(o.dir, '.complete');
  if (fs.existsSync(marker)) return;
  await withCacheLock(path.basename(o.dir), o.log, async () => {
    if (fs.existsSync(marker)) return;
    const go = goBinary();
    const staging = path.join(o.dir, `.build-${process.pid}`);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    const started = Date.now();
    o.log(`${PREFIX} building ${o.what} ${o.version} from its Go module (a few minutes the first time)...`);
    try {
      for (const [pkg, name] of Object.entries(o.packages)) {
        // One package per build directory: several main packages are all called `server` here.
        const bin = path.join(staging, name);
        fs.mkdirSync(bin, { recursive: true });
        await goInstall({
          go,
          target: `${o.module}/${pkg}@${o.version}`,
          gobin: bin,
          log: o.log,
          what: `building ${o.what} (${pkg})`,
          logFile: path.join(cacheDir(), 'logs', `${path.basename(o.dir)}-${name}-build.log`),
        });
        const built = path.join(bin, path.basename(pkg));
        fs.renameSync(built, path.join(o.dir, name));
      }
      fs.writeFileSync(marker, `${o.module}@${o.version}\n`);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    o.log(`${PREFIX} built ${o.what} ${o.version} in ${formatDuration(Date.now() - started)}: ${o.dir}`);
  });
}

/**
 * The cluster's binaries (module doc), building what the cache lacks. Progress goes to `log`.
 * Throws when Go is missing or a build fails (with the build log's tail).
 */
export async function ensureClusterBinaries(log: BootstrapLog = defaultLog): Promise<ClusterBinaries> {
  const serverDir = path.join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  const uiDir = path.join(cacheDir(), `temporal-ui-server-${TEMPORAL_UI_SERVER_VERSION}`);
  fs.mkdirSync(serverDir, { recursive: true });
  fs.mkdirSync(uiDir, { recursive: true });
  // The two modules build one after the other: on two cores a parallel build only interleaves them.
  await goInstallInto({
    dir: serverDir,
    module: TEMPORAL_SERVER_GO_MODULE,
    version: TEMPORAL_SERVER_VERSION,
    log,
    what: 'the Temporal server',
    packages: { 'cmd/server': 'temporal-server', 'cmd/tools/sql': 'temporal-sql-tool' },
  });
  await goInstallInto({
    dir: uiDir,
    module: TEMPORAL_UI_SERVER_GO_MODULE,
    version: TEMPORAL_UI_SERVER_VERSION,
    log,
    what: 'the Temporal UI server',
    packages: { 'cmd/server': 'temporal-ui-server' },
  });
  return {
    server: path.join(serverDir, 'temporal-server'),
    sqlTool: path.join(serverDir, 'temporal-sql-tool'),
    uiServer: path.join(uiDir, 'temporal-ui-server'),
    serverVersion: TEMPORAL_SERVER_VERSION,
    uiVersion: TEMPORAL_UI_SERVER_VERSION,
  };
}
