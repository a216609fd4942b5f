/**
 * Events with their shapes (issue 23 part 3): every type of the catalogue (domain/event-types.ts)
 * has an entry in views/event-schemas.ts and a `webhooks` entry in the `/v1` document with its
 * exact envelope; catalogued-only types are marked; the outbox's check (lib/outbox.ts, on with
 * EVENT_SCHEMA_CHECK) refuses a drifting event and a type without an entry.
 */
import { documentOfThisBuild } from '../../api/openapi-cli';
import { CATALOGUED_EVENT_TYPES, LIVE_EVENT_TYPES, UNSHIPPED_EVENT_TYPES } from '../../domain/event-types';
import { resetConfig } from '../../lib/config';
import { checkEventSchema, EventSchemaDrift, type NewEvent } from '../../lib/outbox';
import type { EventView } from '../../views/event';
import { EVENT_SCHEMAS, eventSchemaProblem } from '../../views/event-schemas';

const doc = documentOfThisBuild() as Record<string, any>;

const ping = (object: Record<string, unknown>): EventView => ({
  id: 'evt_1',
  object: 'event',
  type: 'test.ping',
  created_at: '2026-11-26T06:00:00.000Z',
  livemode: false,
  api_version: '2026-09-01',
  sequence: 1,
  data: { object },
  request: { id: 'req_1', idempotency_key: null },
});
const endpointRef = {
  id: 'whe_1',
  object: 'webhook_endpoint',
  livemode: false,
  url: 'https://example.com/hooks',
  type: 'webhook_endpoint',
};

describe('the mapping of event types to shapes', () => {
  test('every catalogued type has exactly one entry, and nothing else has one', () => {
    expect([...EVENT_SCHEMAS.keys()]).toEqual([...CATALOGUED_EVENT_TYPES]);
    for (const t of LIVE_EVENT_TYPES) expect([t, EVENT_SCHEMAS.get(t)?.live]).toEqual([t, true]);
    for (const t of UNSHIPPED_EVENT_TYPES) expect([t, EVENT_SCHEMAS.get(t)?.live]).toEqual([t, false]);
  });

  test('a well-formed event passes; a drifting one and a type without an entry are refused', () => {
    expect(eventSchemaProblem(ping(endpointRef))).toBeNull();
    expect(eventSchemaProblem(ping({ ...endpointRef, secret: 'whsec_x' }))).toMatch(/data\.object\.secret.*not allowed/);
    expect(eventSchemaProblem(ping({ ...endpointRef, type: 'payment' }))).toMatch(/data\.object\.type/);
    expect(eventSchemaProblem({ ...ping(endpointRef), type: 'payment_link.teleported' })).toMatch(/no entry/);
  });
});

describe('the webhooks of the /v1 document', () => {
  test('one post per catalogued type, catalogued-only types marked, each body the envelope of its type', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...CATALOGUED_EVENT_TYPES]);
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const live = LIVE_EVENT_TYPES.includes(type);
      expect([type, item.post['x-catalogued-only'] === true]).toEqual([type, !live]);
      if (!live) expect(item.post.description).toMatch(/never delivered/);
      const schema = item.post.requestBody.content['application/json'].schema;
      expect([type, schema.properties.type]).toEqual([type, { const: type }]);
      const ref: string = schema.properties.data.properties.object.$ref;
      const component = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect([type, component?.properties?.type]).toEqual([type, { const: EVENT_SCHEMAS.get(type)!.objectType }]);
    }
  });
});

describe('the outbox check', () => {
  const event = (type: string, object: Record<string, unknown>): NewEvent => ({
    accountId: 'acct_1',
    livemode: false,
    type,
    objectType: 'webhook_endpoint',
    objectId: 'whe_1',
    object,
  });
  afterEach(() => {
    delete process.env.EVENT_SCHEMA_CHECK;
    resetConfig();
  });

  test('off by default: nothing is checked', () => {
    resetConfig();
    expect(() => checkEventSchema(event('payment_link.teleported', {}))).not.toThrow();
  });

  test('on: passes a matching event, throws on drift and on a type without an entry', () => {
    process.env.EVENT_SCHEMA_CHECK = 'true';
    resetConfig();
    const { type: _t, ...object } = endpointRef;
    expect(() => checkEventSchema(event('test.ping', object))).not.toThrow();
    expect(() => checkEventSchema(event('test.ping', { ...object, url: 42 }))).toThrow(EventSchemaDrift);
    expect(() => checkEventSchema(event('payment_link.teleported', object))).toThrow(/no entry/);
  });
});
