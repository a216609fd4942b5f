/**
 * The conversion's workflow activities (spec 2.5, 3, 6; contracts/conversion.ts: `checkConversion`,
 * `expireConversion`), registered by activities/index.ts under these names. Each step reads what the
 * chain says now and applies the transitions the conversion's record allows
 * (activities/records/conversions.ts), each with its outbox event in one transaction. A missing row
 * is an Error named `NotFound`. Amounts in 6-decimal minor units.
 */
import type { EntityManager } from 'typeorm';
import type { ConversionActivities, ConversionState } from '../../contracts/conversion';
import { CONVERSION_CONFIRM_MS, conversionTransitions, type ConversionStatus } from '../../domain/wallet-deposits';
import { WalletConversion } from '../../entities';
import { db, transaction } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { failConversion, lockConversion, settleConversion } from '../records/conversions';
import { CONVERSION_ROUTER } from './queries';

/**
 * Moves conversion `id` from `from` to `to` under a row lock through `apply`, a transition of its
 * record (activities/records/conversions.ts, which writes the event). No change when it is already
 * in `to` or no longer in `from`.
 */
async function stepConversion(
  id: string,
  from: ConversionStatus,
  to: ConversionStatus,
  apply: (m: EntityManager, c: WalletConversion) => Promise<WalletConversion>,
): Promise<WalletConversion> {
  return transaction(async (m) => {
    const c = await lockConversion(m, id);
    if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
    if (c.status === to || c.status !== from) return c;
    return apply(m, c);
  });
}

const conversionState = (c: WalletConversion): ConversionState => ({
  status: c.status,
  terminal: conversionTransitions.terminal.includes(c.status as ConversionStatus),
  signableUntil: c.signable_until.toISOString(),
  confirmBy: c.submitted_at ? new Date(c.submitted_at.getTime() + CONVERSION_CONFIRM_MS).toISOString() : null,
  createdAt: c.created_at.toISOString(),
});

async function loadConversion(id: string): Promise<WalletConversion> {
  const c = await db().getRepository(WalletConversion).findOneBy({ id });
  if (!c) throw Object.assign(new Error(`conversion ${id} not found`), { name: 'NotFound' });
  return c;
}

/**
 * Workflow step: a `submitted` conversion whose transaction is on the chain is checked against
 * what was built (chain, token, amount in, sender = the wallet, recipient = the router): a match
 * settles (the router sends `amount_out` of `to_asset` to the wallet, idempotent by the
 * conversion id), a mismatch fails (`source_tx_mismatch`). Not on chain yet: unchanged.
 */
export async function checkConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status !== 'submitted' || !c.source_tx_hash) return conversionState(c);
  const chain = chainAdapter();
  const tx = await chain.transaction(c.source_tx_hash);
  if (!tx) return conversionState(c);
  const lower = (s: string | null) => (s ?? '').toLowerCase();
  const matches =
    tx.chain === c.chain &&
    tx.asset === c.from_asset &&
    tx.amount === BigInt(c.amount_in_minor) &&
    lower(tx.from_address) === lower(c.wallet_address) &&
    lower(tx.to_address) === lower(CONVERSION_ROUTER);
  if (!matches)
    return conversionState(
      await stepConversion(id, 'submitted', 'failed', (m, row) => failConversion(m, row, { reason: 'source_tx_mismatch' })),
    );
  const settlement = await chain.send(CONVERSION_ROUTER, c.wallet_address, c.to_asset, BigInt(c.amount_out_minor), `conversion:${id}`);
  return conversionState(
    await stepConversion(id, 'submitted', 'settled', (m, row) => settleConversion(m, row, { settlementTxHash: settlement })),
  );
}

/**
 * Workflow step at a deadline (workflow time): a `built` conversion never submitted fails
 * `expired`; a `submitted` one gets a last look at the chain, then fails `source_tx_not_found`.
 */
export async function expireConversion(id: string): Promise<ConversionState> {
  const c = await loadConversion(id);
  if (c.status === 'built')
    return conversionState(await stepConversion(id, 'built', 'failed', (m, row) => failConversion(m, row, { reason: 'expired' })));
  const s = await checkConversion(id);
  if (s.status !== 'submitted') return s;
  return conversionState(
    await stepConversion(id, 'submitted', 'failed', (m, row) => failConversion(m, row, { reason: 'source_tx_not_found' })),
  );
}

/** The activities of contracts/conversion.ts (registered by activities/index.ts). */
export const conversionWorkflowActivities = { checkConversion, expireConversion } satisfies ConversionActivities;
