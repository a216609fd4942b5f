/**
 * `GET /v1/eligibility` over HTTP (spec 4.6; issue 15): public (no credential), four states per
 * product by country and customer type, conditional answers name their requirements, the country
 * is validated against the registry (the switch off, 503 with Retry-After: tests/api/global-switches.test.ts).
 */
import { call, connectDb, expectError, expectOk } from '../helpers/api';
import { eligibilityResponse } from '../../views/eligibility';

beforeAll(async () => {
  await connectDb();
});

const get = (q: string) => call('GET', `/v1/eligibility?${q}`, undefined, { key: null, idem: null });
const byProduct = (body: { products: Array<{ product: string; requirements: string[] }> }) =>
  Object.fromEntries(body.products.map((p) => [p.product, p]));

test('states by market and customer type, without a credential', async () => {
  const us = expectOk(await get('country=US&customer_type=business'));
  const { error } = eligibilityResponse.validate(us);
  expect(error).toBeUndefined();
  expect(byProduct(us)).toMatchObject({
    payment_links: { state: 'likely_available', reason: null, requirements: [] },
    payouts: { state: 'conditional', requirements: ['customer_verification', 'terms_acceptance'] },
    payroll: { state: 'conditional' },
  });
  expect(byProduct(expectOk(await get('country=de&customer_type=individual'))).payroll).toMatchObject({
    state: 'unavailable',
    reason: 'business_only',
  });
  expect(byProduct(expectOk(await get('country=IN&customer_type=business'))).wallet.requirements).toContain('partner_onboarding');
  expect(
    expectOk(await get('country=IR&customer_type=business')).products.every(
      (p: { state: string; reason: string }) => p.state === 'unavailable' && p.reason === 'country_sanctioned',
    ),
  ).toBe(true);
  expect(expectOk(await get('country=AQ&customer_type=business')).products.every((p: { state: string }) => p.state === 'unknown')).toBe(
    true,
  );
});

test('bad input: unknown country, missing or bad customer type', async () => {
  expectError(await get('country=ZZ&customer_type=business'), 400, 'invalid_request', 'country_invalid', 'country');
  expectError(await get('country=US'), 400, 'invalid_request', undefined, 'customer_type');
  expectError(await get('country=US&customer_type=robot'), 400, 'invalid_request', undefined, 'customer_type');
});

// The switch-off answer (503 eligibility_unavailable with Retry-After) flips a global switch, so it is
// tested on a private stack: tests/api/global-switches.test.ts.
