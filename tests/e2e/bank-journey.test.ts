/**
 * Bank-rail journeys end to end, driven only through the API and `/sim` (issue 12; spec 2.4
 * provider-settled verdicts, part 3, part 6): for every bank rail a link paid by bank transfer and
 * settled to the merchant's bank destination through the fiat rail; SEPA paid short (underpaid,
 * partial_payment) then topped up, settled, then refunded (returned to payer); an ACH payment paid
 * then returned by the sending bank (a later underpaid overrides paid/settled, `return_reason`
 * carries the provider's text); an overpayment outside the 1% band; a late credit to a closed
 * payment.
 */
import { call, client, connectDb, eventually, expectOk } from '../helpers/api';
import { activeBankLink, bankCredit, session } from '../helpers/bank';

beforeAll(async () => {
  await connectDb();
});

type Api = ReturnType<typeof client>;
const payment = (api: Api, id: string) => api.get(`/v1/payments/${id}`).then((r) => expectOk(r));
const reaches = (api: Api, id: string, status: string) =>
  eventually(
    async () => {
      const p = await payment(api, id);
      return p.status === status ? p : null;
    },
    `payment ${id} ${status}`,
    20000,
  );
const types = async (api: Api, path: string) =>
  (expectOk(await api.get(`${path}/events?limit=100`)).data as Array<{ type: string }>).map((e) => e.type).reverse();
/** The fiat rail reports the settlement payout of payment `id` paid (the outside world). */
const railPaid = (id: string) => call('POST', `/sim/providers/fiat_rails/payments/${id}`, { state: 'paid' }, { idem: null });
/** Waits for the settlement payout of `id` to be in flight, then lets the rail pay it. */
async function settle(api: Api, id: string) {
  await eventually(async () => (await railPaid(id)).status === 200, `settlement payout of ${id}`, 20000);
  return reaches(api, id, 'settled');
}

test.each([
  ['ach', 'ach', '150000'],
  ['wire', 'ach', '150000'],
  ['sepa', 'sepa', '99900'],
  ['faster_payments', 'faster_payments', '42000'],
  ['pix', 'pix', '500000'],
  ['spei', 'spei', '1250000'],
])(
  '%s: paid exactly by bank transfer, settled to the merchant bank (destination on %s)',
  async (rail, destRail, amount) => {
    const { api, link, token } = await activeBankLink(destRail, amount);
    const p = expectOk(await session(token, '/payments', { rail, payer_type: 'business' }), 201);
    const c = expectOk(await bankCredit(p.bank_deposit_instructions, amount, { sender_name: 'Payer Co' }), 201);
    expect(c.matched).toBe(true);
    const paid = await reaches(api, p.id, 'paid');
    expect(paid).toMatchObject({ amount_received: { amount }, amount_verdict: null, surplus: null });
    const settled = await settle(api, p.id);
    expect(settled.amount_verdict).toBeNull();
    expect(settled.settlement_tx_hash).toEqual(expect.any(String));
    expect(expectOk(await api.get(`/v1/payment_links/${link.id}`))).toMatchObject({ status: 'settled', partial_payment: null });
    const receipt = expectOk(await api.get(`/v1/payment_links/${link.id}/receipt`));
    expect(receipt).toMatchObject({
      payment_id: p.id,
      payment_rail: rail,
      total_paid: { amount, currency: link.amount.currency },
      fee: { amount: '0' },
    });
    expect(await types(api, `/v1/payments/${p.id}`)).toEqual(['payment.created', 'payment.awaiting', 'payment.paid', 'payment.settled']);
    expect(await types(api, `/v1/payment_links/${link.id}`)).toEqual(expect.arrayContaining(['payment_link.paid', 'payment_link.settled']));
  },
  60000,
);

