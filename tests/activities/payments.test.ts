/**
 * Activity tier, payments (activities/payments: the chain watcher `recordObservedTransfer` and
 * `paymentWorkflowActivities`): the watcher step that sees a deposit, then the payment workflow's
 * steps run alone in MockActivityEnvironment on real PostgreSQL with the sandbox chain and fiat
 * rails. Proves the verdicts (underpaid, paid, expired, deposit after close), the link moves and
 * outbox events they write, the watch state the workflow plans with (pending deposits,
 * needsSettlement, done), and that retried steps write nothing twice.
 */
import crypto from 'node:crypto';
import {
  applyDepositActivity,
  expirePaymentActivity,
  loadPaymentState,
  recordSettlement,
  sendSettlement,
} from '../../activities/payments/activities';
import { applyBankCreditActivity, submitBankSettlement, syncBankSettlement } from '../../activities/payments/bank-activities';
import { createOrReuseBankPayment, recordBankCredit } from '../../activities/payments/bank-commands';
import { createOrReuseNativePayment } from '../../activities/payments/commands';
import { recordObservedTransfer } from '../../activities/payments/watcher';
import { chainAdapter } from '../../providers/chain';
import { fiatRails } from '../../providers/fiat-rails';
import {
  callsFor,
  count,
  describeWithDb,
  eventTypes,
  rejection,
  row,
  runActivity,
  testRequest,
  useActivityTier,
  workflowCalls,
} from '../helpers/activity-env';
import { activeBankLinkRow, activeCryptoLink } from '../helpers/fixtures';
import { systemScope } from '../../activities/scope';
import { listPayments, paymentSummaryByScan, paymentSummaryFromCounts } from '../../activities/payments/queries';
import { db } from '../../lib/db';

const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;

/** A native-rail payment of an active $100 crypto link (total due = invoice + 1% payer fee, USDC 6 decimals). */
async function nativePayment() {
  const { link } = await activeCryptoLink('10000');
  const { payment } = await createOrReuseNativePayment(systemScope(link.account_id, link.livemode, testRequest), {
    linkId: link.id,
    payer_email: null,
    payer_type: null,
  });
  return { linkId: link.id, paymentId: payment.id, address: payment.deposit_address!, expected: BigInt(payment.amount_expected_minor) };
}

/** `amount` landing on the sandbox chain at `address`, and the watcher's record of it. */
async function seen(address: string, amount: bigint, tx = hash()): Promise<string> {
  const c = chainAdapter();
  const t = await c.inject({ chain: c.chain, asset: c.stablecoin, to_address: address, amount, decimals: 6, tx_hash: tx });
  return recordObservedTransfer(t);
}

