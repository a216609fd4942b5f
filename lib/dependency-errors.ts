/**
 * Recognises a dependency that is briefly out: PostgreSQL restarting,
 * refusing or dropping connections, and the Temporal server unreachable. Such a failure is not the
 * request's fault and not a bug: the API answers it `503 temporarily_unavailable` with a
 * `Retry-After` (api/middleware/errors.ts), never a 500, and the pools recover on their own.
 * Pure: reads the error only.
 */
import { DomainError } from '../domain/errors';

/** Seconds a client waits before retrying a request refused for a dependency out (the `Retry-After` header). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 1;

/** PostgreSQL SQLSTATEs of a server going away or not ready: class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now). */
const PG_CODES = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '53300']);
/** Socket errors of a peer that is down or went away. */
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN', 'EAI_AGAIN']);
/** Messages node-postgres and pg-pool use for a lost or unobtainable connection. */
const PG_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
  'Client was closed and is not queryable',
  'the database system is',
];
/**
 * TypeORM's errors for a query on a transaction whose connection was already given back: it gives a
 * connection back when node-postgres reports it lost mid-transaction (PostgreSQL restarted), so the
 * transaction's next statement meets one of these. The transaction is gone with its connection.
 */
const TYPEORM_RELEASED = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);
/** gRPC status codes of a Temporal server that is unreachable or overloaded: UNAVAILABLE (14), DEADLINE_EXCEEDED (4), RESOURCE_EXHAUSTED (8). */
const GRPC_CODES = new Set([14, 4, 8]);

type Chained = { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; driverError?: unknown };

/** The error and what it wraps (`cause`, TypeORM's `driverError`), at most 5 deep. */
function chain(e: unknown): Chained[] {
  const out: Chained[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const c = cur as Chained;
    out.push(c);
    cur = c.driverError ?? c.cause;
  }
  return out;
}

/** True when `e` says PostgreSQL is out (down, restarting, refusing or dropping connections). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return chain(error).some(
    (c) =>
      (typeof c.code === 'string' && (PG_CODES.has(c.code) || NET_CODES.has(c.code))) ||
      (typeof c.name === 'string' && TYPEORM_RELEASED.has(c.name)) ||
      (typeof c.message === 'string' && PG_MESSAGES.some((m) => (c.message as string).includes(m))),
  );
}

/** True when `e` says the Temporal server is unreachable (a gRPC UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED, or a transport error). */
export function isTemporalUnavailable(error: unknown): boolean {
  return chain(error).some(
    (c) =>
      (c.name === 'ServiceError' || c.name === 'TransportError' || c.name === 'ConnectionError') &&
      chain(c.cause)
        .concat([c])
        .some((x) => (typeof x.code === 'number' && GRPC_CODES.has(x.code)) || x.name === 'TransportError' || x.name === 'ConnectionError'),
  );
}

/** True when `e` is a dependency being briefly out (module doc). */
export function isDependencyUnavailable(error: unknown): boolean {
  return isDatabaseUnavailable(error) || isTemporalUnavailable(error);
}

/** The `503 temporarily_unavailable` answer to a request that met a dependency out (with `Retry-After`). */
export function dependencyUnavailable(): DomainError {
  return new DomainError(
    'temporarily_unavailable',
    'temporarily_unavailable',
    'A service this request needs is briefly unavailable. Retry after `Retry-After` seconds with the same Idempotency-Key.',
    { details: { retry_after_seconds: DEPENDENCY_RETRY_AFTER_SECONDS } },
  );
}

/**
 * Keeps a process alive through a dependency outage: a promise nobody awaited that rejects because
 * PostgreSQL or Temporal went away (a pool's connection attempt during a restart) is logged, not
 * fatal; any other unhandled rejection still ends the process (logged, exit code 1), as Node would.
 */
export function survivesDependencyOutages(log: { warn(o: object, m: string): void; fatal(o: object, m: string): void }): void {
  process.on('unhandledRejection', (e) => {
    if (isDependencyUnavailable(e)) {
      log.warn({ err: e }, 'dependency unavailable (unawaited promise); carrying on');
      return;
    }
    log.fatal({ err: e }, 'unhandled rejection');
    process.exit(1);
  });
}
