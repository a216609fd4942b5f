/**
 * Decision 0085: a worker whose METRICS_PORT is still held (the process it replaces in a rolling
 * restart on the same host) keeps running and binds the port once it is free (lib/metrics-server.ts).
 */
import http from 'node:http';
import net from 'node:net';
import { resetConfig } from '../../lib/config';
import { ensureMetricsServer, stopMetricsServer } from '../../lib/metrics-server';

test('a taken metrics port is bound again once free, and then serves /metrics', async () => {
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  const { port } = holder.address() as net.AddressInfo;
  process.env.METRICS_PORT = String(port);
  resetConfig();
  try {
    const s = await ensureMetricsServer();
    expect(s).not.toBeNull();
    expect(s!.listening).toBe(false);
    await new Promise<void>((r) => holder.close(() => r()));
    for (let i = 0; i < 50 && !s!.listening; i++) await new Promise((r) => setTimeout(r, 100));
    expect(s!.listening).toBe(true);
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/metrics`, (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(body).toContain('# TYPE payments_http_requests_total counter');
  } finally {
    await stopMetricsServer();
    delete process.env.METRICS_PORT;
    resetConfig();
  }
});
