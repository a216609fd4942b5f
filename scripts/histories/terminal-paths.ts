/**
 * The recorder's journeys for the terminal and parked paths beyond each type's main one
 * (scripts/record-histories.ts; the table of paths in docs/workflow-versioning.md): failed,
 * returned, refunded, cancelled, rejected and expired objects, a step parked for an operator and
 * resumed by the `retry` signal, and a run continued as new. Each journey acts as the merchant
 * (/v1), the payer and the providers (/sim) would; a park is provoked as an operator meets it (a
 * rail failing a payout, a beneficiary missing from the row) and resumed the way the runbook says
 * (fix the cause, send `retry`). Amounts are minor units (USD cents, USDC 6 decimals).
 */
import {
  approvedRun,
  bankLink,
  chainTransfer,
  cryptoLink,
  DAY,
  fundablePayout,
  fundedWallet,
  HOUR,
  inDays,
  nativePayment,
  REFUND,
  subscription,
  type Ctx,
  type Journey,
} from './kit';

/** Throws unless the workflow's result is `want` (a journey records the path it names, or nothing). */
function expectResult(id: string, got: unknown, want: string): void {
  if (got !== want) throw new Error(`workflow ${id} ended ${JSON.stringify(got)}, not ${want}`);
}

/** Waits until workflow `id`'s `waiting_for` names a park for an operator; answers it. */
async function parked(c: Ctx, id: string): Promise<string> {
  return c.until(`${id} parked for an operator`, async () => {
    const w = await c.env.client.workflow.getHandle(id).query<string>('waiting_for');
    return /^an operator: /.test(w) ? w : null;
  });
}

/** A payout funded in full, its fiat payment submitted (`processing`); its id. */
async function processingPayout(c: Ctx): Promise<string> {
  const id = await fundablePayout(c);
  const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
  await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
  await c.untilField('key', `/v1/payouts/${id}`, 'processing');
  return id;
}

/** An ACH link of 200.00 USD paid by bank credit: the payment id (status `paid`, its settlement payout submitted) and the link id. */
async function bankPaidPayment(c: Ctx): Promise<{ id: string; linkId: string }> {
  const link = await bankLink(c, 'ach', '20000', { expires_at: inDays(30) });
  const p = await c.api('anon', 'POST', `/v1/payment_sessions/${link.token}/payments`, { rail: 'ach', payer_type: 'business' });
  const bdi = p.bank_deposit_instructions;
  await c.api('anon', 'POST', '/sim/bank/credits', {
    rail: bdi.rail,
    currency: bdi.currency,
    amount: '20000',
    reference: bdi.reference,
    to_account: bdi.account_number,
    sender_name: 'Payer Co',
  });
  await c.untilField('key', `/v1/payments/${p.id}`, 'paid');
  return { id: p.id, linkId: link.id };
}

/** The rail reports `state` for the rail payment of client reference `ref`, once it exists. */
const rail = (c: Ctx, ref: string, body: Record<string, unknown>) =>
  c.until(`rail payment ${ref} ${JSON.stringify(body)}`, async () => {
    const r = await c.raw('anon', 'POST', `/sim/providers/fiat_rails/payments/${encodeURIComponent(ref)}`, body);
    return r.status === 200 ? r.body : null;
  });

/** A card buy order of 250.00 USD; its id. */
async function cardOrder(c: Ctx): Promise<string> {
  const q = await c.api('key', 'POST', '/v1/quotes', {
    side: 'buy',
    from_asset: 'USD',
    to_asset: 'USDC',
    from_amount: '250.00',
    to_network: 'base',
    payment_method: 'card',
  });
  const offer = q.offers.find((o: { provider: { id: string } }) => o.provider.id === 'rampline') ?? q.offers[0];
  return (await c.api('key', 'POST', '/v1/orders', { offer_id: offer.offer_id, wallet_address: REFUND })).id;
}

/** An off-ramp of 20 USDC from a funded wallet to a US bank account numbered `account` (suffix 1116 fails on the sandbox rail). */
async function offramp(c: Ctx, account: string): Promise<any> {
  await fundedWallet(c, '50000000');
  const ba = await c.api('dash', 'POST', '/v1/wallet/external_accounts', {
    account_owner_type: 'business',
    account_holder_name: 'Acme Ltd',
    rail: 'ach',
    account_number: account,
    routing_number: '021000021',
  });
  return c.api('dash', 'POST', '/v1/wallet/offramp_intents', {
    external_account_id: ba.id,
    destination_currency: 'USD',
    destination_payment_rail: 'ach',
    amount: { amount: '20000000', currency: 'USDC', decimals: 6 },
  });
}

