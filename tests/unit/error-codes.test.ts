/**
 * The error registry (domain/error-codes.ts; issue 23 part 2, spec 7) against the source: every
 * code the server can answer is registered (the walk of tests/helpers/error-code-sites.ts reads
 * every DomainError construction and the factories that feed it, transition tables included), no
 * construction has a code the walk cannot read, every entry is answered somewhere or reserved,
 * and an entry's types include the types its constructions use. Also the envelope's runtime guard
 * (an unregistered code is logged, and flagged under STRICT_ERROR_CODES), `doc_url`, the
 * "did you mean" of an unknown body key, and the OpenAPI `ErrorEnvelope` code enum.
 */
import Joi from 'joi';
import type Koa from 'koa';
import { allErrorCodes, ERROR_CODES, errorCodesByType, isRegisteredErrorCode } from '../../domain/error-codes';
import { DomainError, ERROR_TYPES } from '../../domain/errors';
import {
  didYouMean,
  docUrl,
  errorBody,
  errorEnvelope,
  errorEnvelopeJsonSchema,
  fromJoi,
  UNREGISTERED_CODE_HEADER,
} from '../../api/middleware/errors';
import { toJsonSchema } from '../../api/openapi';
import { loadConfig, resetConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { walkErrorCodes, type CodeWalk } from '../helpers/error-code-sites';

/**
 * Constructions whose code the walk cannot read, and why that is safe: each re-throws a code some
 * other construction made (and the walk checked there).
 */
const PASSTHROUGH: ReadonlyArray<{ file: string; text: string; why: string }> = [
  {
    file: 'api/operation/idempotency.ts',
    text: 'err.code',
    why: 'replays a refusal recorded from a DomainError under the same Idempotency-Key',
  },
];

/** Codes spec 7 names: they must stay registered whatever the source does. */
const SPEC_NAMED = [
  'idempotency_key_invalid',
  'idempotency_failed',
  'invalid_api_key',
  'role_denied',
  'scope_denied',
  'terms_acceptance_required',
  'legal_acceptance_unavailable',
  'livemode_boundary',
  'account_already_exists',
  'wallet_already_exists',
  'wallet_not_found',
  'customer_already_exists',
  'customer_type_conflict',
  'customer_mapping_stale',
  'payer_type_mismatch',
  'amount_invalid',
  'network_not_supported',
  'payment_in_progress',
  'rail_not_allowed',
  'allowed_rails_invalid_for_currency',
  'allowed_rails_invalid_for_settlement',
  'settlement_conflicts_with_destination',
  'settlement_destination_required',
  'crypto_only_currency_not_usd',
  'native_via_provider_not_enabled',
  'payroll_run_underfunded',
  'funding_method_locked',
  'run_has_no_rows',
  'payout_source_chain_locked',
  'payout_source_chain_missing',
  'wallet_funding_pending',
  'wallet_funding_cancel_failed',
  'cancel_unavailable',
  'payment_link_pay_in',
  'pending_destination_changed',
  'no_pending_destination',
  'destination_rail_keyless',
];

let walk: CodeWalk;
beforeAll(() => {
  walk = walkErrorCodes();
}, 120_000);

describe('the registry against the source', () => {
  test('every code the server can construct is registered', () => {
    expect(walk.sites.length).toBeGreaterThan(300);
    const missing = walk.sites.filter((s) => !isRegisteredErrorCode(s.code)).map((s) => `${s.code} (${s.file}:${s.line})`);
    expect(missing).toEqual([]);
  });

  test('every construction has a code the walk can read, or re-throws one (PASSTHROUGH)', () => {
    const unknown = walk.unresolved.filter((u) => !PASSTHROUGH.some((p) => p.file === u.file && p.text === u.text));
    expect(unknown).toEqual([]);
    for (const p of PASSTHROUGH) expect(walk.unresolved).toContainEqual(expect.objectContaining({ file: p.file, text: p.text }));
  });

  test('every entry is answered somewhere, unless reserved', () => {
    const used = new Set(walk.sites.map((s) => s.code));
    expect(
      allErrorCodes()
        .filter((e) => !e.reserved && !used.has(e.code))
        .map((e) => e.code),
    ).toEqual([]);
    expect(
      allErrorCodes()
        .filter((e) => e.reserved && used.has(e.code))
        .map((e) => e.code),
    ).toEqual([]);
  });

  test("each construction's type is one of its entry's types", () => {
    const wrong = walk.sites
      .filter((s) => s.types.length > 0 && !s.types.some((t) => ERROR_CODES.get(s.code)?.types.includes(t as never)))
      .map((s) => `${s.code}: ${s.types.join('|')} at ${s.file}:${s.line}, registry ${ERROR_CODES.get(s.code)?.types.join('|')}`);
    expect(wrong).toEqual([]);
  });

  test("every transition table's code is registered (codes built as `${object}_state_changed`)", () => {
    const tables = walk.sites.filter((s) => s.via === 'transitionTable');
    expect(tables.length).toBeGreaterThanOrEqual(19);
    for (const t of tables) expect([t.code, ERROR_CODES.get(t.code)?.types]).toEqual([t.code, ['conflict']]);
  });

  test('the codes spec 7 names are registered', () => {
    expect(SPEC_NAMED.filter((c) => !isRegisteredErrorCode(c))).toEqual([]);
  });
});

describe('the entries', () => {
  test('are complete sentences with statuses that fit their types', () => {
    const allowed: Record<string, number[]> = {
      invalid_request: [400, 405, 413, 422],
      authentication_error: [401],
      permission_error: [403],
      not_found: [404],
      conflict: [409],
      idempotency_error: [409],
      rate_limit_error: [429],
      capability_unavailable: [409],
      temporarily_unavailable: [503],
      quota_exhausted: [402],
      provider_error: [502, 503],
      api_error: [500],
    };
    for (const e of allErrorCodes()) {
      expect([e.code, /[.?]$/.test(e.when), /[.?]$/.test(e.recovery)]).toEqual([e.code, true, true]);
      const fits = e.statuses.every((s) => e.types.some((t) => allowed[t].includes(s)));
      expect([e.code, fits]).toEqual([e.code, true]);
      for (const t of e.types) expect(ERROR_TYPES).toContain(t);
    }
  });

  test('are grouped by their usual type, every code once', () => {
    const grouped = errorCodesByType().flatMap((g) => g.entries.map((e) => e.code));
    expect(grouped.length).toBe(ERROR_CODES.size);
    expect(new Set(grouped).size).toBe(ERROR_CODES.size);
  });
});

describe('the envelope', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    resetConfig();
    delete process.env.STRICT_ERROR_CODES;
    delete process.env.DOCS_BASE_URL;
  });

  test("doc_url is the code's entry on the product's error reference (DOCS_BASE_URL, default the payer host's /docs)", () => {
    resetConfig();
    expect(docUrl('parameter_unknown')).toBe(`${loadConfig().payerHost}/docs/errors#parameter_unknown`);
    process.env.DOCS_BASE_URL = 'https://docs.example.com/api/';
    resetConfig();
    const body = errorBody(new DomainError('not_found', 'not_found', 'No such object.'), 'req_1') as { error: Record<string, unknown> };
    expect(body.error.doc_url).toBe('https://docs.example.com/api/errors#not_found');
  });

  test('an unregistered code is answered, logged as an error, and flagged only under STRICT_ERROR_CODES', async () => {
    const spy = jest.spyOn(logger, 'error').mockImplementation(() => undefined as never);
    const run = async () => {
      const headers: Record<string, string> = {};
      const ctx = {
        state: { requestId: 'req_1' },
        path: '/v1/x',
        method: 'GET',
        set: (k: string, v: string) => {
          headers[k] = v;
        },
      } as unknown as Koa.ParameterizedContext<any>;
      await errorEnvelope()(ctx, async () => {
        throw new DomainError('conflict', 'made_up_code', 'Nope.');
      });
      return { ctx: ctx as unknown as { status: number; body: { error: { code: string } } }, headers };
    };
    const plain = await run();
    expect([plain.ctx.status, plain.ctx.body.error.code, plain.headers[UNREGISTERED_CODE_HEADER]]).toEqual([
      409,
      'made_up_code',
      undefined,
    ]);
    expect(spy).toHaveBeenCalledWith(expect.objectContaining({ code: 'made_up_code' }), expect.stringContaining('not in the registry'));
    process.env.STRICT_ERROR_CODES = 'true';
    resetConfig();
    expect((await run()).headers[UNREGISTERED_CODE_HEADER]).toBe('made_up_code');
    spy.mockClear();
    errorBody(new DomainError('not_found', 'not_found', 'No such object.'), 'req_2');
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('did you mean', () => {
  const schema = Joi.object({
    accepted_rail_kinds: Joi.array().items(Joi.string()),
    amount: Joi.object({ amount: Joi.string(), currency: Joi.string() }),
    items: Joi.array().items(Joi.object({ name: Joi.string(), quantity: Joi.number() })),
  });
  const unknownKey = (body: unknown) => fromJoi(schema.validate(body).error!, 'body', schema);

  test('an unknown body key names its nearest known sibling when close enough', () => {
    const e = unknownKey({ acepted_rail_kinds: ['crypto'] });
    expect([e.code, e.param, e.details]).toEqual(['parameter_unknown', 'acepted_rail_kinds', { did_you_mean: 'accepted_rail_kinds' }]);
    expect(e.message).toBe('Unknown body parameter: `acepted_rail_kinds`; did you mean `accepted_rail_kinds`?');
    expect(unknownKey({ amount: { amount: '1', curency: 'USD' } }).details).toEqual({ did_you_mean: 'amount.currency' });
    expect(unknownKey({ items: [{ nme: 'x' }] }).details).toEqual({ did_you_mean: 'items.0.name' });
  });

  test('a transposition is one edit: `titel` is `title` (optimal string alignment)', () => {
    expect(didYouMean('titel', ['title', 'memo', 'items'])).toBe('title');
    expect(didYouMean('amuont', ['amount', 'memo'])).toBe('amount');
    expect(didYouMean('recipient_emial', ['recipient_email', 'note'])).toBe('recipient_email');
    expect(
      fromJoi(Joi.object({ title: Joi.string() }).validate({ titel: 'x' }).error!, 'body', Joi.object({ title: Joi.string() })).details,
    ).toEqual({ did_you_mean: 'title' });
  });

  test('a prefix of a known key, or a known key it starts with, is suggested: `accepted_rails` is `accepted_rail_kinds`', () => {
    const e = unknownKey({ accepted_rails: ['crypto'] });
    expect([e.code, e.param, e.details]).toEqual(['parameter_unknown', 'accepted_rails', { did_you_mean: 'accepted_rail_kinds' }]);
    expect(e.message).toBe('Unknown body parameter: `accepted_rails`; did you mean `accepted_rail_kinds`?');
    expect(didYouMean('accepted_rail', ['accepted_rail_kinds'])).toBe('accepted_rail_kinds');
    expect(didYouMean('amount_minor', ['title', 'amount'])).toBe('amount');
    expect(didYouMean('settlement', ['settlement_destination_id', 'title'])).toBe('settlement_destination_id');
    // A typo ranks before a prefix; short keys are no prefix of anything.
    expect(didYouMean('amounts', ['amounts_due', 'amount'])).toBe('amount');
    expect(didYouMean('id', ['idempotency_key'])).toBeNull();
    expect(didYouMean('note', ['notify_recipient'])).toBeNull();
  });

  test('says nothing when no known key is close', () => {
    const e = unknownKey({ colour: 'red' });
    expect([e.message, e.details]).toEqual(['Unknown body parameter: `colour`.', undefined]);
    expect(didYouMean('ab', ['xy', 'ac'])).toBeNull();
    expect(didYouMean('Amount', ['amount'])).toBe('amount');
    expect(didYouMean('x'.repeat(1000), ['x'])).toBeNull();
    for (const unrelated of ['colour', 'zzz', 'customer', 'webhook_url', 'quantity_total_x']) {
      expect([
        unrelated,
        didYouMean(unrelated, ['title', 'amount', 'accepted_rail_kinds', 'items', 'memo', 'invoice_number', 'payer_email']),
      ]).toEqual([unrelated, null]);
    }
  });
});

describe('the OpenAPI ErrorEnvelope', () => {
  test('documents error.code as an open enum of the registry, each with its description', () => {
    const env = errorEnvelopeJsonSchema(toJsonSchema);
    const code = env.properties.error.properties.code;
    expect(code.type).toBe('string');
    const consts = code.anyOf.filter((x: any) => 'const' in x);
    expect(consts.map((x: any) => x.const).sort()).toEqual([...ERROR_CODES.keys()].sort());
    expect(consts.every((x: any) => typeof x.description === 'string' && x.description.length > 20)).toBe(true);
    expect(code.anyOf[code.anyOf.length - 1]).toEqual(expect.objectContaining({ type: 'string' }));
    expect(env.properties.error.required).toEqual(['type', 'code', 'message', 'doc_url', 'request_id']);
  });
});
