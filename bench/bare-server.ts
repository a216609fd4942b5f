/**
 * The baseline for bench/run.ts: a bare Koa + pg server doing exactly one indexed select
 * (GET /links/:id) or one insert (POST /links) per request, no auth, validation or idempotency.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import crypto from 'node:crypto';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = new Koa();
const r = new Router();
r.get('/links/:id', async (ctx) => {
  const { rows } = await pool.query('SELECT * FROM payment_links WHERE id = $1', [ctx.params.id]);
  if (!rows[0]) ctx.throw(404);
  ctx.body = rows[0];
});
r.post('/links', async (ctx) => {
  const id = `bare_${crypto.randomBytes(12).toString('hex')}`;
  await pool.query('INSERT INTO bench_bare_links(id, body) VALUES ($1, $2)', [
    id,
    JSON.stringify((ctx.request as { body?: unknown }).body ?? {}),
  ]);
  ctx.status = 201;
  ctx.body = { id };
});
app.use(koaBody());
app.use(r.routes());
app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
