/**
 * The wallet journey of `npm run demo`: the holder deposits USDC into the wallet from
 * base (a deposit intent: the USDC crosses the bridge into the wallet), adds a EUR bank account,
 * off-ramps 50 USDC to it (the sandbox plays the holder's passkey on the transit deposit with
 * `/sim/wallet/sign`), and polls the intent until `payment_processed` with the settled EUR amount.
 */

type Call = (method: string, path: string, body?: unknown, auth?: 'key' | 'session' | 'none') => Promise<{ status: number; body: any }>;
type WaitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms?: number) => Promise<T>;

/** Runs the journey; `check(cond, what)` fails the demo; `step`/`ok` print. */
export async function offrampJourney(
  call: Call,
  waitFor: WaitFor,
  out: { step(m: string): void; ok(m: string): void; check(cond: unknown, what: string): void },
): Promise<void> {
  const { step, ok, check } = out;
  const usdc = (amount: string, currency: string) => ({ amount, currency, decimals: 6 });
  const balance = async () => (await call('GET', '/v1/wallet/balances')).body.balances[0] as { asset: string; amount: { amount: string } };
  const before = await balance();
  const asset = before.asset;

  step('wallet: a deposit intent from base for 60.000000 USDC (dashboard session)');
  const dpi = await call('POST', '/v1/wallet/deposit_intents', { source_chain: 'base', amount: usdc('60000000', asset) }, 'session');
  check(dpi.status === 201, `deposit intent: ${JSON.stringify(dpi.body)}`);
  ok(
    `${dpi.body.id}: send ${dpi.body.amount_in.amount} USDC on base to ${dpi.body.deposit_address} (bridge fee ${dpi.body.bridge_fee.amount})`,
  );
  const sent = await call(
    'POST',
    '/sim/chain/transfers',
    { chain: 'base', asset: 'USDC', to_address: dpi.body.deposit_address, amount: dpi.body.amount_in.amount },
    'none',
  );
  check(sent.status === 201, 'sim transfer on base');
  const settled = await waitFor('deposit intent settled', async () => {
    const r = await call('GET', `/v1/wallet/deposit_intents/${dpi.body.id}`, undefined, 'session');
    return r.body.status === 'settled' ? r.body : null;
  });
  const after = await balance();
  check(BigInt(after.amount.amount) - BigInt(before.amount.amount) === 60_000_000n, `wallet balance ${after.amount.amount}`);
  ok(`${settled.status}: wallet holds ${after.amount.amount} ${asset} minor units`);

  step('off-ramp: a EUR bank account (IBAN), read back masked');
  const ba = await call(
    'POST',
    '/v1/wallet/external_accounts',
    {
      account_owner_type: 'individual',
      account_holder_name: 'Demo Holder',
      rail: 'sepa',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
    },
    'session',
  );
  check(ba.status === 201, `external account: ${JSON.stringify(ba.body)}`);
  ok(`${ba.body.id}: IBAN ...${ba.body.bank_account.iban_last4}`);

  step('off-ramp: 50.000000 USDC to EUR by SEPA');
  const ofr = await call(
    'POST',
    '/v1/wallet/offramp_intents',
    {
      external_account_id: ba.body.id,
      destination_currency: 'EUR',
      destination_payment_rail: 'sepa',
      amount: usdc('50000000', asset),
    },
    'session',
  );
  check(ofr.status === 201, `off-ramp intent: ${JSON.stringify(ofr.body)}`);
  ok(
    `${ofr.body.id} ${ofr.body.status}: transit deposit to ${ofr.body.transit_deposit.address}, memo ${ofr.body.transit_deposit.memo}; the bank receives ${ofr.body.destination_amount.amount} EUR cents`,
  );

  step('the holder signs the transit deposit with the passkey (sandbox signer)');
  const signed = await call('POST', '/sim/wallet/sign', ofr.body.transit_deposit.unsigned_transaction, 'none');
  check(signed.status === 201, `sign: ${JSON.stringify(signed.body)}`);
  ok(`broadcast ${signed.body.tx_hash}`);

  step('poll the off-ramp until terminal');
  const done = await waitFor('off-ramp terminal', async () => {
    const r = await call('GET', `/v1/wallet/offramp_intents/${ofr.body.id}`, undefined, 'session');
    return ['payment_processed', 'refunded', 'refund_failed', 'canceled', 'failed'].includes(r.body.status) ? r.body : null;
  });
  check(done.status === 'payment_processed', `off-ramp ended ${done.status}: ${JSON.stringify(done)}`);
  ok(
    `${done.status}: settled ${done.settled_amount.amount} ${done.settled_amount.currency} cents to IBAN ...${ba.body.bank_account.iban_last4}`,
  );
}
