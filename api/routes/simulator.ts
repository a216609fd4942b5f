/**
 * The simulator (ARCHITECTURE.md "Simulator"): an operator-only surface under /sim that injects what
 * the outside world would do. Mounted only when SIMULATOR_ENABLED=true (dev and tests).
 *
 * It plays the providers and never routes their reports itself: each provider route calls the
 * sandbox provider in providers/ to make the event happen, then hands the provider's report to
 * activities/intake/ (one module per provider kind), the same call a real provider's callback
 * would make (docs/architecture.md "How a provider report reaches its object"). Where it acts as a
 * person (accepting the terms, signing a wallet send), it calls that person's command. The
 * dependency-cruiser rule `simulator-through-intake` keeps it so.
 * - POST /sim/chain/transfers `{ chain, to_address, asset, amount (minor units), from_address?, tx_hash?, status? }`:
 *   the chain adapter observes that transfer exactly as a real chain watcher would; `status:
 *   pending` only broadcasts it (the mempool: seen, not confirmed, not in any balance) until
 *   POST /sim/chain/transfers/{tx_hash}/confirm.
 * - POST /sim/bank/credits `{ rail, currency, amount (minor units), reference, to_account, sender_name? }`:
 *   an inbound bank transfer reaches the collection provider exactly as it would report it
 *   (`to_account`: the account number, IBAN, CLABE, PIX key, or sort code plus account number of the
 *   instructions); matched by account or reference, recorded, and handed to the payment's workflow (a
 *   payroll run's credit, matched by its run reference, is found by the run's five-minute funding poll
 *   or a refresh of its funding instructions).
 *   Magic `sender_name` `RETURN_ME`: the sending bank returns it at once (`R01 Insufficient funds`).
 * - POST /sim/bank/credits/{bcp_ id}/return `{ reason? }`: the sending bank returns a received credit.
 * - GET /sim/emails?related_object_id=: emails the sandbox email provider recorded.
 * - POST /sim/providers/fiat_rails/payments/{id, payout id or payroll item id} `{ state?: paid|failed|returned,
 *   paid_amount?, reason?, recipient_received_amount? }`: the fiat rail reports an outcome; the payout's,
 *   payroll item's or off-ramp intent's workflow re-reads it (e.g. a paid payroll item returned later).
 * - GET /sim/providers/bridge/transfers?client_reference=po_...: the sandbox bridge's transfers.
 * - POST /sim/providers/reconciliation `{ payout_id, needs_attention }`: the reconciliation signal.
 * - POST /sim/providers/faults `{ account_id, name, value|null }`: provider faults for one account's
 *   transfers (providers/sandbox-faults.ts); never global, so one test cannot slow another's payouts.
 * - POST /sim/kyc/decisions `{ customer_id, state, requirements_due?, rejection_outcome?, endorsements?,
 *   associated_persons? }`: the KYC provider decides; the customer's workflow applies it.
 * - POST /sim/legal/acceptances `{ account_id, user_id?, scope? }`: a person accepts the current terms
 *   (the owner for the account, or a member for their own wallet; spec 1 rule 6).
 * - POST /sim/wallet/sends/{id}/sign: the holder signs a prepared service-wallet send with a passkey.
 * - POST /sim/wallet/sign `{ from, chain_id, to, data }`: the holder's passkey signs and broadcasts a
 *   built transaction (a send intent's, conversion's, off-ramp deposit's or pay_with_wallet's
 *   `unsigned_transaction`); answers the `tx_hash` to record with the object's `source_tx`.
 * Chain transfers are accepted on the sandbox chain and on the payout source chains.
 * - POST /sim/providers/orders/{ord_ id} `{ action: authorize|capture|fail|refund|complete, failure_kind?, reason? }`:
 *   the quote provider acts on an order; its workflow then reads the report.
 * - POST /sim/providers/checkout/{checkout_id}/complete|fail|expire (`cco_` id; complete takes an
 *   optional `{ amount }` in minor units, default the price): the person pays at, fails at or
 *   abandons the hosted checkout; the provider then notifies the product (credits granted once).
 * - POST /sim/providers/screening/signals `{ chain, address, risk_score, flags?, unavailable? }`:
 *   what the address screening provider reports for that address from now on.
 * - POST /sim/bridge/transfers/{id} `{ state: delivered|failed|delayed, delivered_amount? }` (`btr_`
 *   id, the `pay_` id of a cross-network payment or the `wsi_` id of a cross-chain send): the bridge holds the transfer (`delayed`),
 *   fails it (`failed`: it returns the undelivered funds to the refund address) or releases it
 *   (`delivered`; with `delivered_amount` in minor units, the funds not yet delivered arrive as
 *   exactly that amount, e.g. less than quoted). The payment's (or send's) watcher re-reads the bridge.
 *   A wallet deposit intent's `dpi_` id names its pay-in too; its workflow re-reads, as it
 *   does on a `/sim/chain/transfers` transfer to its deposit address.
 * The KYC, checkout and order routes call api/sim-actions.ts, which the sandbox's hosted pages
 * (api/pages/sandbox/) call too.
 */
