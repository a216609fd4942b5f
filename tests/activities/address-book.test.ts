/**
 * Activity tier, address book (activities/address-book/commands.ts; no workflow activities: the
 * commands run directly on real PostgreSQL with the sandbox screening provider). Proves a crypto
 * entry is screened on create and a live duplicate refused, bank details are set once, a
 * destination in use by a payable link cannot be deleted (and can once the link ended), and a
 * recheck writes its result with `address_book.entry_rechecked`.
 */
import crypto from 'node:crypto';
import { provisionAccount } from '../../activities/accounts/commands';
import { systemScope } from '../../activities/scope';
import { createEntry, deleteEntry, recheckEntry, setBeneficiary } from '../../activities/address-book/commands';
import { getAddress } from 'viem';
import { db } from '../../lib/db';
import { chainAdapter } from '../../providers/chain';
import { describeWithDb, eventTypes, rejection, row, testRequest, useActivityTier } from '../helpers/activity-env';
import { activeBankLinkRow } from '../helpers/fixtures';

const newAddress = () => getAddress(`0x${crypto.randomBytes(20).toString('hex')}`);
const ach = {
  account_owner_type: 'business' as const,
  account_holder_name: 'Acme Ltd',
  rail: 'ach' as const,
  account_number: '000123456789',
  routing_number: '021000021',
};

async function ctx() {
  const creds = await provisionAccount();
  return systemScope(creds.account_id, true, testRequest);
}

describeWithDb('address book commands', () => {
  useActivityTier();

  test('a crypto entry is screened on create; the same live address on the chain again is 409 address_book_entry_exists naming the entry', async () => {
    const c = await ctx();
    const address = newAddress();
    const e = await createEntry(c, { kind: 'crypto', chain: chainAdapter().chain, address });
    expect(e.screening).toMatchObject({ status: 'completed', risk_level: expect.any(String), verdict: expect.any(String) });
    const dup = await rejection(createEntry(c, { kind: 'crypto', chain: chainAdapter().chain, address: address.toLowerCase() }));
    expect(dup).toMatchObject({ code: 'address_book_entry_exists', details: { address_book_id: e.id } });
  });

  test('bank details are set once (encrypted, masked projection, rail and currency); a second set is 409 beneficiary_already_set', async () => {
    const c = await ctx();
    const e = await createEntry(c, { kind: 'bank', label: 'Operating' });
    const set = await setBeneficiary(c, { id: e.id, beneficiary: ach });
    expect(set).toMatchObject({ bank_rail: 'ach', bank_currency: 'USD', beneficiary_set_at: expect.any(Date) });
    expect(JSON.stringify(set.beneficiary_masked)).not.toContain('000123456789');
    expect((await row('address_book_entries', e.id)).bank_details_ciphertext).not.toContain('000123456789');
    expect(await rejection(setBeneficiary(c, { id: e.id, beneficiary: ach }))).toMatchObject({ code: 'beneficiary_already_set' });
  });

  test('a destination a payable link settles to cannot be deleted (409 address_book_entry_in_use with the link); once the link ended it is soft-deleted', async () => {
    const { creds, link } = await activeBankLinkRow('ach', 'USD', '1000');
    const c = systemScope(creds.account_id, true, testRequest);
    const e = await rejection(deleteEntry(c, { id: link.settlement_destination_id! }));
    expect(e).toMatchObject({ code: 'address_book_entry_in_use', details: { payment_link_ids: [link.id] } });
    await db().query(`UPDATE payment_links SET status = 'cancelled' WHERE id = $1`, [link.id]);
    await deleteEntry(c, { id: link.settlement_destination_id! });
    expect((await row('address_book_entries', link.settlement_destination_id!)).deleted_at).toBeInstanceOf(Date);
    expect(await rejection(deleteEntry(c, { id: link.settlement_destination_id! }))).toMatchObject({ type: 'not_found' });
  });

  test('recheck stores the new screening and writes address_book.entry_rechecked; a bank entry cannot be rechecked', async () => {
    const c = await ctx();
    const e = await createEntry(c, { kind: 'crypto', chain: chainAdapter().chain, address: newAddress() });
    const r = await recheckEntry(c, { id: e.id });
    expect(r.screening).toMatchObject({ status: 'completed' });
    expect(await eventTypes(e.id)).toEqual(['address_book.entry_rechecked']);
    const bank = await createEntry(c, { kind: 'bank' });
    expect(await rejection(recheckEntry(c, { id: bank.id }))).toMatchObject({ code: 'address_book_entry_kind_mismatch' });
  });
});
