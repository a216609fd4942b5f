/**
 * Document fidelity (issue 11), without the stack: every request rule the server enforces is in
 * the OpenAPI document of this build, and the shared request joi counts code points.
 * - strings joi refuses when empty carry `minLength: 1` (and `.allow('')` ones do not);
 * - `limit` is any string or integer (never refused), `expand` accepts the empty string;
 * - closed enums: `allowed_rails`, event types, `chain`, payer `network` / `source_chain`, funding `source_chain`;
 * - `offsets_days`, the reminder schedule's server-owned `sent`/`next_reminder_at` (readOnly, typed
 *   as read), the activate body; response shapes of `GET /account?expand=`, deposit
 *   instructions, `merchant_contact`, list summaries, optional `partial_payment`.
 */
import Joi from '../../api/schemas/joi';
import BaseJoi from 'joi';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { digitsUpTo, listQuery } from '../../api/schemas/common';
import { clip, errorBody, fromJoi } from '../../api/middleware/errors';
import { DomainError } from '../../domain/errors';
import { RAILS_CLOSED } from '../../domain/rails';
import { paginateRows } from '../../lib/pagination';

const doc = documentOfThisBuild() as Record<string, any>;
const body = (method: string, path: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
const query = (method: string, path: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name)?.schema;
const ok = (method: string, path: string, status = '200') => doc.paths[path][method].responses[status].content['application/json'].schema;

/** True when the string schema `s` refuses "": `minLength` >= 1, a closed set, or a pattern "" does not match. */
function refusesEmpty(s: any): boolean {
  return (
    Number(s.minLength ?? 0) >= 1 ||
    Array.isArray(s.enum) ||
    s.const !== undefined ||
    (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(''))
  );
}

/** Every request string schema of the document with the path it sits at. */
function requestStrings(): Array<[string, any]> {
  const out: Array<[string, any]> = [];
  const walk = (s: any, at: string) => {
    if (!s || typeof s !== 'object') return;
    if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${at}[${i}]`));
    if (s.readOnly === true) return; // server-owned: any value is accepted and ignored (stripped), "" too
    if (s.type === 'string') out.push([at, s]);
    for (const [k, v] of Object.entries(s)) walk(v, `${at}.${k}`);
  };
  for (const [p, ops] of Object.entries<any>(doc.paths)) {
    for (const [m, o] of Object.entries<any>(ops)) {
      if (o.requestBody) walk(o.requestBody.content['application/json'].schema, `${m} ${p} body`);
      for (const prm of o.parameters ?? []) if (prm.in === 'query') walk(prm.schema, `${m} ${p} ?${prm.name}`);
    }
  }
  return out;
}

describe('strings that refuse ""', () => {
  test('carry minLength >= 1 in the document (request side); strings that accept "" do not', () => {
    const strings = requestStrings();
    expect(refusesEmpty(body('post', '/wallet/wallets').properties.address)).toBe(true);
    expect(refusesEmpty(body('post', '/webhook_endpoints').properties.url)).toBe(true);
    expect(body('post', '/payment_sessions/{token}/payments').properties.refund_address.minLength).toBe(1);
    expect(refusesEmpty(body('post', '/accounts').properties.country)).toBe(true);
    expect(body('post', '/clients').properties.company.minLength).toBeUndefined(); // .allow('', null)
    expect(query('get', '/clients', 'cursor').minLength).toBeUndefined(); // .allow('')
    // Every request string without minLength accepts "" in joi terms: it is nullable text or a query field that allows ''.
    const missing = strings.filter(([, s]) => !refusesEmpty(s) && !s.format);
    for (const [at] of missing)
      expect(at).toMatch(
        /\?(cursor|q|expand)|\.(company|country|role|notes|memo|invoice_number|title|name|description|note|label|counterparty_name|counterparty_vasp_name|bank_name|chain|address|account_number|routing_number|iban|bic|sort_code|clabe|pix_key|tax_id|use_case|phone|q)\b/,
      );
  });

  test('responses are not given minLength (they describe, never refuse)', () => {
    expect(ok('get', '/clients/{id}').properties.company.minLength).toBeUndefined();
  });
});

describe('limit and expand (spec 4, 8)', () => {
  test('limit is any string or integer on every list; expand accepts the empty string', () => {
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const o of Object.values<any>(ops)) {
        const limit = (o.parameters ?? []).find((x: any) => x.name === 'limit');
        if (limit)
          expect([p, limit.schema.type, limit.schema.minimum, limit.schema.maximum]).toEqual([
            p,
            ['string', 'integer'],
            undefined,
            undefined,
          ]);
        const expand = (o.parameters ?? []).find((x: any) => x.name === 'expand');
        if (expand) expect([p, JSON.stringify(expand.schema)]).not.toContain('minLength');
      }
    }
    const q = Joi.object(listQuery);
    for (const v of [
      { limit: '\u0000' },
      { limit: 'abc' },
      { limit: '-1' },
      { limit: '1.5' },
      { limit: '1000' },
      { expand: '' },
      { expand: ['', 'nope'] },
    ]) {
      expect(q.validate(v).error).toBeUndefined();
    }
  });
});

describe('closed request enums', () => {
  test('allowed_rails, event types, chain, network, source_chain', () => {
    const links = body('post', '/payment_links').properties;
    expect(links.allowed_rails).toMatchObject({ type: ['array', 'null'], minItems: 1, items: { enum: [...RAILS_CLOSED] } });
    expect(body('patch', '/payment_links/{id}').properties.allowed_rails.items.enum).toEqual([...RAILS_CLOSED]);
    for (const b of [body('post', '/webhook_endpoints'), body('patch', '/webhook_endpoints/{id}')]) {
      expect(b.properties.event_types.items.enum).toEqual(expect.arrayContaining(['payment_link.created', 'payment.paid']));
    }
    for (const [m, p] of [
      ['get', '/events'],
      ['get', '/events/stream'],
      ['get', '/activity'],
    ]) {
      expect(query(m, p, 'type').enum).toEqual(expect.arrayContaining(['payment_link.created']));
    }
    const chain = body('post', '/address_book').properties.chain;
    const re = new RegExp(chain.anyOf[0].pattern);
    for (const v of ['ethereum', 'ETH', ' Base ', '8453', 'BNB Chain']) expect(re.test(v)).toBe(true);
    for (const v of ['dogecoin', 'eth2', '']) expect(re.test(v)).toBe(false);
    expect(chain.anyOf[1].enum).toEqual(expect.arrayContaining([1, 8453]));
    expect(new RegExp(query('get', '/address_book', 'chain').pattern).test('Polygon')).toBe(true);
    const pay = body('post', '/payment_sessions/{token}/payments').properties;
    expect(pay.network.enum).toEqual(expect.arrayContaining(['base', 'ethereum', 'solana']));
    expect(pay.source_chain.enum).toEqual(pay.network.enum);
    expect(body('post', '/payouts/{id}/funding_instructions').properties.source_chain.enum).toEqual([
      'base',
      'ethereum',
      'polygon',
      'arbitrum',
      'optimism',
    ]);
  });

  test('offsets_days is whole days 1..365; sent and next_reminder_at are readOnly, typed as read; the activate body is required with attestation_accepted: true', () => {
    expect(body('patch', '/payment_links/{id}/reminder_schedule').properties.offsets_days).toMatchObject({
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'integer', minimum: 1, maximum: 365 },
    });
    // Server-owned fields (spec 2.3, caller value ignored) are stated as the response states them, readOnly (issue 24).
    const schedule = body('patch', '/payment_links/{id}/reminder_schedule').properties;
    const read = ok('get', '/payment_links/{id}/reminder_schedule').properties;
    for (const f of ['sent', 'next_reminder_at']) {
      const { readOnly, description: _d, ...shape } = schedule[f];
      expect([f, readOnly, shape]).toEqual([f, true, read[f]]);
    }
    expect(
      Object.entries<any>(schedule)
        .filter(([, v]) => v.readOnly)
        .map(([k]) => k),
    ).toEqual(['sent', 'next_reminder_at']);
    const act = doc.paths['/payment_links/{id}/activate'].post.requestBody;
    expect(act.required).toBe(true);
    expect(act.content['application/json'].schema).toMatchObject({
      required: ['attestation_accepted'],
      properties: { attestation_accepted: { const: true } },
    });
  });
});

describe('response shapes', () => {
  test('GET /account declares readiness, setup_guide and expand_errors', () => {
    const s = ok('get', '/account');
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties)).toEqual(expect.arrayContaining(['readiness', 'setup_guide', 'expand_errors']));
    expect(s.required).not.toContain('readiness');
    expect(s.properties.readiness.type).toBe('object');
  });

  test('deposit instructions, merchant_contact and support_contact are typed', () => {
    const pay = ok('get', '/payments/{id}').properties;
    expect(pay.bank_deposit_instructions.properties).toEqual(
      expect.objectContaining({
        rail: expect.anything(),
        iban: expect.anything(),
        reference: expect.anything(),
        holder_kind: expect.anything(),
      }),
    );
    expect(pay.bank_deposit_instructions.additionalProperties).toBe(false);
    const session = ok('get', '/payment_sessions/{token}').properties;
    expect(Object.keys(session.xchain_deposit_instructions.items.properties)).toEqual(
      expect.arrayContaining(['amount_out', 'bridge_fee', 'quote_expires_at', 'chain_id']),
    );
    expect(Object.keys(session.merchant_contact.properties)).toEqual(['email', 'phone', 'url']);
    expect(Object.keys(ok('get', '/account').properties.support_contact.properties)).toEqual(['email', 'phone', 'url']);
  });

  test('every list summary is typed; lists without one declare none; partial_payment is optional', () => {
    let lists = 0;
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const o of Object.values<any>(ops)) {
        const s = o.responses?.['200']?.content?.['application/json']?.schema;
        if (s?.properties?.object?.const !== 'list') continue;
        lists++;
        const summary = s.properties.summary;
        if (summary) expect([p, summary.additionalProperties, Object.keys(summary.properties ?? {}).length > 0]).toEqual([p, false, true]);
      }
    }
    expect(lists).toBeGreaterThanOrEqual(20);
    expect(ok('get', '/payment_links').properties.summary.properties.by_status_group).toBeDefined();
    const link = ok('get', '/payment_links/{id}');
    expect(link.required).not.toContain('partial_payment');
    expect(link.properties.partial_payment.type).toEqual(['object', 'null']);
  });
});

describe('lengths in code points (api/schemas/joi)', () => {
  test('.max(n) counts code points: 150 emoji pass max(200), 201 do not; plain joi is unchanged', () => {
    const emoji = (n: number) => '\u{1F600}'.repeat(n);
    expect(Joi.string().max(200).validate(emoji(150)).error).toBeUndefined();
    expect(Joi.string().max(200).validate(emoji(201)).error?.details[0].type).toBe('string.max');
    expect(Joi.string().min(2).validate(emoji(1)).error?.details[0].type).toBe('string.min');
    expect(Joi.string().length(3).validate(emoji(3)).error).toBeUndefined();
    expect(BaseJoi.string().max(200).validate(emoji(150)).error).toBeDefined();
  });
});

describe('errors never echo unbounded input', () => {
  test('joi messages quote at most 64 code points of the value; envelopes cap the message', () => {
    const long = 'x'.repeat(1_000_000);
    const { error } = Joi.object({ a: Joi.string().pattern(/^[0-9]+$/) }).validate({ a: long });
    const e = fromJoi(error!, 'body');
    expect(e.param).toBe('a');
    expect(e.message.length).toBeLessThan(200);
    const env = errorBody(new DomainError('conflict', 'conflict', `Echo ${long}`), 'req_1') as any;
    expect([...env.error.message].length).toBeLessThanOrEqual(501);
    expect(clip('\u{1F600}\u{1F600}', 1)).toBe('\u{1F600}…');
  });

  test('nested joi paths name the full param', () => {
    const { error } = Joi.object({ unit_price: Joi.object({ currency: Joi.string().max(3) }) }).validate({
      unit_price: { currency: 'ABCD' },
    });
    expect(fromJoi(error!, 'body').param).toBe('unit_price.currency');
  });
});

describe('paginateRows (GET /accounts)', () => {
  const rows = [3, 1, 2].map((i) => ({ id: `acct_${i}`, created_at: new Date(Date.UTC(2026, 0, i)) }));
  test('newest first, limit lenient, cursor honoured, garbage cursor 400 cursor_invalid', () => {
    const p1 = paginateRows(rows, { limit: '2' }, (r) => r.id);
    expect(p1).toMatchObject({ data: ['acct_3', 'acct_2'], has_more: true });
    expect(paginateRows(rows, { limit: '2', cursor: p1.next_cursor }, (r) => r.id)).toMatchObject({
      data: ['acct_1'],
      has_more: false,
      next_cursor: null,
    });
    expect(paginateRows(rows, { limit: 'abc' }, (r) => r.id).data).toHaveLength(3);
    expect(() => paginateRows(rows, { cursor: 'garbage' }, (r) => r.id)).toThrow(
      expect.objectContaining({ code: 'cursor_invalid', param: 'cursor' }),
    );
  });
});

describe('Money amounts: the storable range stated as a pattern (spec 2.1)', () => {
  const max = 9223372036854775807n;
  const positive = new RegExp(digitsUpTo(max, true));
  const nonNegative = new RegExp(digitsUpTo(max, false));

  test('the edges, leading zeros and the empty string', () => {
    const cases: Array<[string, boolean, boolean]> = [
      ['0', false, true],
      ['00', false, true],
      ['', false, false],
      ['1', true, true],
      ['0001', true, true],
      ['999999999999999999', true, true],
      ['1000000000000000000', true, true],
      ['8999999999999999999', true, true],
      ['9223372036854775799', true, true],
      ['9223372036854775807', true, true],
      ['000009223372036854775807', true, true],
      ['9223372036854775808', false, false],
      ['9223372036854775810', false, false],
      ['9300000000000000000', false, false],
      ['10000000000000000000', false, false],
    ];
    for (const [s, p, n] of cases) expect([s, positive.test(s), nonNegative.test(s)]).toEqual([s, p, n]);
  });

  test('agrees with the numeric bound around the maximum and across magnitudes', () => {
    for (let d = -3000n; d <= 3000n; d += 7n)
      expect([String(max + d), positive.test(String(max + d))]).toEqual([String(max + d), max + d <= max]);
    for (let e = 0n; e <= 19n; e += 1n) {
      for (const k of [1n, 5n, 9n, 92n]) {
        const v = k * 10n ** e;
        expect([String(v), positive.test(String(v))]).toEqual([String(v), v <= max]);
      }
    }
  });

  test('the document states it on every Money alternative', () => {
    const money = doc.paths['/payment_links'].post.requestBody.content['application/json'].schema.properties.amount;
    for (const alt of money.oneOf) expect(alt.properties.amount.pattern).toBe(digitsUpTo(max, true));
  });
});
