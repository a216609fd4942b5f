/** The Temporal connection of a process comes from @temporalio/envconfig (temporal/connect.ts; issue 17): API key, mTLS, namespace, the local default. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resetConfig } from '../../lib/config';
import { temporalConnectConfig } from '../../temporal/connect';

const KEYS = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_PROFILE',
];
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetConfig();
});
const setEnv = (vars: Record<string, string>) => {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, vars);
  resetConfig();
};

test('nothing set: the local dev server, plaintext, namespace default', () => {
  setEnv({});
  const c = temporalConnectConfig();
  expect(c.connectionOptions.address).toBe('127.0.0.1:7233');
  expect(c.connectionOptions.tls).toBeFalsy();
  expect(c.namespace).toBe('default');
});

test('an API key (Temporal Cloud): TLS on, the key passed, the namespace from the environment', () => {
  setEnv({ TEMPORAL_ADDRESS: 'acme.a1b2c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'acme.a1b2c', TEMPORAL_API_KEY: 'secret-key' });
  const c = temporalConnectConfig();
  expect(c.connectionOptions).toMatchObject({ address: 'acme.a1b2c.tmprl.cloud:7233', apiKey: 'secret-key' });
  expect(c.connectionOptions.tls).toBeTruthy();
  expect(c.namespace).toBe('acme.a1b2c');
});

test('mTLS from certificate files, and a named TOML profile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-connect-'));
  fs.writeFileSync(path.join(dir, 'client.pem'), 'CERT');
  fs.writeFileSync(path.join(dir, 'client.key'), 'KEY');
  setEnv({
    TEMPORAL_ADDRESS: 'temporal.internal:7233',
    TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem'),
    TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key'),
    TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
  });
  const tls = temporalConnectConfig().connectionOptions.tls as {
    clientCertPair?: { crt: Uint8Array; key: Uint8Array };
    serverNameOverride?: string;
  };
  expect(Buffer.from(tls.clientCertPair!.crt).toString()).toBe('CERT');
  expect(Buffer.from(tls.clientCertPair!.key).toString()).toBe('KEY');
  expect(tls.serverNameOverride).toBe('temporal.internal');
  fs.writeFileSync(path.join(dir, 'temporal.toml'), '[profile.prod]\naddress = "prod.internal:7233"\nnamespace = "payments"\n');
  setEnv({ TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml'), TEMPORAL_PROFILE: 'prod' });
  expect(temporalConnectConfig()).toMatchObject({ connectionOptions: { address: 'prod.internal:7233' }, namespace: 'payments' });
});
