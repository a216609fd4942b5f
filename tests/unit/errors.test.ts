import {
  capabilityUnavailable,
  conflict,
  DomainError,
  ERROR_TYPES,
  invalidRequest,
  isDomainError,
  notFound,
  permissionError,
  STATUS_BY_TYPE,
  temporarilyUnavailable,
} from '../../domain/errors';

describe('STATUS_BY_TYPE (spec part 7)', () => {
  it('maps every type to its default HTTP status', () => {
    expect(STATUS_BY_TYPE).toEqual({
      invalid_request: 400,
      authentication_error: 401,
      permission_error: 403,
      not_found: 404,
      conflict: 409,
      idempotency_error: 409,
      rate_limit_error: 429,
      capability_unavailable: 409,
      temporarily_unavailable: 503,
      quota_exhausted: 402,
      provider_error: 502,
      api_error: 500,
    });
    expect(ERROR_TYPES).toHaveLength(12);
    expect(Object.isFrozen(STATUS_BY_TYPE)).toBe(true);
  });
});

describe('DomainError', () => {
  it('carries type, code, message and the default status', () => {
    const e = new DomainError('not_found', 'not_found', 'No such link.');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(DomainError);
    expect(e.name).toBe('DomainError');
    expect(e.type).toBe('not_found');
    expect(e.code).toBe('not_found');
    expect(e.message).toBe('No such link.');
    expect(e.status).toBe(404);
    expect(e.param).toBeUndefined();
    expect(e.details).toBeUndefined();
    expect(e.stack).toContain('DomainError');
  });

  it('takes param, details and a status override', () => {
    const e = new DomainError('invalid_request', 'crypto_only_currency_not_usd', 'USD only', {
      param: 'amount',
      details: { currency: 'EUR' },
      status: 422,
    });
    expect(e.status).toBe(422);
    expect(e.param).toBe('amount');
    expect(e.details).toEqual({ currency: 'EUR' });
  });

  it.each(Object.entries(STATUS_BY_TYPE))('defaults %s to %i', (type, status) => {
    expect(new DomainError(type as keyof typeof STATUS_BY_TYPE, 'x', 'm').status).toBe(status);
  });
});

describe('isDomainError', () => {
  it('recognises instances and same-shaped objects, rejects others', () => {
    expect(isDomainError(invalidRequest('a', 'b'))).toBe(true);
    expect(isDomainError({ name: 'DomainError', type: 'conflict', code: 'c', status: 409 })).toBe(true);
    expect(isDomainError({ name: 'DomainError', type: 'nope', code: 'c', status: 409 })).toBe(false);
    expect(isDomainError(new Error('x'))).toBe(false);
    expect(isDomainError(null)).toBe(false);
    expect(isDomainError('DomainError')).toBe(false);
  });
});

describe('factories', () => {
  it('invalidRequest defaults to 400 and accepts 422', () => {
    const e = invalidRequest('amount_invalid', 'bad', 'amount', { a: 1 });
    expect([e.type, e.code, e.status, e.param, e.details]).toEqual(['invalid_request', 'amount_invalid', 400, 'amount', { a: 1 }]);
    const f = invalidRequest('invalid_request', 'crypto only', 'reminder_schedule', undefined, 422);
    expect(f.status).toBe(422);
    expect(f.details).toBeUndefined();
  });

  it('notFound uses code not_found with a default message', () => {
    const e = notFound();
    expect([e.type, e.code, e.status]).toEqual(['not_found', 'not_found', 404]);
    expect(e.message.length).toBeGreaterThan(0);
    expect(notFound('No such payout.', 'id').param).toBe('id');
  });

  it('conflict, capabilityUnavailable, permissionError, temporarilyUnavailable', () => {
    const c = conflict('wallet_already_exists', 'exists', { id: 'wlt_1' });
    expect([c.type, c.code, c.status, c.details]).toEqual(['conflict', 'wallet_already_exists', 409, { id: 'wlt_1' }]);
    const u = capabilityUnavailable('terms_acceptance_required', 'accept', { revision: 'r1' });
    expect([u.type, u.status, u.details]).toEqual(['capability_unavailable', 409, { revision: 'r1' }]);
    const p = permissionError('role_denied', 'owner only');
    expect([p.type, p.code, p.status]).toEqual(['permission_error', 'role_denied', 403]);
    const t = temporarilyUnavailable('legal_acceptance_unavailable', 'down');
    expect([t.type, t.code, t.status]).toEqual(['temporarily_unavailable', 'legal_acceptance_unavailable', 503]);
  });
});
