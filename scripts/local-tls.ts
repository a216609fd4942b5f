/**
 * A throwaway self-signed TLS certificate for local webhook receivers (tests and benchmarks):
 * EC P-256, valid one day, a CA certificate that is also the server certificate, with subject
 * alternative names `localhost`, `*.webhooks.example.com` (names tests map to 127.0.0.1 through an
 * injected resolver), 127.0.0.1 and ::1. The product trusts it through WEBHOOKS_EXTRA_CA_FILE.
 * Uses the `selfsigned` package (a development dependency).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface LocalTls {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/** Writes `cert.pem` and `key.pem` (mode 0600) into `dir` (created) and returns them. */
export async function generateLocalTls(dir: string): Promise<LocalTls> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const selfsigned = require('selfsigned') as typeof import('selfsigned');
  const now = Date.now();
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: '*.webhooks.example.com' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  fs.writeFileSync(certFile, pems.cert, { mode: 0o600 });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { certFile, keyFile, cert: pems.cert, key: pems.private };
}
