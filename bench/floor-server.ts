/**
 * The "data-layer floor" for bench/run.ts: a bare Koa server (same koa-body, no auth, rate limit,
 * validation, idempotency lookup, request log or middleware) that calls the product's own data
 * layer for one payment link per request:
 * - `GET /links/:id`: the product's read (`SELECT * FROM payment_links ...`) and its wire view;
 * - `POST /links`: the product's create statement (activities/payment-links/create.ts `createLink` with an inline
 *   idempotency claim: idempotency record, link, outbox event and NOTIFY in one statement).
 * The gap between this server and the bare one is what the spec's writes cost in PostgreSQL; the
 * gap between the product and this server is what the HTTP pipeline costs. Env: DATABASE_URL,
 * PORT, BENCH_ACCOUNT_ID.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { createLink, type CreateLinkInput } from '../activities/payment-links/commands';
import { systemScope } from '../activities/scope';
import { linkViewContext } from '../lib/rails-availability';
import { paymentLinkView } from '../views/payment-link';
import type { PaymentLink } from '../entities';
import { db, initDb } from '../lib/db';

const accountId = process.env.BENCH_ACCOUNT_ID!;

async function main(): Promise<void> {
  await initDb(process.env.DATABASE_URL!, 20);
  const app = new Koa();
  const r = new Router();
  r.get('/links/:id', async (ctx) => {
    const rows: PaymentLink[] = await db().query('SELECT * FROM payment_links WHERE id = $1 AND account_id = $2 AND livemode = $3', [
      ctx.params.id,
      accountId,
      true,
    ]);
    if (!rows[0]) ctx.throw(404);
    ctx.body = paymentLinkView(rows[0], await linkViewContext(accountId));
  });
  r.post('/links', async (ctx) => {
    const key = `floor_${crypto.randomBytes(12).toString('hex')}`;
    const claim = { accountId, route: 'POST /v1/payment_links', key, livemode: true, hash: key, status: 201 };
    const { wire } = await createLink(systemScope(accountId, true, { id: `req_${key}`, idempotency_key: key }), {
      ...((ctx.request as { body?: unknown }).body as CreateLinkInput),
      claim,
    });
    ctx.status = 201;
    ctx.body = wire;
  });
  app.use(koaBody());
  app.use(r.routes());
  app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
}

void main();
