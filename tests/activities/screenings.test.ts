/**
 * Activity tier, screenings (activities/screenings/commands.ts; no workflow activities: the
 * commands run directly on real PostgreSQL with the sandbox screening provider and the credit
 * ledger). Proves a screening's answer and `screening.completed`, the cache window reusing it, a
 * report costing one credit once (an equivalent report within the window is a free cache hit with
 * the same figures digest), and `402 quota_exhausted` with nothing left.
 */
import crypto from 'node:crypto';
import { getAddress } from 'viem';
import { provisionAccount } from '../../activities/accounts/commands';
import { systemScope } from '../../activities/scope';
import { createReport, createScreening, figuresSha256 } from '../../activities/screenings/commands';
import { db } from '../../lib/db';
import { describeWithDb, eventTypes, ownerOf, rejection, testRequest, useActivityTier } from '../helpers/activity-env';

const newAddress = () => getAddress(`0x${crypto.randomBytes(20).toString('hex')}`);

/** The documented digest of a report's figures: SHA-256 of their JSON with the keys in the order of ReportFigures (entities/screenings.ts). */
const KEYS = [
  'screening_id',
  'chain',
  'address',
  'risk_score',
  'risk_level',
  'verdict',
  'action',
  'flags',
  'confidence',
  'coverage',
  'provider_version',
  'screened_at',
];
const canonicalSha256 = (f: object) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify(Object.fromEntries(KEYS.map((k) => [k, (f as Record<string, unknown>)[k]]))))
    .digest('hex');

describeWithDb('screening commands', () => {
  useActivityTier();

  test('a screening answers from the provider (screening.completed); the same address again within the cache window reuses that answer (cached)', async () => {
    const creds = await provisionAccount();
    const scope = systemScope(creds.account_id, true, testRequest);
    const a = { chain: 'base', address: newAddress() };
    const first = await createScreening(scope, a);
    expect(first).toMatchObject({ cached: false, risk_level: expect.any(String) });
    expect(await eventTypes(first.id)).toEqual(['screening.completed']);
    const second = await createScreening(scope, a);
    expect(second).toMatchObject({ cached: true, risk_score: first.risk_score, screened_at: first.screened_at });
    expect(second.id).not.toBe(first.id);
  });

  test('an impossible address is refused (409 network_not_supported) and nothing is stored', async () => {
    const creds = await provisionAccount();
    expect(await rejection(createScreening(systemScope(creds.account_id, true), { chain: 'base', address: '0x123' }))).toMatchObject({
      code: 'network_not_supported',
    });
    expect((await db().query('SELECT count(*)::int AS n FROM screenings WHERE account_id = $1', [creds.account_id]))[0].n).toBe(0);
  });

  test('a report costs one credit; an equivalent report within the window is a free cache hit certifying the same figures under the same canonical digest', async () => {
    const creds = await provisionAccount();
    const s = await createScreening(systemScope(creds.account_id, true), { chain: 'base', address: newAddress() });
    const r1 = await createReport(systemScope(creds.account_id, true, testRequest), { id: s.id });
    expect(r1).toMatchObject({ cached: false, credit_event_type: 'consume_free', cached_from: null });
    expect(r1.data_sha256).toBe(canonicalSha256(r1.figures));
    const r2 = await createReport(systemScope(creds.account_id, true, testRequest), { id: s.id });
    expect(r2).toMatchObject({ cached: true, credit_event_type: 'cache_hit', cached_from: r1.id });
    // The cached figures come back from a jsonb column (keys in jsonb's order): the digest must not depend on that order.
    expect(r2.figures).toEqual(r1.figures);
    expect(r2.data_sha256).toBe(canonicalSha256(r2.figures));
    expect(r2.data_sha256).toBe(r1.data_sha256);
    expect(figuresSha256(JSON.parse(JSON.stringify(r1.figures, [...KEYS].reverse())))).toBe(r1.data_sha256);
  });

  test('no credit left: 402 quota_exhausted naming the insufficient ledger row; no report stored', async () => {
    const creds = await provisionAccount();
    const owner = await ownerOf(creds.account_id);
    const s = await createScreening(systemScope(creds.account_id, true), { chain: 'base', address: newAddress() });
    await db().query(
      'INSERT INTO credit_balances(user_id, free_remaining, paid_balance, total_checks) VALUES ($1,0,0,0) ON CONFLICT (user_id) DO UPDATE SET free_remaining = 0, paid_balance = 0',
      [owner],
    );
    const e = await rejection(createReport(systemScope(creds.account_id, true, testRequest), { id: s.id }));
    expect(e).toMatchObject({ type: 'quota_exhausted', details: { credit_event_id: expect.stringMatching(/^cev_/) } });
    expect((await db().query('SELECT count(*)::int AS n FROM screening_reports WHERE account_id = $1', [creds.account_id]))[0].n).toBe(0);
  });
});