describeWithDb('payment activities', () => {
  useActivityTier();

  test('the watcher sees a deposit: one pending deposit of the payment and a deposit signal to its workflow; the same transaction seen again is the same deposit', async () => {
    const { paymentId, address, expected } = await nativePayment();
    expect(callsFor(paymentId)).toEqual(['start:-']);
    const tx = hash();
    const depositId = await seen(address, expected, tx);
    expect(await row('deposits', depositId)).toMatchObject({ payment_id: paymentId, effect: 'pending', amount_minor: expected.toString() });
    expect(callsFor(paymentId)).toEqual(['start:-', 'signalWithStart:deposit']);
    expect(await seen(address, expected, tx)).toBe(depositId);
    expect(await count('deposits', 'payment_id = $1', [paymentId])).toBe(1);
    expect(await runActivity(loadPaymentState, paymentId)).toMatchObject({
      status: 'awaiting',
      pendingDepositIds: [depositId],
      done: false,
    });
  });

  test('a transfer to an address no payment owns is recorded only, and wakes no payment', async () => {
    const before = workflowCalls.length;
    const id = await seen(`0x${crypto.randomBytes(20).toString('hex')}`, 5_000_000n);
    expect(await row('deposits', id)).toMatchObject({ payment_id: null, effect: 'recorded_only' });
    expect(workflowCalls.length).toBe(before);
  });

  test('a short deposit -> underpaid (payment.underpaid once, link processing with partial_payment); the rest -> paid, link paid, settlement needed', async () => {
    const { linkId, paymentId, address, expected } = await nativePayment();
    const d1 = await seen(address, 4_000_000n);
    const s1 = await runActivity(applyDepositActivity, paymentId, d1);
    expect(s1).toMatchObject({ status: 'underpaid', pendingDepositIds: [], needsSettlement: false, linkEnded: false, linkId, done: false });
    expect(await row('payment_links', linkId)).toMatchObject({ status: 'processing', partial_payment: { payment_id: paymentId } });
    const d2 = await seen(address, expected - 4_000_000n);
    const s2 = await runActivity(applyDepositActivity, paymentId, d2);
    expect(s2).toMatchObject({ status: 'paid', needsSettlement: true, settlement: 'wallet', linkEnded: true, done: false });
    expect((await row('payment_links', linkId)).status).toBe('paid');
    expect(await eventTypes(paymentId)).toEqual(['payment.created', 'payment.awaiting', 'payment.underpaid', 'payment.paid']);
  });

  test('applyDepositActivity retried: the deposit is applied once (same state, one payment.paid, received not doubled)', async () => {
    const { paymentId, address, expected } = await nativePayment();
    const d = await seen(address, expected);
    const first = await runActivity(applyDepositActivity, paymentId, d);
    const again = await runActivity(applyDepositActivity, paymentId, d);
    // Same state; only the wall-clock reading of the read differs (PaymentState.readAtMs, the object clock's wall time).
    expect(again).toEqual({ ...first, linkEnded: false, readAtMs: expect.any(Number) });
    expect((await row('payments', paymentId)).amount_received_minor).toBe(expected.toString());
    expect((await eventTypes(paymentId)).filter((t) => t === 'payment.paid')).toHaveLength(1);
  });

  test('sendSettlement is idempotent by payment (one chain transfer of the invoice); recordSettlement -> settled, link settled, the watch is done', async () => {
    const { linkId, paymentId, address, expected } = await nativePayment();
    await runActivity(applyDepositActivity, paymentId, await seen(address, expected));
    const tx1 = await runActivity(sendSettlement, paymentId);
    const tx2 = await runActivity(sendSettlement, paymentId);
    expect(tx2).toBe(tx1);
    const p = await row('payments', paymentId);
    expect(
      await count('sandbox_chain_transfers', 'lower(from_address) = lower($1) AND to_address = $2', [address, p.settlement_address]),
    ).toBe(1);
    const s = await runActivity(recordSettlement, paymentId, tx1);
    expect(s).toMatchObject({ status: 'settled', needsSettlement: false, done: true, linkEnded: true });
    expect((await row('payment_links', linkId)).status).toBe('settled');
    expect(await runActivity(recordSettlement, paymentId, tx1)).toMatchObject({ status: 'settled', linkEnded: false });
    expect((await eventTypes(paymentId)).filter((t) => t === 'payment.settled')).toHaveLength(1);
  });

  test('expirePaymentActivity closes an awaiting payment (payment.expired) and leaves an underpaid one open; a deposit after close is unmatched', async () => {
    const a = await nativePayment();
    expect(await runActivity(expirePaymentActivity, a.paymentId)).toMatchObject({ status: 'expired', done: true });
    expect(await eventTypes(a.paymentId)).toEqual(['payment.created', 'payment.awaiting', 'payment.expired']);
    const late = await seen(a.address, a.expected);
    expect(await runActivity(applyDepositActivity, a.paymentId, late)).toMatchObject({ status: 'unmatched', done: true });
    expect((await row('payments', a.paymentId)).unmatched_reason).toBe('deposit_after_close');

    const b = await nativePayment();
    await runActivity(applyDepositActivity, b.paymentId, await seen(b.address, 1_000_000n));
    expect(await runActivity(expirePaymentActivity, b.paymentId)).toMatchObject({ status: 'underpaid', done: false });
    expect(await eventTypes(b.paymentId)).not.toContain('payment.expired');
  });

  test('bank rail: a matched credit -> paid; submitBankSettlement pays the destination once (key settle:<payment>:<settled>); a failed payout is recorded and parks the payment (SettlementFailed)', async () => {
    const { link } = await activeBankLinkRow('ach', 'USD', '25000');
    const { payment } = await createOrReuseBankPayment(systemScope(link.account_id, link.livemode, testRequest), {
      linkId: link.id,
      rail: 'ach',
      payer_email: null,
      payer_type: null,
      payer_state: null,
    });
    const { creditId } = await recordBankCredit(
      {
        id: `bcr_provider_${crypto.randomBytes(6).toString('hex')}`,
        rail: 'ach',
        currency: 'USD',
        amount: 25000n,
        reference: payment.bank_reference,
        to_account: '000000000000',
        sender_name: 'Payer',
        client_reference: payment.id,
        state: 'received',
        return_reason: null,
      },
      2,
    );
    expect(callsFor(payment.id)).toEqual(['start:-', 'signalWithStart:deposit']);
    expect(await runActivity(applyBankCreditActivity, payment.id, creditId)).toMatchObject({
      status: 'paid',
      needsSettlement: true,
      settlement: 'bank',
      linkEnded: true,
    });

    const s1 = await runActivity(submitBankSettlement, payment.id);
    expect(s1).toMatchObject({ status: 'paid', settlementPending: true, needsSettlement: false, done: false });
    expect(await runActivity(submitBankSettlement, payment.id)).toEqual({ ...s1, readAtMs: expect.any(Number) });
    expect(await count('sandbox_rail_payments', 'client_reference = $1', [payment.id])).toBe(1);
    expect(await runActivity(syncBankSettlement, payment.id)).toMatchObject({ status: 'paid', settlementPending: true });

    await fiatRails().simulate(payment.id, { state: 'failed', reason: 'account_closed' });
    const e = await rejection(runActivity(syncBankSettlement, payment.id));
    expect(e).toMatchObject({ type: 'SettlementFailed', nonRetryable: true });
    expect(await row('payments', payment.id)).toMatchObject({ status: 'paid', settlement_rail_payment_id: null, settlement_attempt: 1 });
    // The operator's retry submits a new payout under a new key, which the rail then pays.
    expect(await runActivity(submitBankSettlement, payment.id)).toMatchObject({ settlementPending: true });
    expect(await count('sandbox_rail_payments', 'idempotency_key = $1', [`settle:${payment.id}:0:a1`])).toBe(1);
    await fiatRails().simulate(payment.id, { state: 'paid' });
    expect(await runActivity(syncBankSettlement, payment.id)).toMatchObject({ status: 'settled', done: true, linkEnded: true });
    expect((await row('payments', payment.id)).settled_minor).toBe('25000');
  });

  test('expand=summary from payment_counts (decision 0077) equals counting the payments, for the status and settlement filters, through inserts, moves, deletes and both modes', async () => {
    const { link } = await activeBankLinkRow('ach', 'USD', '25000');
    const scope = systemScope(link.account_id, true);
    const { payment } = await createOrReuseBankPayment(systemScope(link.account_id, true, testRequest), {
      linkId: link.id,
      rail: 'ach',
      payer_email: null,
      payer_type: null,
      payer_state: null,
    });
    await db().query(
      `
      INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object(
        'id', p.id || '_' || g, 'payment_link_id', NULL, 'bank_reference', NULL, 'livemode', g % 4 <> 0,
        'status', (ARRAY['paid','settled','expired','overpaid','refunded','failed','marked_sent'])[1 + g % 7],
        'settlement', (ARRAY['bank','crypto',NULL])[1 + g % 3]))).*
      FROM payments p, generate_series(1, 20) g WHERE p.id = $1`,
      [payment.id],
    );
    await db().query(`UPDATE payments SET status = 'settled' WHERE account_id = $1 AND status = 'paid'`, [link.account_id]);
    await db().query(`UPDATE payments SET settlement = 'crypto' WHERE account_id = $1 AND status = 'expired'`, [link.account_id]);
    await db().query(`DELETE FROM payments WHERE account_id = $1 AND status = 'failed'`, [link.account_id]);
    for (const livemode of [true, false]) {
      const s = systemScope(link.account_id, livemode);
      for (const status of [undefined, 'awaiting', 'settled', 'expired', 'failed']) {
        for (const settlement of [undefined, 'bank', 'crypto']) {
          expect([livemode, status, settlement, await paymentSummaryFromCounts(s, { status, settlement })]).toEqual([
            livemode,
            status,
            settlement,
            await paymentSummaryByScan(s, { status, settlement }),
          ]);
        }
      }
    }
    const all = await listPayments(scope, {}).summary();
    expect(all.total).toBe(
      Number((await db().query('SELECT count(*) FROM payments WHERE account_id = $1 AND livemode', [link.account_id]))[0].count),
    );
    expect(all.by_status.marked_sent).toBeGreaterThan(0);
  });

  test('bulk statements keep payment_counts exact (issue 36 item 5: one upsert per key per statement): a 3,000-row INSERT ... SELECT, multi-row UPDATEs of statuses and settlements (and of no counted column), a multi-row DELETE', async () => {
    const { link } = await activeBankLinkRow('ach', 'USD', '25000');
    const a = link.account_id;
    const { payment } = await createOrReuseBankPayment(systemScope(a, true, testRequest), {
      linkId: link.id,
      rail: 'ach',
      payer_email: null,
      payer_type: null,
      payer_state: null,
    });
    const countsAndRows = async () => ({
      counts: await db().query(
        `SELECT livemode, status, settlement, sum(n)::int AS n FROM payment_counts WHERE account_id = $1
        GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`,
        [a],
      ),
      rows: await db().query(
        `SELECT livemode, status, coalesce(settlement, '') AS settlement, count(*)::int AS n FROM payments WHERE account_id = $1
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        [a],
      ),
    });
    await db().query(
      `
      INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object(
        'id', p.id || '_b' || g, 'payment_link_id', NULL, 'bank_reference', NULL, 'livemode', g % 5 <> 0,
        'status', (ARRAY['paid','settled','expired','overpaid','refunded','failed','marked_sent'])[1 + g % 7],
        'settlement', (ARRAY['bank','crypto',NULL])[1 + g % 3]))).*
      FROM payments p, generate_series(1, 3000) g WHERE p.id = $1`,
      [payment.id],
    );
    let r = await countsAndRows();
    expect(r.rows.length).toBeGreaterThan(30);
    expect(r.counts).toEqual(r.rows);

    await db().query(
      `UPDATE payments SET status = CASE status WHEN 'paid' THEN 'settled' WHEN 'settled' THEN 'paid' WHEN 'marked_sent' THEN 'expired' ELSE status END
      WHERE account_id = $1 AND id LIKE '%0'`,
      [a],
    );
    await db().query(
      `UPDATE payments SET settlement = CASE settlement WHEN 'bank' THEN 'crypto' WHEN 'crypto' THEN NULL ELSE 'bank' END, livemode = NOT livemode
      WHERE account_id = $1 AND status IN ('expired', 'refunded')`,
      [a],
    );
    const before = await db().query('SELECT * FROM payment_counts WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5', [a]);
    await db().query(`UPDATE payments SET updated_at = now() WHERE account_id = $1`, [a]);
    expect(await db().query('SELECT * FROM payment_counts WHERE account_id = $1 ORDER BY 1, 2, 3, 4, 5', [a])).toEqual(before);
    r = await countsAndRows();
    expect(r.counts).toEqual(r.rows);

    await db().query(`DELETE FROM payments WHERE account_id = $1 AND (status IN ('failed', 'overpaid') OR id LIKE '%3')`, [a]);
    r = await countsAndRows();
    expect(r.counts).toEqual(r.rows);
    // One row (the triggers' one-row forms) and none.
    await db().query(`DELETE FROM payments WHERE id = (SELECT max(id) FROM payments WHERE account_id = $1 AND status = 'paid')`, [a]);
    await db().query(
      `UPDATE payments SET status = 'refunded' WHERE id = (SELECT max(id) FROM payments WHERE account_id = $1 AND status = 'settled')`,
      [a],
    );
    await db().query(`DELETE FROM payments WHERE account_id = $1 AND false`, [a]);
    r = await countsAndRows();
    expect(r.counts).toEqual(r.rows);
    for (const livemode of [true, false]) {
      expect(await paymentSummaryFromCounts(systemScope(a, livemode), {})).toEqual(
        await paymentSummaryByScan(systemScope(a, livemode), {}),
      );
    }
  });
});