import Router from '@koa/router';
import { DomainError } from '../../domain/errors';
import { currencyDecimals, isFiat } from '../../domain/money';
import { receiveBankCredit, receiveBankReturn } from '../../activities/intake/bank-collection';
import { receiveBridgeTransferReport } from '../../activities/intake/bridge';
import { receiveChainTransfer } from '../../activities/intake/chain';
import { receiveRailPaymentReport } from '../../activities/intake/fiat-rails';
import { receiveReconciliationReport } from '../../activities/intake/reconciliation';
import { bankCollection, SANDBOX_RETURN_SENDER, SANDBOX_RETURN_TEXT, type ProviderCredit } from '../../providers/bank-collection';
import { signWalletSend } from '../../activities/payouts/wallet-sends';
import { PAYOUT_SOURCE_CHAINS } from '../../domain/payouts/corridors';
import { chainAdapter, type ObservedTransfer } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import { faultAccountExists, setFault, type FaultName } from '../../providers/sandbox-faults';
import { bridgeAdapter, payInBridgeAdapter } from '../../providers/bridge';
import type { OrderFailureKind } from '../../domain/orders';
import { emailProvider } from '../../providers/email';
import { acceptTerms } from '../../activities/legal/terms';
import { systemScope } from '../../activities/scope';
import { signTransaction, SignRefused, type SignRequest } from '../../providers/wallet-sends';
import type { AppState } from '../context';
import { validate } from '../operation';
import {
  bankCreditBody,
  bankReturnBody,
  bridgeTransferBody,
  chainTransferBody,
  checkoutCompleteBody,
  faultBody,
  orderActionBody,
  railEventBody,
  reconciliationBody,
  screeningSignalBody,
  termsAcceptanceBody,
  walletSignBody,
  kycDecisionBody,
} from '../schemas/simulator';
import { buildSimOpenApi } from '../sim-openapi';
import { actOnCheckout, actOnOrder, decideKyc } from '../sim-actions';
import { checkAddress, resolveChain } from '../../domain/addresses';
import { addressScreeningProvider } from '../../providers/screening';
import { creditCheckoutView } from '../../views/credits';

