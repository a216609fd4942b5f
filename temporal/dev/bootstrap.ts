/**
 * Dev tooling for the Temporal servers (not used at runtime; the runtime is temporal/client.ts and
 * temporal/config.ts): resolving / building the binaries (./resolve.ts) and starting the dev server
 * (./servers.ts). `node dist/temporal/dev/cli.js` (npm run temporal:bootstrap) warms the cache.
 */
export { ensureTemporalCli, ensureTestServer } from './resolve';
export { registerSearchAttributes, startDevServer, type DevServerHandle } from './servers';
