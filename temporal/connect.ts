/**
 * How this process reaches Temporal: the client configuration of
 * `@temporalio/envconfig`, so a secured cluster (mTLS or an API key, as Temporal Cloud needs) is
 * configured the standard way: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS` (`true` for TLS with the system roots), `TEMPORAL_TLS_CLIENT_CERT_PATH` /
 * `_KEY_PATH` (mTLS), `TEMPORAL_TLS_SERVER_CA_CERT_PATH`, `TEMPORAL_TLS_SERVER_NAME`, or a TOML
 * profile (`TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`). Without any of them: the local dev
 * server at 127.0.0.1:7233, namespace `default`, plaintext.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { loadConfig } from '../lib/config';

/** Connection options (address, TLS, API key, gRPC metadata) and namespace of this process. */
export function temporalConnectConfig(): { connectionOptions: NativeConnectionOptions; namespace: string } {
  const cfg = loadConfig();
  // A TOML file is read only when named (TEMPORAL_CONFIG_FILE): a developer's ~/.config/temporal profile never leaks into tests.
  const loaded = loadClientConnectConfig({ disableFile: !process.env.TEMPORAL_CONFIG_FILE });
  const connectionOptions: NativeConnectionOptions = {
    ...loaded.connectionOptions,
    address: loaded.connectionOptions.address ?? cfg.temporalAddress ?? '127.0.0.1:7233',
  };
  return { connectionOptions, namespace: loaded.namespace ?? cfg.temporalNamespace };
}
