/**
 * The wallet's commands, what the routes call (spec 2.5): registering the account's passkey wallet
 * on this network and its external bank accounts (the destinations of off-ramps). Every command is
 * `(scope, input)` (activities/scope.ts); lookups go through the scoped finder (lib/scoped.ts).
 */
import { getAddress, isAddress } from 'viem';
import { normalizeBeneficiary, type BeneficiaryInput } from '../../domain/bank-details';
import { DomainError } from '../../domain/errors';
import { Wallet, WalletExternalAccount } from '../../entities';
import { db, transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { scoped } from '../../lib/scoped';
import { encrypt } from '../../lib/secrets';
import { chainAdapter } from '../../providers/chain';
import { walletView } from '../../views/wallet';
import type { Scope } from '../scope';

/**
 * `POST /wallet/wallets`: registers the account's wallet on this network (one transaction). 400
 * `parameter_invalid` for a non-EVM address or a bad EIP-55 checksum; 409 `wallet_already_exists`.
 * Stores the EIP-55 form and emits `wallet.created` (catalogued: shipped by its switch).
 */
export async function createWallet(scope: Scope, input: { address: string; credential_id: string; label: string | null }): Promise<Wallet> {
  if (!isAddress(input.address, { strict: false }))
    throw new DomainError('invalid_request', 'parameter_invalid', '`address` must be an EVM address.', { param: 'address' });
  const hex = input.address.slice(2);
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && !isAddress(input.address, { strict: true })) {
    throw new DomainError('invalid_request', 'parameter_invalid', '`address` has an invalid EIP-55 checksum.', { param: 'address' });
  }
  const chain = chainAdapter();
  return transaction(async (m) => {
    const existing = await scoped(scope, m)
      .query(Wallet, 'w')
      .andWhere('w.network = :n', { n: chain.network })
      .setLock('pessimistic_write')
      .getOne();
    if (existing) {
      throw new DomainError('conflict', 'wallet_already_exists', 'This account already has an active wallet on this network.', {
        details: { wallet_id: existing.id },
      });
    }
    const row = m.create(Wallet, {
      id: newId('wlt_'),
      account_id: scope.accountId,
      livemode: true,
      address: getAddress(input.address),
      chain: chain.chain,
      network: chain.network,
      status: 'active',
      label: input.label,
      credential_id: input.credential_id,
    });
    const saved = await m.save(row);
    await emitEvent(m, {
      accountId: scope.accountId,
      livemode: saved.livemode,
      type: 'wallet.created',
      objectType: 'wallet',
      objectId: saved.id,
      object: walletView(saved),
    });
    return saved;
  });
}

/** `POST /wallet/external_accounts`: stores `input` (400 on the rail's field rules, from normalizeBeneficiary); returns the row (masked). */
export async function createExternalAccount(scope: Scope, input: BeneficiaryInput): Promise<WalletExternalAccount> {
  const { details, masked } = normalizeBeneficiary(input);
  const repo = db().getRepository(WalletExternalAccount);
  return repo.save(
    repo.create({
      id: newId('ba_'),
      account_id: scope.accountId,
      livemode: scope.livemode,
      rail: masked.rail,
      currency: masked.currency,
      masked,
      details_ciphertext: encrypt(JSON.stringify(details)),
    }),
  );
}
