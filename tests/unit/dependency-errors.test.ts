/**
 * Issue 28 fault 3 and 4: PostgreSQL or Temporal briefly out is recognised (lib/dependency-errors.ts)
 * and answered `503 temporarily_unavailable` with a `Retry-After` by the error envelope, never a 500;
 * any other unexpected error stays a 500.
 */
import type Koa from 'koa';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { errorEnvelope } from '../../api/middleware/errors';
import { isDatabaseUnavailable, isDependencyUnavailable, isTemporalUnavailable } from '../../lib/dependency-errors';

const withCode = (message: string, code: string | number, name = 'Error') => Object.assign(new Error(message), { code, name });

describe('isDependencyUnavailable', () => {
  test('PostgreSQL restarting, refusing or dropping connections', () => {
    expect(isDatabaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    // TypeORM's QueryFailedError wraps the driver's error.
    expect(
      isDatabaseUnavailable(Object.assign(new Error('query failed'), { name: 'QueryFailedError', driverError: withCode('x', '57P01') })),
    ).toBe(true);
    // A transaction's next statement after its connection was lost (TypeORM gave the connection back).
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  test('the Temporal server unreachable', () => {
    const grpc = withCode('14 UNAVAILABLE: No connection established', 14);
    expect(isTemporalUnavailable(Object.assign(new Error('Failed to signalWithStart'), { name: 'ServiceError', cause: grpc }))).toBe(true);
    expect(isTemporalUnavailable(Object.assign(new Error('Failed'), { name: 'ServiceError', cause: withCode('5 NOT_FOUND', 5) }))).toBe(
      false,
    );
  });

  test('not a dependency outage: constraint violations, bugs, domain refusals', () => {
    expect(isDependencyUnavailable(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isDependencyUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyUnavailable(null)).toBe(false);
  });
});

describe('the error envelope', () => {
  const run = async (thrown: unknown) => {
    const headers: Record<string, string> = {};
    const ctx = {
      state: { requestId: 'req_1' },
      path: '/v1/x',
      method: 'POST',
      set: (k: string, v: string) => {
        headers[k] = v;
      },
    } as unknown as Koa.ParameterizedContext<any>;
    await errorEnvelope()(ctx, async () => {
      throw thrown;
    });
    const out = ctx as unknown as { status: number; body: { error: { type: string; code: string; details?: unknown } } };
    return { status: out.status, error: out.body.error, retryAfter: headers['Retry-After'] };
  };

  test('a dependency outage is 503 temporarily_unavailable with Retry-After, no internal hint on the wire', async () => {
    const r = await run(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    expect([r.status, r.error.type, r.error.code, r.retryAfter]).toEqual([503, 'temporarily_unavailable', 'temporarily_unavailable', '1']);
    expect(r.error.details).toBeUndefined();
  });

  test('anything else unexpected stays 500 api_error', async () => {
    const r = await run(new TypeError('x is undefined'));
    expect([r.status, r.error.type, r.retryAfter]).toEqual([500, 'api_error', undefined]);
  });
});
