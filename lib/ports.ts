/**
 * Free loopback ports for the servers this repository starts itself: embedded PostgreSQL, the
 * Temporal dev server, the product's API and metrics listeners in a stack, test servers that must
 * know their port before they listen (docs/decisions/0088-ports-below-the-ephemeral-range.md).
 *
 * A port the kernel hands out for `listen(0)` comes from the ephemeral range
 * (`net.ipv4.ip_local_port_range`, 32768-60999 on Linux), the same range outgoing connections take
 * their source ports from. Between the probe and the real `listen`, any connection of any process
 * (a pool's new PostgreSQL connection, a gRPC channel) can take that port as its source, and the
 * listener then fails with EADDRINUSE (seen in CI: a chaos stack's API, 2026-11-27). So the port is
 * chosen at random *below* the ephemeral range, where no outgoing connection is ever placed, and
 * probed with a bind before it is returned. A port handed out by this process is not handed out
 * again by it.
 */
import fs from 'node:fs';
import net from 'node:net';

/** Lowest port chosen (above the registered services most machines run: 5432, 7233, 8080...). */
const LOW = 20000;
/** Tries before falling back to an ephemeral port. */
const TRIES = 100;
const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralStart(): number {
  try {
    const lo = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(lo) && lo > LOW + 1000 ? lo : 32768;
  } catch {
    return 32768;
  }
}

/** Whether `port` can be bound on `host` now (the probe's socket is closed before it resolves). */
function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** A port `listen(0)` chose (the fallback when the range below the ephemeral one is exhausted). */
function anyPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port free on `host` (default 127.0.0.1) now, below the kernel's ephemeral range (see
 * module doc); never one this process handed out before. Throws only if binding port 0 fails.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralStart();
  for (let i = 0; i < TRIES; i++) {
    const port = LOW + Math.floor(Math.random() * (high - LOW));
    if (handedOut.has(port) || !(await bindable(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  return anyPort(host);
}
