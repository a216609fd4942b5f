/**
 * Service wallet commands (spec 4.5, 2.5): registering the account's passkey wallet.
 */
import { getAddress, isAddress } from 'viem';
import { DomainError } from '../../domain/errors';
import { Wallet } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { emitEvent } from '../../lib/outbox';
import { chainAdapter } from '../../providers/chain';
import { walletView } from '../../views/wallet';

/**
 * `POST /wallet/wallets`: registers the account's wallet on this network (one transaction). 400
 * `parameter_invalid` for a non-EVM address or a bad EIP-55 checksum; 409 `wallet_already_exists`.
 * Stores the EIP-55 form and emits `wallet.created` (catalogued: shipped by its switch).
 */
export async function createWallet(a: { accountId: string; address: string; credentialId: string; label: string | null }): Promise<Wallet> {
  if (!isAddress(a.address, { strict: false })) throw new DomainError('invalid_request', 'parameter_invalid', '`address` must be an EVM address.', { param: 'address' });
  const hex = a.address.slice(2);
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && !isAddress(a.address, { strict: true })) {
    throw new DomainError('invalid_request', 'parameter_invalid', '`address` has an invalid EIP-55 checksum.', { param: 'address' });
  }
  const chain = chainAdapter();
  return transaction(async (m) => {
    const existing = await m.findOne(Wallet, { where: { account_id: a.accountId, network: chain.network }, lock: { mode: 'pessimistic_write' } });
    if (existing) {
      throw new DomainError('conflict', 'wallet_already_exists', 'This account already has an active wallet on this network.', { details: { wallet_id: existing.id } });
    }
    const row = m.create(Wallet, {
      id: newId('wlt_'), account_id: a.accountId, livemode: true, address: getAddress(a.address), chain: chain.chain,
      network: chain.network, status: 'active', label: a.label, credential_id: a.credentialId,
    });
    const saved = await m.save(row);
    await emitEvent(m, { accountId: a.accountId, livemode: saved.livemode, type: 'wallet.created', objectType: 'wallet', objectId: saved.id, object: walletView(saved) });
    return saved;
  });
}