/** Events past which a run continues as new (workflows/convention.ts CONTINUE_AS_NEW_AFTER_EVENTS), with a margin. */
const LONG_HISTORY = 2050;

/**
 * Grows resting workflow `id`'s history past LONG_HISTORY with signal `signal` (one the workflow
 * accepts at any time: a provider's "re-read" notice), sent in bursts as a provider would; then
 * waits until it rests. Answers the run id the signals went to.
 */
async function grow(c: Ctx, id: string, signal: string): Promise<string> {
  const h = c.env.client.workflow.getHandle(id);
  // The product starts the workflow just after the API answers (a workflow intent).
  await c.until(`workflow ${id} started`, async () => (await h.describe()).runId);
  await c.rest(id);
  const run = (await h.describe()).runId;
  // One at a time: each signal lands in the history before the next is sent.
  while ((await h.describe()).historyLength < LONG_HISTORY) {
    for (let i = 0; i < 25; i++) await h.signal(signal);
  }
  await c.rest(id);
  return run;
}

/** Skips `ms` and waits until run `run` of `id` ended by continuing as new; answers the new run id. */
async function continuedAsNew(c: Ctx, id: string, run: string, ms: number): Promise<string> {
  await c.skip(ms);
  const h = c.env.client.workflow.getHandle(id, run);
  await c.until(`${id} continued as new`, async () => (await h.describe()).status.name === 'CONTINUED_AS_NEW');
  return c.runOf(id);
}

/** A cross-network payment (USDC on base through the bridge) on a fresh crypto link of `cents` USD; its id and bridge address. */
async function xchainPayment(c: Ctx, cents: string): Promise<{ id: string; bridge: string; amount: string }> {
  await c.flag('payment_links.crypto_xchain');
  const link = await cryptoLink(c, cents);
  await c.until('the cross-network rail', async () => {
    const caps = await c.api('key', 'GET', '/v1/capabilities?product=payment_links');
    return caps.corridors.find((k: { corridor_id: string }) => k.corridor_id === 'crypto_xchain')?.executable === true;
  });
  const p = await c.api('anon', 'POST', `/v1/payment_sessions/${link.token}/payments`, {
    rail: 'crypto_xchain',
    network: 'base',
    stablecoin: 'USDC',
    refund_address: '0x4444444444444444444444444444444444444444',
  });
  return { id: p.id, bridge: p.deposit_instructions.address, amount: p.deposit_instructions.amount.amount };
}

