/**
 * `npm run bench:writes`: what one idempotent `POST /v1/payment_links` costs PostgreSQL, piece by
 * piece, without HTTP. On a throwaway stack, from this process's pool at 32 concurrent callers for
 * BENCH_SECONDS (4) each, statements per second of:
 * - the bare server's insert (one row, primary key only: bench/bare-server.ts);
 * - three rows of the same sizes in one statement into primary-key-only tables (the least any
 *   design can write: the link, its outbox event and the idempotency record, spec 2.6 and
 *   ARCHITECTURE.md data flow 3);
 * - each of the product's three inserts alone (with the product's indexes), the event with its NOTIFY;
 * - the product's whole create (activities/links.ts `createLink`: checks, build, view, statement).
 * Prints each as a rate and as microseconds per statement at that concurrency.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import { createLink, type CreateLinkInput } from '../activities/payment-links/commands';
import { systemScope } from '../activities/scope';
import { EVENT_COLUMNS, eventRowHead, eventRowTail } from '../lib/outbox';
import { db } from '../lib/db';
import { runBench } from './harness';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = 32;
const log = (m: string) => process.stderr.write(`[writes] ${m}\n`);
const hex = (n: number) => crypto.randomBytes(n).toString('hex');

/** Runs `fn` from CONCURRENCY callers for SECONDS; statements per second. */
async function rate(fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await fn();
        n++;
      }
    }),
  );
  return n / SECONDS;
}

runBench({ name: 'writes', tag: 'writes', split: true, log }, async (_stack, creds) => {
  const accountId = creds.account_id;
  await db()
    .query(`CREATE TABLE IF NOT EXISTS bench_bare_links (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE IF NOT EXISTS bench_t1 (id text PRIMARY KEY, body jsonb NOT NULL);
    CREATE TABLE IF NOT EXISTS bench_t2 (id text PRIMARY KEY, body jsonb NOT NULL);
    CREATE TABLE IF NOT EXISTS bench_t3 (id text PRIMARY KEY, body jsonb NOT NULL)`);
  const input = {
    amount: { amount: '10000', currency: 'USD', decimals: 2 },
    title: 'Bench link',
    accepted_rail_kinds: ['crypto'],
  } as CreateLinkInput;
  const create = () => {
    const key = hex(12);
    return createLink(systemScope(accountId, true, { id: `req_${key}`, idempotency_key: key }), {
      ...input,
      claim: { accountId, route: 'POST /v1/payment_links', key, livemode: true, hash: key, status: 201 },
    });
  };
  const { link, wire } = await create();
  const linkJson = JSON.stringify(link);
  const wireJson = JSON.stringify(wire);
  const freshLink = () =>
    linkJson
      .replace(link.id, `pl_${hex(10)}`)
      .replace(link.short_code!, hex(6))
      .replace(`"${link.reference_id}"`, `"CP-b${hex(8)}"`);
  const event = { accountId, livemode: true, type: 'payment_link.created', objectType: 'payment_link', objectId: link.id, request: null };
  const eventSql = `INSERT INTO events(${EVENT_COLUMNS}) SELECT $1,$2,$3,$4,$5,$6,$7, jsonb_build_object('object', $8::jsonb), $9,$10,$11,$12`;

  const rows: Array<[string, number]> = [];
  const measure = async (name: string, fn: () => Promise<unknown>) => {
    log(name);
    rows.push([name, await rate(fn)]);
  };
  await measure('bare insert (1 row, primary key only)', () =>
    db().query('INSERT INTO bench_bare_links(id, body) VALUES ($1, $2)', [hex(12), JSON.stringify(input)]),
  );
  await measure('3 rows in one statement, primary keys only', () =>
    db().query(
      'WITH a AS (INSERT INTO bench_t1 VALUES ($1, $2::jsonb) RETURNING id), b AS (INSERT INTO bench_t2 SELECT id, $3::jsonb FROM a RETURNING id) INSERT INTO bench_t3 SELECT id, $2::jsonb FROM b',
      [hex(12), wireJson, linkJson],
    ),
  );
  await measure('payment_links insert alone', () =>
    db().query('INSERT INTO payment_links SELECT r.* FROM jsonb_populate_record(NULL::payment_links, $1::jsonb) r', [freshLink()]),
  );
  await measure('idempotency_records insert alone', () =>
    db().query(
      `INSERT INTO idempotency_records(account_id, route, key, livemode, request_hash, state, response_status, response_body, redactions, completed_at)
     VALUES ($1, 'r', $2, true, 'h', 'completed', 201, $3::json, '[]', now())`,
      [accountId, hex(12), wireJson],
    ),
  );
  await measure('events insert alone', () => db().query(eventSql, [...eventRowHead(event), wireJson, ...eventRowTail(event)]));
  await measure('events insert + NOTIFY', () =>
    db().query(`WITH e AS (${eventSql} RETURNING id) SELECT pg_notify('events', e.id) FROM e`, [
      ...eventRowHead(event),
      wireJson,
      ...eventRowTail(event),
    ]),
  );
  await measure('createLink (checks, build, view, the one statement)', create);

  const bare = rows[0][1];
  process.stdout.write(`\n${CONCURRENCY} concurrent callers, ${SECONDS} s each\n`);
  for (const [name, r] of rows) {
    process.stdout.write(
      `${name.padEnd(54)} ${r.toFixed(0).padStart(7)}/s ${(1e6 / r).toFixed(0).padStart(6)} us  ${((100 * r) / bare).toFixed(0).padStart(4)}% of bare\n`,
    );
  }
});
