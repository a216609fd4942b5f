/**
 * Temporal configuration shared by the worker, the API, the dev tooling (temporal/dev/) and the tests.
 *
 * - SEARCH_ATTRIBUTE_*: names every component must agree on (the search attribute names
 *   live in contracts/search-attributes.ts, which the workflow bundle can import).
 * - TEMPORAL_CLI_*: the Temporal CLI (dev server) is built from its Go module at a pinned tag,
 *   because the SDK's own server download needs internet access we do not have.
 * - TEST_SERVER_VERSION: the Java time-skipping test server, resolved from Maven Central with
 *   temporal/dev/pom.xml (keep TEST_SERVER_VERSION in sync with the version pinned there).
 * - cacheDir(): where built binaries and resolved jars live, outside the checkout so CI and later
 *   runs reuse them. Override with PAYMENTS_CACHE_DIR.
 */
import os from 'node:os';
import path from 'node:path';

/** Custom search attributes of the workflows: AccountId, RequestId (Keyword), Parked (Bool). */
export { SEARCH_ATTRIBUTE_ACCOUNT, SEARCH_ATTRIBUTE_PARKED, SEARCH_ATTRIBUTE_REQUEST } from '../contracts/search-attributes';

/** Default namespace used by the dev server and clients. */
export const TEMPORAL_NAMESPACE = 'default';

/** Temporal CLI tag; later tags cannot be built with a plain `go install`. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** Go package path of the CLI's main package. */
export const TEMPORAL_CLI_GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';

/**
 * The Temporal server of the cluster stack (temporal/dev/cluster.ts): its Go module and version,
 * equal to the server the CLI's dev server embeds (TEMPORAL_CLI_VERSION v1.5.1 embeds v1.29.1), so
 * the dev server and the cluster run the same server code and schema.
 */
export const TEMPORAL_SERVER_GO_MODULE = 'go.temporal.io/server';
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
/** The Temporal UI server of the cluster stack: the version the CLI v1.5.1 embeds. */
export const TEMPORAL_UI_SERVER_GO_MODULE = 'github.com/temporalio/ui-server/v2';
export const TEMPORAL_UI_SERVER_VERSION = 'v2.42.1';

/** Version of the Java test server (the artifact pinned in temporal/dev/pom.xml). */
export const TEST_SERVER_VERSION = '1.38.0';

/** Cache root for binaries and jars: $PAYMENTS_CACHE_DIR or ~/.cache/payments-platform. */
export function cacheDir(): string {
  const fromEnv = process.env.PAYMENTS_CACHE_DIR;
  return fromEnv && fromEnv.trim() !== '' ? path.resolve(fromEnv) : path.join(os.homedir(), '.cache', 'payments-platform');
}

/**
 * Longest interval between an activity's heartbeats reaching the server, ms (WorkerOptions
 * `maxHeartbeatThrottleInterval`, set on every worker). The SDK's default throttle is 80% of the
 * heartbeat timeout: 8 s of a webhook drain's 10 s, which left 2 s of slack on a loaded machine;
 * a drain that missed it was retried while it still ran (decision 0086). At 2 s the server hears
 * from a live drain five times per timeout.
 */
export const HEARTBEAT_THROTTLE_MS = 2_000;
