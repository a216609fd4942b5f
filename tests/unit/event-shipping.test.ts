/**
 * Shipping catalogued event families by switch (spec 6; issue 14): with no family switched on only
 * the live types ship; a family switched on ships all of its catalogued types and nothing else;
 * endpoints receive exactly the shipped types they subscribe to.
 */
import {
  endpointReceives, eventFamily, LIVE_EVENT_TYPES, SHIPPABLE_EVENT_FAMILIES, shipSwitchName, shippedEventTypes, UNSHIPPED_EVENT_TYPES,
} from '../../domain/event-types';

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
  // Only the wallet families can be shipped this way; others stay catalogued.
  expect(shippedEventTypes(['payout' as never])).toEqual(LIVE_EVENT_TYPES);
  const shipped = new Set(t);
  expect(endpointReceives([], 'send_intent.settled', shipped)).toBe(true);
  expect(endpointReceives(['payment.paid'], 'send_intent.settled', shipped)).toBe(false);
  expect(endpointReceives(['send_intent.settled'], 'send_intent.settled', shipped)).toBe(true);
});

test('every shippable family has catalogued types and its own switch name', () => {
  for (const f of SHIPPABLE_EVENT_FAMILIES) {
    expect(UNSHIPPED_EVENT_TYPES.some((t) => eventFamily(t) === f)).toBe(true);
    expect(shipSwitchName(f)).toBe(`events.ship.${f}`);
  }
});