/** Journeys that do not skip time. */
export const TERMINAL_JOURNEYS: Journey[] = [
  {
    name: 'cross-network payment: the bridge fails, the funds go back, the payment expires',
    network: 'mainnet',
    async run(c) {
      await c.newAccount();
      const p = await xchainPayment(c, '5000');
      await c.api('anon', 'POST', `/sim/bridge/transfers/${p.id}`, { state: 'failed' });
      await chainTransfer(c, 'base', p.bridge, 'USDC', p.amount);
      expectResult(p.id, await c.closed(p.id), 'expired');
      return [{ type: 'xchainPaymentWorkflow', path: 'bridge-failed-then-expired', workflowId: p.id }];
    },
  },
  {
    name: 'payment: the settlement payout fails, parks for an operator, retried, settled',
    async run(c) {
      await c.newAccount();
      const p = await bankPaidPayment(c);
      await rail(c, p.id, { state: 'failed', reason: 'R03 No account/unable to locate account' });
      await parked(c, p.id);
      await c.rest(p.id);
      await c.env.client.workflow.getHandle(p.id).signal('retry');
      // The retry sends a second payout under the same reference; the rail pays it.
      await c.until('the second payout', async () => {
        const rows = await c.sql(`SELECT 1 FROM sandbox_rail_payments WHERE client_reference = $1 AND state = 'submitted'`, [p.id]);
        return rows.length > 0;
      });
      await rail(c, p.id, { state: 'paid' });
      expectResult(p.id, await c.closed(p.id), 'settled');
      return [{ type: 'paymentWorkflow', path: 'settlement-failed-parked-then-retried', workflowId: p.id }];
    },
  },
  {
    name: 'payment: a settled bank payment refunded through its rail',
    async run(c) {
      await c.newAccount();
      const p = await bankPaidPayment(c);
      await rail(c, p.id, { state: 'paid' });
      expectResult(p.id, await c.closed(p.id), 'settled');
      await c.api('key', 'POST', `/v1/payment_links/${p.linkId}/refund`, { reason: 'duplicate' });
      await rail(c, `refund:${p.id}`, { state: 'paid' });
      await c.untilField('key', `/v1/payments/${p.id}`, 'refunded');
      await c.rest(p.id);
      return [{ type: 'paymentWorkflow', path: 'settled-then-refunded', workflowId: p.id }];
    },
  },
  {
    name: 'payout: the rail fails the payment, the USDC goes back',
    async run(c) {
      await c.newAccount();
      const id = await processingPayout(c);
      await rail(c, id, { state: 'failed', reason: 'R03 No account/unable to locate account' });
      expectResult(id, await c.closed(id), 'failed');
      return [{ type: 'payoutWorkflow', path: 'rail-failed', workflowId: id }];
    },
  },
  {
    name: 'payout: paid, then returned by the rail',
    async run(c) {
      await c.newAccount();
      const id = await processingPayout(c);
      await rail(c, id, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await rail(c, id, { state: 'returned', reason: 'R01 Insufficient funds' });
      expectResult(id, await c.closed(id), 'returned');
      return [{ type: 'payoutWorkflow', path: 'paid-then-returned', workflowId: id }];
    },
  },
  {
    name: 'payout: parked for an operator (beneficiary missing), fixed and retried, settled',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await c.until('the provider transfer', async () => {
        const rows = await c.sql(
          'SELECT a.provider_transfer_id FROM payout_attempts a JOIN payouts p ON p.current_attempt_id = a.id WHERE p.id = $1',
          [id],
        );
        return rows[0]?.provider_transfer_id;
      });
      const [{ beneficiary_ciphertext: cipher }] = await c.sql('SELECT beneficiary_ciphertext FROM payouts WHERE id = $1', [id]);
      await c.sql('UPDATE payouts SET beneficiary_ciphertext = NULL WHERE id = $1', [id]);
      await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
      await parked(c, id);
      await c.rest(id);
      await c.sql('UPDATE payouts SET beneficiary_ciphertext = $2 WHERE id = $1', [id, cipher]);
      await c.env.client.workflow.getHandle(id).signal('retry');
      await c.untilField('key', `/v1/payouts/${id}`, 'processing');
      await rail(c, id, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await rail(c, id, { recipient_received_amount: '100050' });
      expectResult(id, await c.closed(id), 'settled');
      return [{ type: 'payoutWorkflow', path: 'parked-then-retried', workflowId: id }];
    },
  },
  {
    name: 'payroll run: every item paid (completed), then an item returned by the rail',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [['25000', '000123456789']]);
      const fi = await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '25000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      });
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funded', 'funding_state');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/execute`, {});
      expectResult(run.id, await c.closed(run.id), 'completed');
      const item = run.itemIds[0];
      const paid = await c.runOf(item);
      // The rail returns the paid item later: its workflow starts again (signalWithStart) and records the return.
      const [{ client_reference: ref }] = await c.sql(
        `SELECT client_reference FROM sandbox_rail_payments WHERE client_reference LIKE $1 ORDER BY created_at DESC LIMIT 1`,
        [`${item}%`],
      );
      await rail(c, ref, { state: 'returned', reason: 'R02 Account closed' });
      await c.until('a new run of the item', async () => (await c.runOf(item)) !== paid);
      expectResult(item, await c.closed(item), 'returned');
      return [
        { type: 'payrollRunWorkflow', path: 'completed', workflowId: run.id },
        { type: 'payrollItemWorkflow', path: 'paid-then-returned', workflowId: item },
      ];
    },
  },
  {
    name: 'payroll run: every item failed',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [['12000', '000111111116']]);
      const fi = await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '12000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      });
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funded', 'funding_state');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/execute`, {});
      expectResult(run.id, await c.closed(run.id), 'failed');
      return [{ type: 'payrollRunWorkflow', path: 'failed', workflowId: run.id }];
    },
  },
  {
    name: 'order: the provider fails an authorized card buy',
    async run(c) {
      await c.newAccount();
      const id = await cardOrder(c);
      await c.api('anon', 'POST', `/sim/providers/orders/${id}`, { action: 'authorize' });
      await c.untilField('key', `/v1/orders/${id}`, 'hold_placed', 'money_state');
      await c.api('anon', 'POST', `/sim/providers/orders/${id}`, { action: 'fail', failure_kind: 'payment_declined' });
      expectResult(id, await c.closed(id), 'failed');
      return [{ type: 'orderWorkflow', path: 'failed', workflowId: id }];
    },
  },
  {
    name: 'order: cancelled by the merchant before money moved',
    async run(c) {
      await c.newAccount();
      const id = await cardOrder(c);
      await c.rest(id);
      await c.api('key', 'POST', `/v1/orders/${id}/cancel`, {});
      expectResult(id, await c.closed(id), 'cancelled');
      return [{ type: 'orderWorkflow', path: 'cancelled', workflowId: id }];
    },
  },
  {
    name: 'customer: rejected by the KYC provider',
    async run(c) {
      await c.newAccount();
      const cus = await c.api('dash', 'POST', '/v1/customers', { customer_type: 'business', country: 'DE', legal_name: 'Acme GmbH' });
      await c.api('dash', 'POST', `/v1/customers/${cus.id}/verification_links`, { kind: 'tos' });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'pending', 'verification_state');
      await c.api('anon', 'POST', '/sim/kyc/decisions', { customer_id: cus.id, state: 'rejected' });
      expectResult(cus.id, await c.closed(cus.id), 'rejected');
      return [{ type: 'customerWorkflow', path: 'rejected', workflowId: cus.id }];
    },
  },
  {
    name: 'wallet: an off-ramp cancelled while awaiting funds',
    async run(c) {
      await c.newAccount();
      const ofr = await offramp(c, '000123456789');
      await c.rest(ofr.id);
      await c.api('dash', 'POST', `/v1/wallet/offramp_intents/${ofr.id}/cancel`, {});
      expectResult(ofr.id, await c.closed(ofr.id), 'canceled');
      return [{ type: 'offrampIntentWorkflow', path: 'canceled', workflowId: ofr.id }];
    },
  },
  {
    name: 'wallet: an off-ramp refunded after the bank payment fails',
    async run(c) {
      await c.newAccount();
      const ofr = await offramp(c, '000111111116');
      await c.api('anon', 'POST', '/sim/wallet/sign', ofr.transit_deposit.unsigned_transaction);
      expectResult(ofr.id, await c.closed(ofr.id), 'refunded');
      return [{ type: 'offrampIntentWorkflow', path: 'payment-failed-then-refunded', workflowId: ofr.id }];
    },
  },
  {
    name: 'subscription: cancelled with its first invoice open',
    async run(c) {
      await c.newAccount();
      const { id } = await subscription(c);
      await c.rest(id);
      await c.api('key', 'POST', `/v1/subscriptions/${id}/cancel`, {});
      expectResult(id, await c.closed(id), 'cancelled');
      return [{ type: 'subscriptionWorkflow', path: 'cancelled', workflowId: id }];
    },
  },
];

