/**
 * Virtual account and bank credit records (spec 2.5, 6 `virtual_account.*`): the locked reads and
 * one function per transition of domain/virtual-accounts.ts (`virtualAccountTransitions` for the
 * account, `virtualAccountCreditTransitions` for a credit), each moving the row in memory through
 * its table, setting the fields that move with the status, saving it and writing its event in the
 * caller's transaction. A move the table refuses throws IllegalTransition (409
 * `virtual_account_state_changed`). Fiat in minor units of its currency; USDC in 6-decimal minor units.
 */
import type { EntityManager } from 'typeorm';
import { notFound } from '../../domain/errors';
import { virtualAccountCreditTransitions, virtualAccountTransitions } from '../../domain/virtual-accounts';
import { WalletVirtualAccount, WalletVirtualAccountCredit } from '../../entities';
import { emitEvent, type RequestRef } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { virtualAccountCreditView, virtualAccountView } from '../../views/wallet-virtual-accounts';

/** Locks (`FOR UPDATE`) virtual account `id` of `scope`; 404 `not_found` (param `id`) otherwise. */
export async function lockVirtualAccount(
  manager: EntityManager,
  id: string,
  scope: { accountId: string; livemode: boolean },
): Promise<WalletVirtualAccount> {
  return scoped(scope, manager).lock(WalletVirtualAccount, { id }, () => notFound(`No such virtual account: ${id}.`, 'id'));
}

async function emitVirtualAccountEvent(
  m: EntityManager,
  account: WalletVirtualAccount,
  type: string,
  request: RequestRef | null,
): Promise<void> {
  await emitEvent(m, {
    accountId: account.account_id,
    livemode: account.livemode,
    type,
    objectType: 'virtual_account',
    objectId: account.id,
    object: virtualAccountView(account),
    request,
  });
}

/** `active` -> `inactive`, stamping `deactivated_at`; event `virtual_account.deactivated`. */
export async function deactivateVirtualAccount(
  manager: EntityManager,
  account: WalletVirtualAccount,
  request: RequestRef | null,
): Promise<WalletVirtualAccount> {
  virtualAccountTransitions.move(account, 'inactive');
  account.deactivated_at = new Date();
  const saved = await manager.save(account);
  await emitVirtualAccountEvent(manager, saved, 'virtual_account.deactivated', request);
  return saved;
}

/** `inactive` -> `active`, clearing `deactivated_at`; event `virtual_account.reactivated`. */
export async function reactivateVirtualAccount(
  manager: EntityManager,
  account: WalletVirtualAccount,
  request: RequestRef | null,
): Promise<WalletVirtualAccount> {
  virtualAccountTransitions.move(account, 'active');
  account.deactivated_at = null;
  const saved = await manager.save(account);
  await emitVirtualAccountEvent(manager, saved, 'virtual_account.reactivated', request);
  return saved;
}

/** Locks (`FOR UPDATE`) bank credit `id`; null when absent. */
export async function lockVirtualAccountCredit(manager: EntityManager, id: string): Promise<WalletVirtualAccountCredit | null> {
  return manager.findOne(WalletVirtualAccountCredit, { where: { id }, lock: { mode: 'pessimistic_write' } });
}

/** `received` -> `returned` to its sender with the return reason (no event). */
export async function returnVirtualAccountCredit(
  manager: EntityManager,
  credit: WalletVirtualAccountCredit,
  change: { returnReason: string | null },
): Promise<WalletVirtualAccountCredit> {
  virtualAccountCreditTransitions.move(credit, 'returned');
  credit.return_reason = change.returnReason;
  return manager.save(credit);
}

/**
 * `received` -> `converted`: `usdcMinor` sent to the wallet at `rateUsdcPerMajor` (transaction
 * `txHash`), stamping `settled_at`; event `virtual_account.deposit_received` about `account` with the credit.
 */
export async function convertVirtualAccountCredit(
  manager: EntityManager,
  credit: WalletVirtualAccountCredit,
  account: WalletVirtualAccount,
  change: { usdcMinor: string; rateUsdcPerMajor: string; txHash: string },
): Promise<WalletVirtualAccountCredit> {
  virtualAccountCreditTransitions.move(credit, 'converted');
  Object.assign(credit, {
    usdc_minor: change.usdcMinor,
    rate_usdc_per_major: change.rateUsdcPerMajor,
    tx_hash: change.txHash,
    settled_at: new Date(),
  });
  const saved = await manager.save(credit);
  await emitEvent(manager, {
    accountId: account.account_id,
    livemode: account.livemode,
    type: 'virtual_account.deposit_received',
    objectType: 'virtual_account',
    objectId: account.id,
    object: { ...virtualAccountView(account), deposit: virtualAccountCreditView(saved) },
  });
  return saved;
}
