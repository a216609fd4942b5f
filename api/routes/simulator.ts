/**
 * The simulator (ARCHITECTURE.md "Simulator"): an operator-only surface under /sim that injects what
 * the outside world would do. Mounted only when SIMULATOR_ENABLED=true (dev and tests).
 * - POST /sim/chain/transfers `{ chain, to_address, asset, amount (minor units), from_address?, tx_hash? }`:
 *   the chain adapter observes that transfer exactly as a real chain watcher would.
 * - GET /sim/emails?related_object_id=: emails the sandbox email provider recorded.
 */
import Router from '@koa/router';
import Joi from 'joi';
import { DomainError } from '../../domain/errors';
import { currencyDecimals } from '../../domain/money';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import type { AppState } from '../context';
import { validate } from '../operation';

const transferBody = Joi.object({
  chain: Joi.string().required(),
  to_address: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/).required(),
  asset: Joi.string().required(),
  amount: Joi.string().pattern(/^[0-9]+$/).pattern(/^0+$/, { invert: true }).required(),
  from_address: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/),
  tx_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
});

/** Router for `/sim/...`. */
export function simulatorRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/sim' });

  r.post('/chain/transfers', async (ctx) => {
    const b = validate<{ chain: string; to_address: string; asset: string; amount: string; from_address?: string; tx_hash?: string }>(
      transferBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const chain = chainAdapter();
    if (b.chain !== chain.chain) throw new DomainError('invalid_request', 'network_not_supported', `The sandbox chain is \`${chain.chain}\`.`, { param: 'chain' });
    let decimals: number;
    try { decimals = currencyDecimals(b.asset); } catch { throw new DomainError('invalid_request', 'parameter_invalid', `Unknown asset \`${b.asset}\`.`, { param: 'asset' }); }
    const t = await chain.inject({ chain: b.chain, asset: b.asset, to_address: b.to_address, amount: BigInt(b.amount), decimals, from_address: b.from_address ?? null, tx_hash: b.tx_hash ?? null });
    ctx.status = 201;
    ctx.body = { object: 'sim.chain_transfer', chain: t.chain, asset: t.asset, from_address: t.from_address, to_address: t.to_address, amount: t.amount.toString(), decimals: t.decimals, tx_hash: t.tx_hash };
  });

  r.get('/emails', async (ctx) => {
    const related = typeof ctx.query.related_object_id === 'string' ? ctx.query.related_object_id : null;
    const rows = await db().query(
      `SELECT id, to_address, template, subject, body, related_object_id, created_at FROM sandbox_emails
        WHERE ($1::text IS NULL OR related_object_id = $1) ORDER BY created_at DESC LIMIT 100`, [related]);
    ctx.body = { object: 'list', data: rows, has_more: false, next_cursor: null };
  });

  return r;
}
