/**
 * Shipping catalogued event families by switch (spec 6; issues 14 and 24): with no family switched
 * on only the live types ship; a family switched on ships all of its catalogued types and nothing
 * else (for a family with live types too, only the catalogued ones are added); every family with
 * catalogued types has its own switch, described by what it ships; endpoints receive exactly the
 * shipped types they subscribe to; the screening events a new screening writes.
 */
import {
  cataloguedTypesOf,
  CATALOGUED_EVENT_TYPES,
  endpointReceives,
  eventFamily,
  LIVE_EVENT_TYPES,
  SHIPPABLE_EVENT_FAMILIES,
  shipSwitchName,
  shippedEventTypes,
  UNSHIPPED_EVENT_TYPES,
  UNWRITTEN_EVENT_TYPES,
  type ShippableEventFamily,
} from '../../domain/event-types';
import { screeningEvents } from '../../domain/screening';
import { shipSwitchDescription, SWITCH_DEFAULTS } from '../../lib/switches';

test('no family on: the live types only', () => {
  expect(shippedEventTypes([])).toEqual(LIVE_EVENT_TYPES);
  expect(endpointReceives([], 'send_intent.settled')).toBe(false);
});

test('a family on ships every catalogued type of that family and nothing else', () => {
  const t = shippedEventTypes(['send_intent']);
  expect(t).toEqual(expect.arrayContaining([...LIVE_EVENT_TYPES, 'send_intent.created', 'send_intent.settled', 'send_intent.expired']));
  expect(t.filter((x) => !LIVE_EVENT_TYPES.includes(x)).every((x) => x.startsWith('send_intent.'))).toBe(true);
  expect(t).not.toContain('deposit_intent.created');
  expect(shippedEventTypes(['wallet'])).toContain('wallet.created');
  // A name that is no family with catalogued types ships nothing more.
  expect(shippedEventTypes(['subscription' as never, 'nope' as never])).toEqual(LIVE_EVENT_TYPES);
  const shipped = new Set(t);
  expect(endpointReceives([], 'send_intent.settled', shipped)).toBe(true);
  expect(endpointReceives(['payment.paid'], 'send_intent.settled', shipped)).toBe(false);
  expect(endpointReceives(['send_intent.settled'], 'send_intent.settled', shipped)).toBe(true);
});

test('every family with catalogued types is shippable, derived from the catalogue, each by its own switch', () => {
  expect([...SHIPPABLE_EVENT_FAMILIES]).toEqual([
    'payment',
    'payout',
    'payroll_run',
    'payroll_item',
    'payroll_template',
    'deposit_intent',
    'send_intent',
    'offramp_intent',
    'virtual_account',
    'wallet',
    'conversion',
    'capability',
    'screening',
    'account',
    'address_book',
    'credit',
  ]);
  expect(new Set(SHIPPABLE_EVENT_FAMILIES)).toEqual(new Set(UNSHIPPED_EVENT_TYPES.map(eventFamily)));
  // Together the families' catalogued types are exactly the unshipped ones.
  expect(SHIPPABLE_EVENT_FAMILIES.flatMap((f) => cataloguedTypesOf(f))).toEqual([...UNSHIPPED_EVENT_TYPES]);
  for (const f of SHIPPABLE_EVENT_FAMILIES) {
    expect(cataloguedTypesOf(f).length).toBeGreaterThan(0);
    expect(shipSwitchName(f)).toBe(`events.ship.${f}`);
    expect(SWITCH_DEFAULTS[`events.ship.${f}`]).toMatchObject({ enabled: false, description: shipSwitchDescription(f) });
  }
  const family: ShippableEventFamily = 'payroll_template';
  expect(shippedEventTypes([family])).toEqual([...LIVE_EVENT_TYPES, 'payroll_template.created']);
});

test('a family with live types too ships only its catalogued ones; its live ones ship anyway', () => {
  for (const f of ['payment', 'payout', 'payroll_run'] as const) {
    const added = shippedEventTypes([f]).filter((t) => !LIVE_EVENT_TYPES.includes(t));
    expect(added).toEqual(cataloguedTypesOf(f));
    expect(added.every((t) => !LIVE_EVENT_TYPES.includes(t))).toBe(true);
    expect(LIVE_EVENT_TYPES.some((t) => eventFamily(t) === f)).toBe(true);
  }
  expect(shippedEventTypes(['payment']).filter((t) => !LIVE_EVENT_TYPES.includes(t))).toEqual(['payment.detected', 'payment.processing']);
  // All families on: every catalogued type ships.
  expect(new Set(shippedEventTypes(SHIPPABLE_EVENT_FAMILIES))).toEqual(new Set(CATALOGUED_EVENT_TYPES));
});

test('switch descriptions say what ships, that live types ship anyway, and what is never written', () => {
  expect(shipSwitchDescription('wallet')).toMatch(/^Ship the catalogued wallet\.created event: listed in GET \/events/);
  expect(shipSwitchDescription('send_intent')).toContain(
    'send_intent.* events (created, source_submitted, bridging_started, settled, failed, expired)',
  );
  expect(shipSwitchDescription('send_intent')).not.toMatch(/the live|never|none/);
  expect(shipSwitchDescription('payout')).toContain('the live payout.* events ship whatever this switch says');
  expect(shipSwitchDescription('payment')).toContain('payment.processing is never written by this product');
  expect(shipSwitchDescription('capability')).toContain('this product writes none of them');
  expect(shipSwitchDescription('account')).toContain('this product writes none of them');
  expect(shipSwitchDescription('payroll_run')).toContain(
    'payroll_run.execution_requested, payroll_run.execution_blocked are never written',
  );
});

test('the never-written types are catalogued ones', () => {
  for (const t of UNWRITTEN_EVENT_TYPES) expect(UNSHIPPED_EVENT_TYPES).toContain(t);
});

test('a screening writes completed, and risk_elevated above the previous level of the address', () => {
  expect(screeningEvents(null, 'severe')).toEqual(['screening.completed']);
  expect(screeningEvents('low', 'low')).toEqual(['screening.completed']);
  expect(screeningEvents('high', 'medium')).toEqual(['screening.completed']);
  expect(screeningEvents('low', 'medium')).toEqual(['screening.completed', 'screening.risk_elevated']);
  expect(screeningEvents('high', 'severe')).toEqual(['screening.completed', 'screening.risk_elevated']);
  expect(screeningEvents('unknown', 'severe')).toEqual(['screening.completed']);
});