test('SEPA: paid short (underpaid, partial_payment), topped up, settled to the IBAN, then refunded to the payer', async () => {
  const { api, link, token } = await activeBankLink('sepa', '100000');
  const p = expectOk(await session(token, '/payments', { rail: 'sepa', payer_type: 'individual' }), 201);
  expectOk(await bankCredit(p.bank_deposit_instructions, '60000'), 201);
  const short = await reaches(api, p.id, 'underpaid');
  expect(short).toMatchObject({ amount_received: { amount: '60000', currency: 'EUR' }, amount_verdict: 'underpaid' });
  const mid = expectOk(await api.get(`/v1/payment_links/${link.id}`));
  expect(mid).toMatchObject({ status: 'processing', partial_payment: { received: { amount: '60000', currency: 'EUR', decimals: 2 } } });
  expect((await session(token)).body.amount_verdict).toBe('underpaid');

  // A top-up within 1% of the invoice completes it: paid, then settled with what arrived.
  expectOk(await bankCredit(p.bank_deposit_instructions, '39500'), 201);
  await reaches(api, p.id, 'paid');
  const settled = await settle(api, p.id);
  expect(settled).toMatchObject({ amount_received: { amount: '99500' }, amount_verdict: null });
  const rail = expectOk(
    await call('POST', `/sim/providers/fiat_rails/payments/${p.id}`, { recipient_received_amount: '99500' }, { idem: null }),
  );
  expect(rail).toMatchObject({ rail: 'sepa', currency: 'EUR', amount: '99500', state: 'paid' });
  expect(await types(api, `/v1/payments/${p.id}`)).toEqual([
    'payment.created',
    'payment.awaiting',
    'payment.underpaid',
    'payment.paid',
    'payment.settled',
  ]);

  const refunded = expectOk(await api.post(`/v1/payment_links/${link.id}/refund`, { reason: 'requested_by_customer' }));
  expect(refunded).toMatchObject({ status: 'refunded', partial_payment: null });
  await eventually(
    async () => (await call('POST', `/sim/providers/fiat_rails/payments/refund:${p.id}`, { state: 'paid' }, { idem: null })).status === 200,
    'refund payout',
  );
  const back = expectOk(
    await call('POST', `/sim/providers/fiat_rails/payments/refund:${p.id}`, { recipient_received_amount: '99500' }, { idem: null }),
  );
  expect(back).toMatchObject({ rail: 'sepa', currency: 'EUR', amount: '99500', client_reference: `refund:${p.id}` });
  expect((await payment(api, p.id)).status).toBe('refunded');
  expect(await types(api, `/v1/payment_links/${link.id}`)).toContain('payment_link.refunded');
  expect((await session(token)).body.status).toBe('refunded');
  expect((await api.post(`/v1/payment_links/${link.id}/refund`, {})).status).toBe(409);
}, 60000);

test('ACH: paid and settled, then the sending bank returns the credit: underpaid overrides settled, return_reason is the provider text', async () => {
  const { api, link, token } = await activeBankLink('ach', '20000');
  const p = expectOk(await session(token, '/payments', { rail: 'ach', payer_type: 'business' }), 201);
  const c = expectOk(await bankCredit(p.bank_deposit_instructions, '20000'), 201);
  await settle(api, p.id);
  const ret = expectOk(
    await call('POST', `/sim/bank/credits/${c.id}/return`, { reason: 'R10 Customer advises not authorized' }, { idem: null }),
  );
  expect(ret.state).toBe('returned');
  const under = await reaches(api, p.id, 'underpaid');
  expect(under).toMatchObject({
    return_reason: 'R10 Customer advises not authorized',
    amount_received: { amount: '0' },
    amount_verdict: 'underpaid',
  });
  expect(expectOk(await api.get(`/v1/payment_links/${link.id}`)).status).toBe('processing');
  expect(await types(api, `/v1/payments/${p.id}`)).toEqual([
    'payment.created',
    'payment.awaiting',
    'payment.paid',
    'payment.settled',
    'payment.underpaid',
  ]);
  expect((await session(token, `/payments/${p.id}`)).body.return_reason).toBe('R10 Customer advises not authorized');
}, 60000);

test('the magic sender RETURN_ME is returned at once; an overpayment beyond 1% is overpaid once and settles the invoice', async () => {
  const { api, token } = await activeBankLink('spei', '100000');
  const p = expectOk(await session(token, '/payments', { rail: 'spei', payer_type: 'business' }), 201);
  const r = expectOk(await bankCredit(p.bank_deposit_instructions, '100000', { sender_name: 'RETURN_ME' }), 201);
  expect(r).toMatchObject({ state: 'returned', return_reason: 'R01 Insufficient funds' });
  await eventually(async () => (await payment(api, p.id)).return_reason === 'R01 Insufficient funds', 'return applied');
  expectOk(await bankCredit(p.bank_deposit_instructions, '103000'), 201);
  const over = await reaches(api, p.id, 'overpaid');
  expect(over).toMatchObject({ amount_verdict: 'overpaid', surplus: { amount: '3000' } });
  await settle(api, p.id);
  const rail = expectOk(
    await call('POST', `/sim/providers/fiat_rails/payments/${p.id}`, { recipient_received_amount: '100000' }, { idem: null }),
  );
  expect(rail.amount).toBe('100000');
  expect((await types(api, `/v1/payments/${p.id}`)).filter((t) => t === 'payment.overpaid')).toHaveLength(1);
}, 60000);

test('a credit after the link was cancelled is unmatched deposit_after_close', async () => {
  const { api, link, token } = await activeBankLink('pix', '30000');
  const p = expectOk(await session(token, '/payments', { rail: 'pix', payer_type: 'business' }), 201);
  expectOk(await api.post(`/v1/payment_links/${link.id}/cancel`));
  await reaches(api, p.id, 'abandoned');
  expectOk(await bankCredit(p.bank_deposit_instructions, '30000'), 201);
  const u = await reaches(api, p.id, 'unmatched');
  expect(u).toMatchObject({ unmatched_reason: 'deposit_after_close', amount_verdict: 'unmatched', amount_received: { amount: '30000' } });
}, 60000);