/** Router for `/sim/...`. */
export function simulatorRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/sim' });
  const document = buildSimOpenApi();

  // The simulator's own contract: every route below, with an example each (api/sim-openapi.ts).
  r.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });

  r.post('/chain/transfers', async (ctx) => {
    const b = validate<{
      chain: string;
      to_address: string;
      asset: string;
      amount: string;
      from_address?: string;
      tx_hash?: string;
      status?: 'confirmed' | 'pending';
    }>(chainTransferBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const chain = chainAdapter();
    if (b.chain !== chain.chain && !(PAYOUT_SOURCE_CHAINS as readonly string[]).includes(b.chain)) {
      throw new DomainError(
        'invalid_request',
        'network_not_supported',
        `The sandbox chains are \`${chain.chain}\` and ${PAYOUT_SOURCE_CHAINS.join(', ')}.`,
        { param: 'chain' },
      );
    }
    let decimals: number;
    try {
      decimals = currencyDecimals(b.asset);
    } catch {
      throw new DomainError('invalid_request', 'parameter_invalid', `Unknown asset \`${b.asset}\`.`, { param: 'asset' });
    }
    const input = {
      chain: b.chain,
      asset: b.asset,
      to_address: b.to_address,
      amount: BigInt(b.amount),
      decimals,
      from_address: b.from_address ?? null,
      tx_hash: b.tx_hash ?? null,
    };
    const pending = b.status === 'pending';
    const t = pending ? await chain.broadcast(input) : await chain.inject(input);
    if (!pending) await receiveChainTransfer(t);
    ctx.status = 201;
    ctx.body = simChainTransfer(t, pending ? 'pending' : 'confirmed');
  });

  r.post('/chain/transfers/:tx_hash/confirm', async (ctx) => {
    const t = await chainAdapter().confirm(ctx.params.tx_hash);
    if (!t) throw new DomainError('not_found', 'not_found', `No pending transfer ${ctx.params.tx_hash}.`, { param: 'tx_hash' });
    await receiveChainTransfer(t);
    ctx.body = simChainTransfer(t, 'confirmed');
  });

  const simChainTransfer = (t: ObservedTransfer, status: 'confirmed' | 'pending') => ({
    object: 'sim.chain_transfer',
    chain: t.chain,
    asset: t.asset,
    from_address: t.from_address,
    to_address: t.to_address,
    amount: t.amount.toString(),
    decimals: t.decimals,
    tx_hash: t.tx_hash,
    status,
  });

  r.post('/bank/credits', async (ctx) => {
    const b = validate<{ rail: string; currency: string; amount: string; reference: string; to_account: string; sender_name?: string }>(
      bankCreditBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    if (!isFiat(b.currency))
      throw new DomainError('invalid_request', 'parameter_invalid', `Unknown fiat currency \`${b.currency}\`.`, { param: 'currency' });
    // The magic sender's credit is returned by the sending bank at once: the provider writes it
    // returned, so no reader (a payroll run's funding poll) ever sees it received.
    const returnedAtOnce = b.sender_name === SANDBOX_RETURN_SENDER;
    const credit = await bankCollection().receive({
      rail: b.rail,
      currency: b.currency,
      amount: BigInt(b.amount),
      reference: b.reference || null,
      toAccount: b.to_account,
      senderName: b.sender_name ?? null,
      ...(returnedAtOnce ? { returnedWith: SANDBOX_RETURN_TEXT } : {}),
    });
    const { paymentId } = await receiveBankCredit(credit);
    ctx.status = 201;
    ctx.body = simBankCredit(credit, paymentId);
  });

  r.post('/bank/credits/:id/return', async (ctx) => {
    const b = validate<{ reason?: string }>(bankReturnBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    let credit;
    try {
      credit = await bankCollection().returnCredit(ctx.params.id, b.reason ?? SANDBOX_RETURN_TEXT);
    } catch (e) {
      throw new DomainError('conflict', 'sim_transition_refused', (e as Error).message);
    }
    if (!credit) throw new DomainError('not_found', 'not_found', `No bank credit ${ctx.params.id}.`);
    const { paymentId } = await receiveBankReturn(credit);
    ctx.body = simBankCredit(credit, paymentId);
  });

  r.get('/emails', async (ctx) => {
    const related = typeof ctx.query.related_object_id === 'string' ? ctx.query.related_object_id : null;
    const rows = await emailProvider().recorded(related);
    ctx.body = { object: 'list', data: rows, has_more: false, next_cursor: null };
  });

  // A probe of the API process itself (tests/contract/hostile-input.test.ts): a polluted prototype shows here.
  r.get('/process', (ctx) => {
    ctx.body = {
      object: 'sim.process',
      pid: process.pid,
      object_prototype: Object.getOwnPropertyNames(Object.prototype).sort(),
      array_prototype: Object.getOwnPropertyNames(Array.prototype).sort(),
    };
  });

  // ----- Payout providers (bridge, fiat rails, wallet sends): the outside world acting.

  r.post('/providers/fiat_rails/payments/:ref', async (ctx) => {
    const b = validate<{
      state?: 'paid' | 'failed' | 'returned';
      paid_amount?: string;
      reason?: string;
      recipient_received_amount?: string;
    }>(railEventBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    let p;
    try {
      p = await fiatRails().simulate(ctx.params.ref, {
        state: b.state,
        reason: b.reason ?? null,
        paid: b.paid_amount !== undefined ? BigInt(b.paid_amount) : undefined,
        recipientReceived: b.recipient_received_amount !== undefined ? BigInt(b.recipient_received_amount) : undefined,
      });
    } catch (e) {
      throw new DomainError('conflict', 'sim_transition_refused', (e as Error).message);
    }
    if (!p) throw new DomainError('not_found', 'not_found', `No rail payment ${ctx.params.ref}.`);
    await receiveRailPaymentReport(p);
    ctx.body = {
      object: 'sim.rail_payment',
      id: p.id,
      client_reference: p.client_reference,
      rail: p.rail,
      currency: p.currency,
      state: p.state,
      amount: p.amount.toString(),
      paid_amount: p.paid?.toString() ?? null,
      recipient_received_amount: p.recipient_received?.toString() ?? null,
      reason: p.reason,
      provider_reference: p.provider_reference,
    };
  });

  r.get('/providers/bridge/transfers', async (ctx) => {
    const ref = typeof ctx.query.client_reference === 'string' ? ctx.query.client_reference : null;
    const rows = await bridgeAdapter().recorded(ref);
    ctx.body = { object: 'list', data: rows, has_more: false, next_cursor: null };
  });

  r.post('/bridge/transfers/:id', async (ctx) => {
    const b = validate<{ state: 'delivered' | 'failed' | 'delayed'; delivered_amount?: string }>(
      bridgeTransferBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    const out = await payInBridgeAdapter().simulate(
      ctx.params.id,
      b.state,
      b.delivered_amount === undefined ? null : BigInt(b.delivered_amount),
    );
    if (!out) throw new DomainError('not_found', 'not_found', `No cross-network bridge transfer ${ctx.params.id}.`, { param: 'id' });
    await receiveBridgeTransferReport(out);
    ctx.body = {
      object: 'sim.bridge_transfer',
      id: out.id,
      payment_id: out.client_reference,
      state: out.state,
      sim_state: b.state,
      received: out.received.toString(),
      delivered: out.delivered.toString(),
      delivery_tx_hash: out.delivery?.tx_hash ?? null,
    };
  });

  r.post('/providers/reconciliation', async (ctx) => {
    const b = validate<{ payout_id: string; needs_attention: boolean }>(
      reconciliationBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    if (!(await receiveReconciliationReport(b.payout_id, b.needs_attention)))
      throw new DomainError('not_found', 'not_found', `No payout ${b.payout_id}.`, { param: 'payout_id' });
    ctx.status = 202;
    ctx.body = { object: 'sim.reconciliation', payout_id: b.payout_id, needs_attention: b.needs_attention };
  });

  r.post('/providers/faults', async (ctx) => {
    const b = validate<{ account_id: string; name: FaultName; value: string | null }>(
      faultBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    if (!(await faultAccountExists(b.account_id)))
      throw new DomainError('not_found', 'not_found', `No account ${b.account_id}.`, { param: 'account_id' });
    await setFault(b.account_id, b.name, b.value);
    ctx.body = { object: 'sim.fault', account_id: b.account_id, name: b.name, value: b.value };
  });

  r.post('/wallet/sends/:id/sign', async (ctx) => {
    try {
      const out = await signWalletSend(ctx.params.id);
      ctx.status = 201;
      ctx.body = { object: 'sim.wallet_send_signature', wallet_send_id: ctx.params.id, tx_hash: out.tx_hash };
    } catch (e) {
      throw new DomainError('conflict', 'sim_sign_refused', (e as Error).message);
    }
  });

  r.post('/wallet/sign', async (ctx) => {
    const b = validate<SignRequest>(walletSignBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    try {
      const t = await signTransaction(b);
      ctx.status = 201;
      ctx.body = {
        object: 'sim.signed_transaction',
        tx_hash: t.tx_hash,
        chain: t.chain,
        asset: t.asset,
        from_address: t.from_address,
        to_address: t.to_address,
        amount: t.amount.toString(),
        decimals: t.decimals,
        status: b.status ?? 'confirmed',
      };
    } catch (e) {
      if (!(e instanceof SignRefused)) throw e;
      throw new DomainError(
        e.code === 'wallet_not_found' ? 'not_found' : 'invalid_request',
        e.code,
        e.message,
        e.param ? { param: e.param } : {},
      );
    }
  });

  r.post('/kyc/decisions', async (ctx) => {
    const b = validate<{
      customer_id: string;
      state: string;
      requirements_due?: string[];
      rejection_outcome?: string;
      endorsements?: string[];
      associated_persons?: Array<{ id: string; role: string; name_masked: string; verification_state: string }>;
    }>(kycDecisionBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    await decideKyc(b);
    ctx.status = 201;
    ctx.body = {
      object: 'sim.kyc_decision',
      customer_id: b.customer_id,
      state: b.state,
      requirements_due: b.requirements_due ?? null,
      rejection_outcome: b.rejection_outcome ?? null,
      endorsements: b.endorsements ?? null,
    };
  });

  r.post('/legal/acceptances', async (ctx) => {
    const b = validate<{ account_id: string; user_id?: string; scope: 'account' | 'personal' }>(
      termsAcceptanceBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    const a = await acceptTerms(systemScope(b.account_id, true), { terms: b.scope, user_id: b.user_id ?? null });
    ctx.status = 201;
    ctx.body = {
      object: 'sim.terms_acceptance',
      id: a.id,
      account_id: a.account_id,
      user_id: a.user_id,
      scope: a.scope,
      revision: a.revision,
      accepted_at: new Date(a.accepted_at).toISOString(),
    };
  });

  r.post('/providers/orders/:id', async (ctx) => {
    const b = validate<{
      action: 'authorize' | 'capture' | 'fail' | 'refund' | 'complete';
      failure_kind?: OrderFailureKind;
      reason?: string;
    }>(orderActionBody, (ctx.request as { body?: unknown }).body ?? {}, 'body');
    const report = await actOnOrder(ctx.params.id, b.action, { failureKind: b.failure_kind, reason: b.reason });
    ctx.body = {
      object: 'sim.provider_order',
      order_id: ctx.params.id,
      state: report.state,
      captured: report.captured,
      failure_kind: report.failureKind,
      reason: report.providerReason,
      delivery_tx_hash: report.deliveryTxHash,
    };
  });

  r.post('/providers/checkout/:checkout_id/:action', async (ctx) => {
    const action = ctx.params.action;
    if (action !== 'complete' && action !== 'fail' && action !== 'expire')
      throw new DomainError('not_found', 'not_found', `No simulator action ${action}.`);
    const b = validate<{ amount?: string }>(
      action === 'complete' ? checkoutCompleteBody : undefined,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    const { notification: n, result } = await actOnCheckout(ctx.params.checkout_id, action, {
      amountMinor: b.amount === undefined ? undefined : BigInt(b.amount),
    });
    ctx.body = {
      object: 'sim.checkout_notification',
      outcome: n.outcome,
      session_id: n.sessionId,
      granted: result.granted,
      checkout: creditCheckoutView(result.checkout),
    };
  });

  r.post('/providers/screening/signals', async (ctx) => {
    const b = validate<{ chain: string | number; address: string; risk_score: number; flags: string[]; unavailable: boolean }>(
      screeningSignalBody,
      (ctx.request as { body?: unknown }).body ?? {},
      'body',
    );
    const chain = resolveChain(b.chain);
    if (!chain) throw new DomainError('invalid_request', 'parameter_invalid', 'Unsupported chain.', { param: 'chain' });
    const checked = checkAddress(chain, b.address, chainAdapter().network);
    if (!checked.ok) throw new DomainError('invalid_request', 'address_invalid', checked.reason, { param: 'address' });
    await addressScreeningProvider().setSignal(chain, checked.key, {
      risk_score: b.risk_score,
      flags: b.flags,
      unavailable: b.unavailable,
    });
    ctx.status = 201;
    ctx.body = {
      object: 'sim.screening_signal',
      chain,
      address: checked.address,
      risk_score: b.risk_score,
      flags: b.flags,
      unavailable: b.unavailable,
    };
  });

  return r;
}

/** The simulator's echo of a bank credit as the provider holds it (`matched`: to a payment or a payroll run; `payment_id` null unless a payment). */
function simBankCredit(c: ProviderCredit, paymentId: string | null): Record<string, unknown> {
  return {
    object: 'sim.bank_credit',
    id: c.id,
    rail: c.rail,
    currency: c.currency,
    amount: c.amount.toString(),
    reference: c.reference,
    to_account: c.to_account,
    sender_name: c.sender_name,
    matched: c.client_reference !== null,
    payment_id: paymentId,
    state: c.state,
    return_reason: c.return_reason,
  };
}
