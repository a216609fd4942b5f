/**
 * The holder's external bank accounts (`ba_`; spec 2.5, 4.5; issue 14): where an off-ramp pays.
 * Raw bank details cross the boundary once (domain/bank-details.ts normalizeBeneficiary, stored
 * only encrypted by lib/secrets) and are read back masked.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { normalizeBeneficiary, type BankDetails, type BeneficiaryInput } from '../../domain/bank-details';
import { notFound } from '../../domain/errors';
import { WalletExternalAccount } from '../../entities';
import { db } from '../../lib/db';
import { newId } from '../../lib/ids';
import { decrypt, encrypt } from '../../lib/secrets';

/** `POST /wallet/external_accounts`: stores `input` (400 on the rail's field rules, from normalizeBeneficiary); returns the row (masked). */
export async function createExternalAccount(a: { accountId: string; livemode: boolean; input: BeneficiaryInput }): Promise<WalletExternalAccount> {
  const { details, masked } = normalizeBeneficiary(a.input);
  const repo = db().getRepository(WalletExternalAccount);
  return repo.save(repo.create({
    id: newId('ba_'), account_id: a.accountId, livemode: a.livemode, rail: masked.rail, currency: masked.currency, masked,
    details_ciphertext: encrypt(JSON.stringify(details)),
  }));
}

/** `GET /wallet/external_accounts`: the query (alias `b`); the caller paginates newest first. */
export function externalAccountListQuery(accountId: string, livemode: boolean): SelectQueryBuilder<WalletExternalAccount> {
  return db().getRepository(WalletExternalAccount).createQueryBuilder('b').where('b.account_id = :a AND b.livemode = :l', { a: accountId, l: livemode });
}

/** An external account of the account; 404 `not_found` with `param` (default `external_account_id`). */
export async function getExternalAccount(accountId: string, livemode: boolean, id: string, param = 'external_account_id'): Promise<WalletExternalAccount> {
  const r = await db().getRepository(WalletExternalAccount).findOneBy({ id, account_id: accountId, livemode });
  if (!r) throw notFound(`No such external account: ${id}.`, param);
  return r;
}

/** The raw details of external account `id` (for the fiat rail only; never on the wire). */
export async function externalAccountDetails(id: string): Promise<BankDetails> {
  const r = await db().getRepository(WalletExternalAccount).findOneByOrFail({ id });
  return JSON.parse(decrypt(r.details_ciphertext)) as BankDetails;
}
