/**
 * The recorder's first journeys (scripts/record-histories.ts): the main path of every workflow type
 * and the expiry and overdue paths that skip time. scripts/histories/terminal-paths.ts adds the
 * other terminal and parked paths.
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
  signAs,
  subscription,
  type Journey,
} from './kit';
/**
 * Every journey, in the order run. The ones that skip time come last: while the clock skips, every
 * open workflow's timers fire, so each journey's workflows are closed or terminated before the next.
 */
export const FIRST_JOURNEYS: Journey[] = [
  {
    name: 'crypto link paid exactly',
    async run(c) {
      await c.newAccount();
      // With an expiry: a link with no timer runs no workflow (domain/payment-links.ts linkNeedsWorkflow).
      const link = await cryptoLink(c, '10000', { expires_at: inDays(30) });
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, p.di.amount.amount);
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      await c.untilField('key', `/v1/payment_links/${link.id}`, 'settled');
      return [
        { type: 'paymentWorkflow', path: 'paid-exactly', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'activated-and-paid', workflowId: link.id },
      ];
    },
  },
  {
    name: 'crypto link underpaid, then topped up',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000');
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '60000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'underpaid');
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '41000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [{ type: 'paymentWorkflow', path: 'underpaid-then-topped-up', workflowId: p.id }];
    },
  },
  {
    name: 'crypto link cancelled while a payment is underpaid',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000', { expires_at: inDays(30) });
      const p = await nativePayment(c, link.token);
      await chainTransfer(c, p.di.chain, p.di.address, p.di.asset, '1000000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'underpaid');
      await c.api('key', 'POST', `/v1/payment_links/${link.id}/cancel`, {});
      await c.untilField('key', `/v1/payments/${p.id}`, 'unmatched');
      return [
        { type: 'paymentWorkflow', path: 'underpaid-then-link-cancelled', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'cancelled', workflowId: link.id },
      ];
    },
  },
  {
    name: 'bank link paid by ACH, settled through the fiat rail',
    async run(c) {
      await c.newAccount();
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
      await c.until(
        'the settlement payout',
        async () => (await c.raw('anon', 'POST', `/sim/providers/fiat_rails/payments/${p.id}`, { state: 'paid' })).status === 200,
      );
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [
        { type: 'paymentWorkflow', path: 'bank-paid-and-settled', workflowId: p.id },
        { type: 'paymentLinkWorkflow', path: 'bank-paid-and-settled', workflowId: link.id },
      ];
    },
  },
  {
    name: 'cross-network payment: bridge holds, delivers less, payer tops up',
    network: 'mainnet',
    async run(c) {
      await c.newAccount();
      await c.flag('payment_links.crypto_xchain');
      const link = await cryptoLink(c, '25000');
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
      const bridge = p.deposit_instructions.address;
      await c.api('anon', 'POST', `/sim/bridge/transfers/${p.id}`, { state: 'delayed' });
      await chainTransfer(c, 'base', bridge, 'USDC', p.deposit_instructions.amount.amount);
      await c.untilField('key', `/v1/payments/${p.id}`, 'confirming', 'watcher_state');
      await c.api('anon', 'POST', `/sim/bridge/transfers/${p.id}`, { state: 'delivered', delivered_amount: '250000000' });
      await c.untilField('key', `/v1/payments/${p.id}`, 'matching', 'watcher_state');
      await chainTransfer(c, 'base', bridge, 'USDC', '2500000');
      await c.untilField('key', `/v1/payments/${p.id}`, 'settled');
      return [{ type: 'xchainPaymentWorkflow', path: 'delivered-less-then-topped-up', workflowId: p.id }];
    },
  },
  {
    name: 'payout funded and paid',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
      await c.untilField('key', `/v1/payouts/${id}`, 'processing');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { recipient_received_amount: '100050' });
      await c.untilField('key', `/v1/payouts/${id}`, 'settled');
      return [{ type: 'payoutWorkflow', path: 'funded-and-paid', workflowId: id }];
    },
  },
  {
    name: 'payout paid short of the invoice, then flagged by reconciliation',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      const f = await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await chainTransfer(c, 'base', f.deposit_address, 'USDC', f.gross_amount.amount);
      await c.untilField('key', `/v1/payouts/${id}`, 'processing');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { state: 'paid' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid');
      await c.api('anon', 'POST', `/sim/providers/fiat_rails/payments/${id}`, { recipient_received_amount: '99000' });
      await c.untilField('key', `/v1/payouts/${id}`, 'paid_with_shortfall');
      const first = await c.runOf(id);
      // The signal starts a new run of the ended workflow (signalWithStart), which records the flag and ends.
      await c.api('anon', 'POST', '/sim/providers/reconciliation', { payout_id: id, needs_attention: true });
      await c.untilField('key', `/v1/payouts/${id}`, true, 'needs_attention');
      return [
        { type: 'payoutWorkflow', path: 'paid-with-shortfall', workflowId: id, runId: first },
        { type: 'payoutWorkflow', path: 'reconciliation-after-close', workflowId: id },
      ];
    },
  },
  {
    name: 'payout cancelled while awaiting funds',
    async run(c) {
      await c.newAccount();
      const id = await fundablePayout(c);
      await c.api('dash', 'POST', `/v1/payouts/${id}/funding_instructions`, { refund_address: REFUND });
      await c.untilField('key', `/v1/payouts/${id}`, 'awaiting_funds');
      await c.api('key', 'POST', `/v1/payouts/${id}/cancel`, {});
      await c.untilField('key', `/v1/payouts/${id}`, 'cancelled');
      return [{ type: 'payoutWorkflow', path: 'cancelled', workflowId: id }];
    },
  },
  {
    name: 'payroll run funded by bank and executed: one item paid, one failed, one to a wallet',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [
        ['25000', '000123456789'],
        ['12000', '000111111116'],
        ['3000', null],
      ]);
      const fi = await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '40000',
        reference: fi.run_reference,
        to_account: fi.bank.account_number,
        sender_name: 'Acme Inc',
      });
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/funding_instructions`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funded', 'funding_state');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/execute`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'partial');
      return [
        { type: 'payrollRunWorkflow', path: 'funded-and-executed', workflowId: run.id },
        { type: 'payrollItemWorkflow', path: 'bank-paid', workflowId: run.itemIds[0] },
        { type: 'payrollItemWorkflow', path: 'bank-failed', workflowId: run.itemIds[1] },
        { type: 'payrollItemWorkflow', path: 'wallet-paid', workflowId: run.itemIds[2] },
      ];
    },
  },
  {
    name: 'payroll run cancelled while funding is pending',
    async run(c) {
      await c.newAccount();
      const run = await approvedRun(c, [['25000', '000123456789']]);
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'funding_pending');
      await c.api('key', 'POST', `/v1/payroll_runs/${run.id}/cancel`, {});
      await c.untilField('key', `/v1/payroll_runs/${run.id}`, 'cancelled');
      return [{ type: 'payrollRunWorkflow', path: 'cancelled', workflowId: run.id }];
    },
  },
  {
    name: 'subscription: the first invoice paid',
    async run(c) {
      await c.newAccount();
      const { id, invoice } = await subscription(c);
      const di = invoice.deposit_instructions;
      await chainTransfer(c, 'tempo', di.address, di.asset, '25000000');
      await c.untilField('key', `/v1/subscriptions/${id}/invoices/${invoice.id}`, 'paid');
      await c.untilField('key', `/v1/payments/${invoice.payment_id}`, 'settled');
      return [
        { type: 'subscriptionWorkflow', path: 'invoice-paid', workflowId: id },
        { type: 'paymentWorkflow', path: 'subscription-invoice-paid', workflowId: invoice.payment_id },
      ];
    },
  },
  {
    name: 'wallet: a deposit from base bridged in',
    async run(c) {
      await c.newAccount();
      const d = await c.api('dash', 'POST', '/v1/wallet/deposit_intents', {
        source_chain: 'base',
        amount: { amount: '50000000', currency: 'USDC', decimals: 6 },
      });
      await chainTransfer(c, 'base', d.deposit_address, 'USDC', d.amount_in.amount, REFUND);
      await c.untilField('dash', `/v1/wallet/deposit_intents/${d.id}`, 'settled');
      return [{ type: 'depositIntentWorkflow', path: 'settled', workflowId: d.id }];
    },
  },
  {
    name: 'wallet: a direct send settled',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '5000000');
      const si = await c.api('dash', 'POST', '/v1/wallet/send_intents', {
        destination_chain: w.chain,
        destination_address: REFUND,
        amount: { amount: '1500000', currency: w.asset, decimals: 6 },
        note: 'rent',
      });
      const hash = await signAs(c, si.unsigned_transaction);
      await c.api('dash', 'POST', `/v1/wallet/send_intents/${si.id}/source_tx`, { tx_hash: hash });
      await c.untilField('dash', `/v1/wallet/send_intents/${si.id}`, 'settled');
      return [{ type: 'sendIntentWorkflow', path: 'settled', workflowId: si.id }];
    },
  },
  {
    name: 'wallet: a conversion settled',
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
      const hash = await signAs(c, cv.unsigned_transaction);
      await c.api('dash', 'POST', `/v1/wallet/conversions/${cv.id}/source_tx`, { tx_hash: hash });
      await c.untilField('dash', `/v1/wallet/conversions/${cv.id}`, 'settled');
      return [{ type: 'conversionWorkflow', path: 'settled', workflowId: cv.id }];
    },
  },
  {
    name: 'wallet: an off-ramp paid to a EUR bank account',
    async run(c) {
      await c.newAccount();
      await fundedWallet(c, '50000000');
      const ba = await c.api('dash', 'POST', '/v1/wallet/external_accounts', {
        account_owner_type: 'individual',
        account_holder_name: 'Ana Diaz',
        rail: 'sepa',
        iban: 'DE89370400440532013000',
        bic: 'DEUTDEFF',
      });
      const ofr = await c.api('dash', 'POST', '/v1/wallet/offramp_intents', {
        external_account_id: ba.id,
        destination_currency: 'EUR',
        destination_payment_rail: 'sepa',
        amount: { amount: '20000000', currency: 'USDC', decimals: 6 },
      });
      await signAs(c, ofr.transit_deposit.unsigned_transaction);
      await c.untilField('dash', `/v1/wallet/offramp_intents/${ofr.id}`, 'payment_processed');
      return [{ type: 'offrampIntentWorkflow', path: 'payment-processed', workflowId: ofr.id }];
    },
  },
  {
    name: 'wallet: a virtual account credited, then deactivated',
    async run(c) {
      await c.newAccount();
      const va = await c.api('dash', 'POST', '/v1/wallet/virtual_accounts', { currency: 'USD' });
      const bdi = va.bank_deposit_instructions[0];
      await c.api('anon', 'POST', '/sim/bank/credits', {
        rail: 'ach',
        currency: 'USD',
        amount: '10000',
        reference: bdi.reference,
        to_account: bdi.account_number,
        sender_name: 'Acme Inc',
      });
      await c.until(
        'the credit converted',
        async () => (await c.api('dash', 'GET', `/v1/wallet/virtual_accounts/${va.id}/history?limit=1`)).data[0]?.status === 'converted',
      );
      await c.api('dash', 'POST', `/v1/wallet/virtual_accounts/${va.id}/deactivate`, {});
      return [{ type: 'virtualAccountWorkflow', path: 'credited-then-deactivated', workflowId: va.id }];
    },
  },
  {
    name: 'customer: action required, then approved',
    async run(c) {
      await c.newAccount();
      const cus = await c.api('dash', 'POST', '/v1/customers', { customer_type: 'business', country: 'DE', legal_name: 'Acme GmbH' });
      await c.api('dash', 'POST', `/v1/customers/${cus.id}/verification_links`, { kind: 'tos' });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'pending', 'verification_state');
      await c.api('anon', 'POST', '/sim/kyc/decisions', {
        customer_id: cus.id,
        state: 'action_required',
        requirements_due: ['compliance_profile'],
      });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'action_required', 'verification_state');
      await c.api('dash', 'PATCH', `/v1/customers/${cus.id}/compliance_profile`, {
        business_activity: 'Software',
        account_purpose: 'payouts',
      });
      await c.api('anon', 'POST', '/sim/kyc/decisions', { customer_id: cus.id, state: 'approved', endorsements: ['base', 'sepa'] });
      await c.untilField('dash', `/v1/customers/${cus.id}`, 'approved', 'verification_state');
      return [{ type: 'customerWorkflow', path: 'action-required-then-approved', workflowId: cus.id }];
    },
  },
  {
    name: 'order: a card buy authorized, captured and delivered',
    async run(c) {
      await c.newAccount();
      const q = await c.api('key', 'POST', '/v1/quotes', {
        side: 'buy',
        from_asset: 'USD',
        to_asset: 'USDC',
        from_amount: '250.00',
        to_network: 'base',
        payment_method: 'card',
      });
      const offer = q.offers.find((o: { provider: { id: string } }) => o.provider.id === 'rampline') ?? q.offers[0];
      const ord = await c.api('key', 'POST', '/v1/orders', { offer_id: offer.offer_id, wallet_address: REFUND });
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'authorize' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'hold_placed', 'money_state');
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'capture' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'captured', 'money_state');
      await c.api('anon', 'POST', `/sim/providers/orders/${ord.id}`, { action: 'complete' });
      await c.untilField('key', `/v1/orders/${ord.id}`, 'completed');
      return [{ type: 'orderWorkflow', path: 'completed', workflowId: ord.id }];
    },
  },
  {
    name: 'webhook endpoint: a test event delivered',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await c.until('the test delivery', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'succeeded',
        ),
      );
      // Since the idle wait the run then waits for new deliveries. `delivered-then-idle.json`
      // is the pre-wait shape (the run ended right after the drain), kept while such runs may be open.
      return [{ type: 'webhookEndpointWorkflow', path: 'delivered-then-waits', workflowId: we.id }];
    },
  },
];

