/**
 * The payout's prepared service-wallet sends (`wallet_sends` rows; spec 2.5, 4.3 cancel rules):
 * the wallet provider (providers/wallet-sends.ts) acts (closes the unsigned sends, delivers a
 * signed one), then the send's record module (activities/records/wallet-sends.ts) moves the rows.
 */
import { WalletSend } from '../../entities';
import { db, transaction } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { closeUnsignedSends, signSend } from '../../providers/wallet-sends';
import { closeWalletSends, markWalletSendSigned } from '../records/wallet-sends';

/**
 * Closes every unsigned send (signable or expired) of payout `payoutId` of holder `accountId`:
 * the wallet provider closes them (throws providers/wallet-sends.ts WalletSendCloseError when it
 * cannot; nothing is moved then), then the rows move to `closed`. Returns how many moved.
 */
export async function closePayoutWalletSends(accountId: string, payoutId: string): Promise<number> {
  await closeUnsignedSends(accountId, payoutId);
  const moved = await closeWalletSends(db().manager, { accountId, payoutId });
  return moved.length;
}

/**
 * Simulator (the holder acting, `POST /sim/wallet/sends/{id}/sign`): the holder signs send `id`.
 * In one transaction: refuses unless the send is signable and not past `signable_until`, has the
 * wallet provider debit the wallet and deliver to the funding address (providers/wallet-sends.ts
 * `signSend`, which refuses when the balance does not cover it), and moves the send to `signed`
 * with the debit's hash. Reports the delivery to the chain watchers after commit. Throws Error
 * with a reason on refusal.
 */
export async function signWalletSend(id: string, now = new Date()): Promise<{ tx_hash: string }> {
  const delivery = await transaction(async (m) => {
    const s = await m.findOne(WalletSend, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!s) throw new Error('no such wallet send');
    if (s.status !== 'signable' || s.signable_until.getTime() <= now.getTime())
      throw new Error(`wallet send is ${s.status === 'signable' ? 'expired' : s.status}`);
    const out = await signSend(m, s);
    await markWalletSendSigned(m, id, { txHash: out.debitHash });
    return out;
  });
  await chainAdapter().report(delivery.delivery);
  return { tx_hash: delivery.debitHash };
}
