/**
 * The virtual account's workflow activity (spec 2.5, 3, 6; contracts/virtual-account.ts:
 * `settleVirtualAccountCredits`, idempotent by the credit id), registered by activities/index.ts
 * under this name. Each pending bank credit is returned or converted to USDC and sent to the
 * wallet, then moved by the account's record (activities/records/virtual-accounts.ts) with its
 * outbox event in one transaction. Fiat in minor units of its currency; USDC in 6-decimal minor units.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from 'typeorm';
import type { VirtualAccountActivities } from '../../contracts/virtual-account';
import { REFERENCE_RATES_USDC_PER_MAJOR } from '../../domain/payouts/pricing';
import {
  INACTIVE_RETURN_REASON,
  usdcForCredit,
  virtualAccountCreditTransitions,
  type VirtualAccountCreditStatus,
  type VirtualAccountStatus,
} from '../../domain/virtual-accounts';
import { WalletVirtualAccount, WalletVirtualAccountCredit } from '../../entities';
import { db, transaction } from '../../lib/db';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter, deriveAddress } from '../../providers/chain';
import { convertVirtualAccountCredit, lockVirtualAccountCredit, returnVirtualAccountCredit } from '../records/virtual-accounts';

/** The service address virtual-account USDC is sent from (sandbox: the provider's settlement treasury). */
export const VIRTUAL_ACCOUNT_TREASURY = deriveAddress('virtual-accounts:treasury');

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
  const pending = await db()
    .getRepository(WalletVirtualAccountCredit)
    .find({ where: { virtual_account_id: id, status: 'received' }, order: { created_at: 'ASC', id: 'ASC' } });
  const chain = chainAdapter();
  for (const c of pending) {
    const provider = await bankCollection().get(c.provider_credit_id);
    let to: VirtualAccountCreditStatus;
    let apply: (m: EntityManager, r: WalletVirtualAccountCredit) => Promise<WalletVirtualAccountCredit>;
    if (provider?.state === 'returned') {
      to = 'returned';
      apply = (m, r) => returnVirtualAccountCredit(m, r, { returnReason: provider.return_reason });
    } else if (va.status !== 'active' || !va.wallet_address) {
      await bankCollection().returnCredit(c.provider_credit_id, INACTIVE_RETURN_REASON);
      to = 'returned';
      apply = (m, r) => returnVirtualAccountCredit(m, r, { returnReason: INACTIVE_RETURN_REASON });
    } else {
      const rate = REFERENCE_RATES_USDC_PER_MAJOR[c.currency];
      const usdc = usdcForCredit(BigInt(c.amount_minor), c.decimals, rate);
      const tx = await chain.send(VIRTUAL_ACCOUNT_TREASURY, va.wallet_address, chain.stablecoin, usdc, `va-credit:${c.id}`);
      to = 'converted';
      apply = (m, r) =>
        convertVirtualAccountCredit(m, r, va, { usdcMinor: usdc.toString(), rateUsdcPerMajor: rate.toString(), txHash: tx });
    }
    await transaction(async (m) => {
      const r = await lockVirtualAccountCredit(m, c.id);
      if (!r || !virtualAccountCreditTransitions.can(r.status, to)) return; // already settled by a concurrent run
      await apply(m, r);
    });
  }
  return { status: va.status, settled: pending.length };
}

/** The activities of contracts/virtual-account.ts. */
export const virtualAccountWorkflowActivities = { settleVirtualAccountCredits } satisfies VirtualAccountActivities;