/** Journeys that skip time (run after every journey that does not). */
export const TERMINAL_SKIPPING_JOURNEYS: Journey[] = [
  {
    name: 'cross-network payment: nothing sent in its window (expired)',
    network: 'mainnet',
    async run(c) {
      await c.newAccount();
      const p = await xchainPayment(c, '5000');
      await c.rest(p.id);
      await c.skip(2 * DAY);
      expectResult(p.id, await c.closed(p.id), 'expired');
      return [{ type: 'xchainPaymentWorkflow', path: 'expired', workflowId: p.id }];
    },
  },
  {
    name: 'payout: nothing arrives within the funding window (expired)',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await c.untilField('key', `/v1/payouts/${id}`, 'awaiting_funds');
      await c.rest(id);
      await c.skip(2 * DAY);
      expectResult(id, await c.closed(id), 'expired');
      return [{ type: 'payoutWorkflow', path: 'expired', workflowId: id }];
    },
  },
  {
    name: 'wallet: a deposit intent nothing reaches (expired)',
    async run(c) {
      await c.newAccount();
      const d = await c.api('dash', 'POST', '/v1/wallet/deposit_intents', {
        source_chain: 'base',
        amount: { amount: '50000000', currency: 'USDC', decimals: 6 },
      });
      await c.rest(d.id);
      await c.skip(2 * HOUR);
      expectResult(d.id, await c.closed(d.id), 'expired');
      return [{ type: 'depositIntentWorkflow', path: 'expired', workflowId: d.id }];
    },
  },
  {
    name: 'wallet: a conversion never signed (failed at its signable window)',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '50000000');
      const pair = (await c.api('key', 'GET', '/v1/wallet/conversion_pairs')).data.find(
        (p: { from_asset: string }) => p.from_asset === w.asset,
      );
      const cv = await c.api('dash', 'POST', '/v1/wallet/conversions', {
        from_asset: w.asset,
        to_asset: pair.to_asset,
        amount: { amount: '20000000', currency: w.asset, decimals: 6 },
      });
      await c.rest(cv.id);
      await c.skip(HOUR);
      expectResult(cv.id, await c.closed(cv.id), 'failed');
      return [{ type: 'conversionWorkflow', path: 'unsigned-then-failed', workflowId: cv.id }];
    },
  },
  {
    name: 'wallet: an off-ramp nothing funds (failed at its funding deadline)',
    async run(c) {
      await c.newAccount();
      const ofr = await offramp(c, '000123456789');
      await c.rest(ofr.id);
      await c.skip(2 * HOUR);
      expectResult(ofr.id, await c.closed(ofr.id), 'failed');
      return [{ type: 'offrampIntentWorkflow', path: 'unfunded-then-failed', workflowId: ofr.id }];
    },
  },
  {
    name: 'wallet: a send whose recorded hash never appears on the chain (failed)',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '5000000');
      const si = await c.api('dash', 'POST', '/v1/wallet/send_intents', {
        destination_chain: w.chain,
        destination_address: REFUND,
        amount: { amount: '1500000', currency: w.asset, decimals: 6 },
      });
      await c.api('dash', 'POST', `/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: `0x${'ab'.repeat(32)}` });
      await c.rest(si.id);
      await c.skip(2 * HOUR);
      expectResult(si.id, await c.closed(si.id), 'failed');
      return [{ type: 'sendIntentWorkflow', path: 'hash-not-found-then-failed', workflowId: si.id }];
    },
  },
  {
    name: 'payment: a long history (provider notices) continues as new at the expiry',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000');
      const p = await nativePayment(c, link.token);
      // `providerUpdate` never wakes an awaiting payment: each one is a signal and a workflow task.
      const first = await grow(c, p.id, 'providerUpdate');
      const next = await continuedAsNew(c, p.id, first, DAY + HOUR);
      expectResult(p.id, await c.closed(p.id, next), 'expired');
      return [
        { type: 'paymentWorkflow', path: 'continued-as-new', workflowId: p.id, runId: first },
        { type: 'paymentWorkflow', path: 'after-continue-as-new', workflowId: p.id, runId: next },
      ];
    },
  },
  {
    name: 'customer: a long history (re-read notices) continues as new at the daily re-check',
    async run(c) {
      await c.newAccount();
      const cus = await c.api('dash', 'POST', '/v1/customers', { customer_type: 'business', country: 'DE', legal_name: 'Acme GmbH' });
      await c.api('dash', 'POST', `/v1/customers/${cus.id}/verification_links`, { kind: 'tos' });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'pending', 'verification_state');
      const first = await grow(c, cus.id, 'update');
      const next = await continuedAsNew(c, cus.id, first, DAY + HOUR);
      await c.rest(cus.id);
      return [
        { type: 'customerWorkflow', path: 'continued-as-new', workflowId: cus.id, runId: first },
        { type: 'customerWorkflow', path: 'after-continue-as-new', workflowId: cus.id, runId: next },
      ];
    },
  },
  {
    name: 'virtual account: a long history (re-read notices) continues as new at the hourly re-check',
    async run(c) {
      await c.newAccount();
      const va = await c.api('dash', 'POST', '/v1/wallet/virtual_accounts', { currency: 'USD' });
      const first = await grow(c, va.id, 'update');
      const next = await continuedAsNew(c, va.id, first, HOUR + 60_000);
      await c.rest(va.id);
      // The run that continued as new (2,700+ events) is not kept: the payment's stands for that command (docs/workflow-versioning.md).
      return [{ type: 'virtualAccountWorkflow', path: 'after-continue-as-new', workflowId: va.id, runId: next }];
    },
  },
];