/** Journeys that skip time (run after every journey that does not). */
export const SKIPPING_JOURNEYS: Journey[] = [
  {
    name: 'webhook endpoint: a delivery refused, retried later and delivered',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([500]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await c.until('the first attempt refused', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'retrying',
        ),
      );
      await c.rest(we.id);
      await c.skip(2 * 60_000);
      await c.until('the retry delivered', async () =>
        (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.some(
          (d: { status: string }) => d.status === 'succeeded',
        ),
      );
      // Then waits for new deliveries; `retried-then-delivered.json` is the pre-wait shape.
      return [{ type: 'webhookEndpointWorkflow', path: 'retried-then-waits', workflowId: we.id }];
    },
  },
  {
    name: 'webhook endpoint: waits for new deliveries, woken by the next one, then ends idle',
    async run(c) {
      await c.newAccount();
      const url = await c.receiver([]);
      const we = await c.api('key', 'POST', '/v1/webhook_endpoints', { url, event_types: [], description: 'recorder' });
      const delivered = (n: number) =>
        c.until(
          `${n} test deliveries`,
          async () =>
            (await c.api('key', 'GET', `/v1/webhook_deliveries?endpoint_id=${we.id}`)).data.filter(
              (d: { status: string }) => d.status === 'succeeded',
            ).length >= n,
        );
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await delivered(1);
      // The run waits for new deliveries (workflows/webhook-endpoint.ts ENDPOINT_IDLE_MS); the next one wakes it.
      const run = await c.runOf(we.id);
      await c.api('key', 'POST', `/v1/webhook_endpoints/${we.id}/send_test_event`, {});
      await delivered(2);
      await c.rest(we.id);
      if ((await c.runOf(we.id)) !== run) throw new Error('the second delivery started a new run instead of waking the waiting one');
      // The idle period (5 min) passes with nothing new: the run ends idle.
      await c.skip(6 * 60_000);
      await c.until(
        'the run ended idle',
        async () => (await c.env.client.workflow.getHandle(we.id, run).describe()).status.name === 'COMPLETED',
      );
      return [{ type: 'webhookEndpointWorkflow', path: 'woken-while-waiting-then-idle', workflowId: we.id, runId: run }];
    },
  },
  {
    name: 'crypto payment expired (nothing arrived in its window)',
    async run(c) {
      await c.newAccount();
      const link = await cryptoLink(c, '10000');
      const p = await nativePayment(c, link.token);
      await c.rest(p.id);
      await c.skip(DAY + HOUR);
      await c.untilField('key', `/v1/payments/${p.id}`, 'expired');
      return [{ type: 'paymentWorkflow', path: 'expired', workflowId: p.id }];
    },
  },
  {
    name: 'bank link: a reminder sent to the payer, then the link expired',
    async run(c) {
      await c.newAccount();
      // Times on the link are absolute; the test server's clock runs ahead of the wall clock by what earlier journeys skipped.
      const expiresAt = (await c.env.currentTimeMs()) + 4 * DAY;
      const link = await bankLink(c, 'ach', '20000', { expires_at: new Date(expiresAt).toISOString(), payer_email: 'payer@example.com' });
      await c.rest(link.id);
      await c.skip(expiresAt - (await c.env.currentTimeMs()) + HOUR);
      await c.untilField('key', `/v1/payment_links/${link.id}`, 'expired');
      return [{ type: 'paymentLinkWorkflow', path: 'reminded-then-expired', workflowId: link.id }];
    },
  },
  {
    name: 'wallet: a send never signed expires',
    async run(c) {
      await c.newAccount();
      const w = await fundedWallet(c, '5000000');
      const si = await c.api('dash', 'POST', '/v1/wallet/send_intents', {
        destination_chain: w.chain,
        destination_address: REFUND,
        amount: { amount: '1500000', currency: w.asset, decimals: 6 },
      });
      await c.rest(si.id);
      await c.skip(HOUR);
      await c.untilField('dash', `/v1/wallet/send_intents/${si.id}`, 'expired');
      return [{ type: 'sendIntentWorkflow', path: 'expired', workflowId: si.id }];
    },
  },
  {
    name: 'subscription: the first invoice unpaid past its grace period (overdue)',
    async run(c) {
      await c.newAccount();
      const { id, invoice } = await subscription(c);
      await c.rest(id);
      await c.skip(8 * DAY);
      await c.untilField('key', `/v1/subscriptions/${id}/invoices/${invoice.id}`, 'overdue');
      return [{ type: 'subscriptionWorkflow', path: 'invoice-overdue', workflowId: id }];
    },
  },
];
