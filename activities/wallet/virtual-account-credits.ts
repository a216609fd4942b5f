/**
 * Bank credits of virtual accounts become USDC in the holder's wallet (spec 2.5, 4.5, part 6
 * `virtual_account.deposit_received`; issue 14). The collection provider reports a credit (the
 * simulator's `/sim/bank/credits`); it is recorded against its virtual account and the account's
 * workflow converts it at the reference rate and sends the USDC on chain to the wallet,
 * idempotent by the credit id. A credit to a deactivated account, or one its sending bank
 * returned first, is not converted. Fiat in minor units of its currency; USDC minor units (6 decimals).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { INACTIVE_RETURN_REASON, usdcForCredit, type VirtualAccountStatus } from '../../domain/virtual-accounts';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import { WalletVirtualAccount, WalletVirtualAccountCredit } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { bankCollection, type ProviderCredit } from '../../providers/bank-collection';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { virtualAccountCreditView, virtualAccountView } from '../../views/wallet-virtual-accounts';
import { wakeVirtualAccount } from './signals';

/** The service address virtual-account USDC is sent from (sandbox: the provider's settlement treasury). */
export const VIRTUAL_ACCOUNT_TREASURY = deriveAddress('virtual-accounts:treasury');

/**
 * Records provider credit `c` (matched to `va_...` by the provider) against its virtual account
 * (idempotent by the provider's credit id) and wakes the account's workflow. Returns false when
 * the credit is not a virtual account's.
 */
export async function recordVirtualAccountCredit(c: ProviderCredit, decimals: number): Promise<boolean> {
  if (!c.client_reference?.startsWith('va_')) return false;
  const rows: Array<{ id: string; account_id: string }> = await db().query('SELECT id, account_id FROM wallet_virtual_accounts WHERE id = $1', [c.client_reference]);
  const va = rows[0];
  if (!va) return false;
  await db().query(
    `INSERT INTO wallet_virtual_account_credits(id, virtual_account_id, account_id, provider_credit_id, rail, currency, amount_minor, decimals, sender_name, reference, status)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,'received') ON CONFLICT (provider_credit_id) DO NOTHING`,
    [newId('vac_'), va.id, va.account_id, c.id, c.rail, c.currency, c.amount.toString(), decimals, c.sender_name, c.reference]);
  await wakeVirtualAccount(va.id, va.account_id);
  return true;
}

/**
 * The workflow's step: settles every `received` credit of virtual account `id`: returned to its
 * sender when the account is inactive (provider return `R16 Account frozen`) or already returned
 * by the sending bank; else converted at the reference rate (rounded down) and sent to the wallet
 * on chain (idempotency key `va-credit:<credit id>`), then `converted` with
 * `virtual_account.deposit_received`. Returns the account's status. Throws ApplicationFailure
 * `NotFound` when the account is gone.
 */
export async function settleVirtualAccountCredits(id: string): Promise<{ status: VirtualAccountStatus; settled: number }> {
  const va = await db().getRepository(WalletVirtualAccount).findOneBy({ id });
  if (!va) throw ApplicationFailure.nonRetryable(`virtual account ${id} not found`, 'NotFound');
  const pending = await db().getRepository(WalletVirtualAccountCredit).find({ where: { virtual_account_id: id, status: 'received' }, order: { created_at: 'ASC', id: 'ASC' } });
  const chain = chainAdapter();
  for (const c of pending) {
    const provider = await bankCollection().get(c.provider_credit_id);
    let set: Partial<WalletVirtualAccountCredit>;
    if (provider?.state === 'returned') {
      set = { status: 'returned', return_reason: provider.return_reason };
    } else if (va.status !== 'active' || !va.wallet_address) {
      await bankCollection().returnCredit(c.provider_credit_id, INACTIVE_RETURN_REASON);
      set = { status: 'returned', return_reason: INACTIVE_RETURN_REASON };
    } else {
      const rate = REFERENCE_RATES_USDC_PER_MAJOR[c.currency];
      const usdc = usdcForCredit(BigInt(c.amount_minor), c.decimals, rate);
      const tx = await chain.send(VIRTUAL_ACCOUNT_TREASURY, va.wallet_address, chain.stablecoin, usdc, `va-credit:${c.id}`);
      set = { status: 'converted', usdc_minor: usdc.toString(), rate_usdc_per_major: rate.toString(), tx_hash: tx, settled_at: new Date() };
    }
    await transaction(async (m) => {
      const r = await m.findOne(WalletVirtualAccountCredit, { where: { id: c.id }, lock: { mode: 'pessimistic_write' } });
      if (!r || r.status !== 'received') return;
      Object.assign(r, set);
      const saved = await m.save(r);
      if (saved.status === 'converted') {
        await emitEvent(m, {
          accountId: va.account_id, livemode: va.livemode, type: 'virtual_account.deposit_received', objectType: 'virtual_account', objectId: va.id,
          object: { ...virtualAccountView(va), deposit: virtualAccountCreditView(saved) },
        });
      }
    });
  }
  return { status: va.status, settled: pending.length };
}

/** The activities the virtual-account workflow calls. */
export const virtualAccountWorkflowActivities = { settleVirtualAccountCredits };
export type VirtualAccountWorkflowActivities = typeof virtualAccountWorkflowActivities;
