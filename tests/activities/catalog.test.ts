/**
 * Activity tier, catalog (activities/catalog/commands.ts: clients and products; no workflow
 * activities: the commands run directly on real PostgreSQL). Proves what is stored (trimmed
 * names, blanks cleared, the product currency taken from its price), the refusals (currency
 * mismatch, changing an archived row, a foreign id is 404) and that archiving is idempotent.
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { systemScope } from '../../activities/scope';
import { archiveClient, archiveProduct, createClient, createProduct, updateClient, updateProduct } from '../../activities/catalog/commands';
import { describeWithDb, rejection, testRequest, useActivityTier } from '../helpers/activity-env';

async function ctx() {
  const creds = await provisionAccount();
  return systemScope(creds.account_id, true, testRequest);
}

describeWithDb('catalog commands', () => {
  useActivityTier();

  test('a client: trimmed name, blank fields stored as null; archive is idempotent (first archived_at kept); an archived client cannot change (409 client_archived)', async () => {
    const c = await ctx();
    const cli = await createClient(c, { display_name: '  Acme Corp ', email: '', company: 'Acme', notes: '   ' });
    expect(cli).toMatchObject({ display_name: 'Acme Corp', email: null, company: 'Acme', notes: null, archived_at: null });
    const a1 = await archiveClient(c, { id: cli.id });
    const a2 = await archiveClient(c, { id: cli.id });
    expect(a2.archived_at).toEqual(a1.archived_at);
    expect(await rejection(updateClient(c, { id: cli.id, display_name: 'New' }))).toMatchObject({
      type: 'conflict',
      code: 'client_archived',
    });
    expect(await rejection(archiveClient(await ctx(), { id: cli.id }))).toMatchObject({ type: 'not_found' });
  });

  test("a product: currency from unit_price; a price in another currency is 400 currency_mismatch; changing a priced product's currency needs a new price", async () => {
    const c = await ctx();
    const p = await createProduct(c, { name: 'Consulting hour', unit_price: { amount: '15000', currency: 'USD', decimals: 2 } });
    expect(p).toMatchObject({ currency: 'USD', unit_price_minor: '15000' });
    expect(
      await rejection(createProduct(c, { name: 'X', currency: 'EUR', unit_price: { amount: '1', currency: 'USD', decimals: 2 } })),
    ).toMatchObject({ code: 'currency_mismatch' });
    expect(await rejection(updateProduct(c, { id: p.id, currency: 'EUR' }))).toMatchObject({ code: 'currency_mismatch' });
    expect(
      await updateProduct(c, { id: p.id, currency: 'EUR', unit_price: { amount: '14000', currency: 'EUR', decimals: 2 } }),
    ).toMatchObject({ currency: 'EUR', unit_price_minor: '14000' });
    await archiveProduct(c, { id: p.id });
    expect(await rejection(updateProduct(c, { id: p.id, name: 'Y' }))).toMatchObject({ code: 'product_archived' });
  });
});
