/**
 * The simulator (ARCHITECTURE.md "Simulator"): an operator-only surface under /sim that injects what
 * the outside world would do. Mounted only when SIMULATOR_ENABLED=true (dev and tests).
 * - POST /sim/chain/transfers `{ chain, to_address, asset, amount (minor units), from_address?, tx_hash? }`:
 *   the chain adapter observes that transfer exactly as a real chain watcher would.
 * - GET /sim/emails?related_object_id=: emails the sandbox email provider recorded.
 * - POST /sim/providers/checkout/{checkout_id}/complete|fail|expire (`cco_` id; complete takes an
 *   optional `{ amount }` in minor units, default the price): the person pays at, fails at or
 *   abandons the hosted checkout; the provider then notifies the product (credits granted once).
 * - POST /sim/providers/screening/signals `{ chain, address, risk_score, flags?, unavailable? }`:
 *   what the address screening provider reports for that address from now on.
 */
import Router from '@koa/router';
import Joi from 'joi';
import { DomainError } from '../../domain/errors';
import { currencyDecimals } from '../../domain/money';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import type { AppState } from '../context';
import { validate } from '../operation';
import { handleCheckoutNotification } from '../../activities/credits';
import { checkAddress, resolveChain } from '../../domain/addresses';
import { checkoutProvider, CheckoutTransitionError } from '../../providers/checkout';
import { addressScreeningProvider } from '../../providers/screening';
import { creditCheckoutView } from '../views/credits';

const transferBody = Joi.object({
  chain: Joi.string().required(),
  to_address: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/).required(),
  asset: Joi.string().required(),
  amount: Joi.string().pattern(/^[0-9]+$/).pattern(/^0+$/, { invert: true }).required(),
  from_address: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/),
  tx_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
});

const checkoutCompleteBody = Joi.object({ amount: Joi.string().pattern(/^[0-9]+$/) });

const screeningSignalBody = Joi.object({
  chain: Joi.alternatives(Joi.string(), Joi.number()).required(),
  address: Joi.string().required(),
  risk_score: Joi.number().integer().min(0).max(100).required(),
  flags: Joi.array().items(Joi.string().max(100)).max(50).default([]),
  unavailable: Joi.boolean().default(false),
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

  r.post('/providers/checkout/:checkout_id/:action', async (ctx) => {
    const action = ctx.params.action;
    if (action !== 'complete' && action !== 'fail' && action !== 'expire') throw new DomainError('not_found', 'not_found', `No simulator action ${action}.`);
    const b = validate<{ amount?: string }>(action === 'complete' ? checkoutCompleteBody : undefined, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    let n;
    try {
      n = await checkoutProvider().simulate(ctx.params.checkout_id, action, { amountMinor: b.amount === undefined ? undefined : BigInt(b.amount) });
    } catch (e) {
      if (e instanceof CheckoutTransitionError) throw new DomainError('conflict', 'checkout_session_closed', e.message);
      throw e;
    }
    if (!n) throw new DomainError('not_found', 'not_found', `No checkout session for ${ctx.params.checkout_id}.`, { param: 'checkout_id' });
    const result = await handleCheckoutNotification(n);
    if (!result) throw new DomainError('not_found', 'not_found', `No checkout ${ctx.params.checkout_id}.`, { param: 'checkout_id' });
    ctx.body = {
      object: 'sim.checkout_notification', outcome: n.outcome, session_id: n.sessionId, granted: result.granted,
      checkout: creditCheckoutView(result.checkout),
    };
  });

  r.post('/providers/screening/signals', async (ctx) => {
    const b = validate<{ chain: string | number; address: string; risk_score: number; flags: string[]; unavailable: boolean }>(
      screeningSignalBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const chain = resolveChain(b.chain);
    if (!chain) throw new DomainError('invalid_request', 'parameter_invalid', 'Unsupported chain.', { param: 'chain' });
    const checked = checkAddress(chain, b.address, chainAdapter().network);
    if (!checked.ok) throw new DomainError('invalid_request', 'address_invalid', checked.reason, { param: 'address' });
    await addressScreeningProvider().setSignal(chain, checked.key, { risk_score: b.risk_score, flags: b.flags, unavailable: b.unavailable });
    ctx.status = 201;
    ctx.body = { object: 'sim.screening_signal', chain, address: checked.address, risk_score: b.risk_score, flags: b.flags, unavailable: b.unavailable };
  });

  return r;
}
