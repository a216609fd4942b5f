/**
 * lib/ports.ts: the ports this repository's servers are started on lie below the kernel's ephemeral
 * range (so no outgoing connection can take one between the probe and the listen), are bindable
 * when handed out, and are never handed out twice by one process.
 */
import fs from 'node:fs';
import net from 'node:net';
import { freePort } from '../../lib/ports';

const ephemeralStart = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('ports lie below the ephemeral range, are distinct, and can be listened on', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 50; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(50);
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(20000);
    expect(p).toBeLessThan(ephemeralStart);
  }
  const srv = net.createServer();
  await new Promise<void>((r, j) => {
    srv.once('error', j);
    srv.listen(ports[0], '127.0.0.1', () => r());
  });
  await new Promise<void>((r) => srv.close(() => r()));
});

test('a port another listener holds is skipped: the pick is probed with a bind', async () => {
  // A port in the range held by a listener of our own (not one freePort handed out), then a pick
  // forced onto it first: freePort must probe, find it taken and pick again.
  const srv = net.createServer();
  let held = 0;
  for (let p = 20000 + Math.floor(Math.random() * 1000); !held; p++) {
    if (
      await new Promise<boolean>((r) => {
        srv.once('error', () => r(false));
        srv.listen(p, '127.0.0.1', () => r(true));
      })
    )
      held = p;
  }
  const random = jest.spyOn(Math, 'random').mockReturnValueOnce((held - 20000 + 0.5) / (ephemeralStart - 20000));
  try {
    const got = await freePort();
    expect(random).toHaveBeenCalledTimes(2);
    expect(got).not.toBe(held);
  } finally {
    random.mockRestore();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
