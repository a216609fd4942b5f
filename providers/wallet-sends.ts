/**
 * Prepared service-wallet sends (spec 2.5: nothing in the API can sign; 4.3 cancel rules). The
 * service prepares an unsigned send from the holder's wallet to a payout's funding address; the
 * holder signs it outside the service with a passkey while it is signable. The wallet provider
 * can close an unsigned send so it can never be signed.
 *
 * Sandbox: `wallet_sends` rows; signing is the simulator's `/sim/wallet/sends/{id}/sign` (the
 * holder acting), which debits the wallet on the sandbox chain ledger and delivers the USDC to the
 * funding address across networks in one transaction. Fault `wallet.close_fails` (per account) makes closing fail.
 */
import crypto from 'node:crypto';
import { transaction } from '../lib/db';
import { chainAdapter, deriveAddress, type ObservedTransfer } from './chain';
import { faultValue } from './sandbox-faults';

/** Raised when the provider cannot close unsigned sends right now. */
export class WalletSendCloseError extends Error {
  override readonly name = 'WalletSendCloseError';
}

/** Router address the sandbox cross-network send passes through. */
export const CROSS_NETWORK_ROUTER = deriveAddress('wallet:router');

/**
 * Closes every unsigned send of `payoutId` (signable or expired) of the holder `accountId`:
 * afterwards none can be signed. Throws WalletSendCloseError when the provider cannot close them
 * (sandbox: fault `wallet.close_fails` set for that account). Returns how many were closed.
 */
export async function closeUnsignedSends(accountId: string, payoutId: string): Promise<number> {
  if ((await faultValue(accountId, 'wallet.close_fails')) === 'true') throw new WalletSendCloseError('the wallet provider could not close unsigned sends');
  return transaction(async (m) => {
    const r: [unknown[], number] = await m.query(
      `UPDATE wallet_sends SET status = 'closed', closed_at = now() WHERE account_id = $1 AND payout_id = $2 AND status IN ('signable','expired')`, [accountId, payoutId]);
    return r[1] ?? 0;
  });
}

/**
 * Simulator: the holder signs send `id`. In one transaction: refuses unless signable and not past
 * `signable_until`, checks the wallet balance covers it, debits the wallet on its chain (to the
 * router) and credits the funding address on the destination chain. Reports the delivery to the
 * chain watchers after commit. Throws Error with a reason on refusal.
 */
export async function signWalletSend(id: string, now = new Date()): Promise<{ tx_hash: string }> {
  const chain = chainAdapter();
  const delivery = await transaction(async (m) => {
    const rows: Array<{ id: string; status: string; signable_until: Date; wallet_address: string; wallet_chain: string; to_address: string; to_chain: string; asset: string; amount_minor: string; delivery_minor: string }> =
      await m.query('SELECT * FROM wallet_sends WHERE id = $1 FOR UPDATE', [id]);
    const s = rows[0];
    if (!s) throw new Error('no such wallet send');
    if (s.status !== 'signable' || s.signable_until.getTime() <= now.getTime()) throw new Error(`wallet send is ${s.status === 'signable' ? 'expired' : s.status}`);
    // Serialise sends of one wallet so two signatures cannot spend the same balance.
    await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wallet:${s.wallet_address.toLowerCase()}`]);
    const bal: Array<{ b: string }> = await m.query(
      `SELECT (COALESCE(SUM(amount_minor) FILTER (WHERE lower(to_address) = lower($1)), 0)
             - COALESCE(SUM(amount_minor) FILTER (WHERE lower(from_address) = lower($1)), 0))::text AS b
         FROM sandbox_chain_transfers WHERE chain = $2 AND asset = $3`, [s.wallet_address, s.wallet_chain, s.asset]);
    if (BigInt(bal[0].b) < BigInt(s.amount_minor)) throw new Error('wallet balance does not cover the send');
    const debitHash = `0x${crypto.createHash('sha256').update(`wallet-send:${id}:debit`).digest('hex')}`;
    const creditHash = `0x${crypto.createHash('sha256').update(`wallet-send:${id}:delivery`).digest('hex')}`;
    await m.query(
      `INSERT INTO sandbox_chain_transfers(chain, asset, from_address, to_address, amount_minor, decimals, tx_hash, idempotency_key)
       VALUES ($1,$2,$3,$4,$5,6,$6,$7), ($8,$2,$4,$9,$10,6,$11,$12)`,
      [s.wallet_chain, s.asset, s.wallet_address, CROSS_NETWORK_ROUTER, s.amount_minor, debitHash, `wallet-send:${id}:debit`,
        s.to_chain, s.to_address, s.delivery_minor, creditHash, `wallet-send:${id}:delivery`]);
    await m.query(`UPDATE wallet_sends SET status = 'signed', signed_at = now(), tx_hash = $2 WHERE id = $1`, [id, debitHash]);
    const t: ObservedTransfer = { chain: s.to_chain, asset: s.asset, from_address: CROSS_NETWORK_ROUTER, to_address: s.to_address, amount: BigInt(s.delivery_minor), decimals: 6, tx_hash: creditHash };
    return { t, debitHash };
  });
  await chain.report(delivery.t);
  return { tx_hash: delivery.debitHash };
}
