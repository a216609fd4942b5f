/**
 * Activity tier, credits (activities/credits/commands.ts; no workflow activities: the commands
 * run directly on real PostgreSQL with the sandbox checkout provider). Proves the ledger's
 * decisions: the free allowance, a purchase granted once and only for the captured price (a
 * repeated notification grants nothing, a wrong amount fails the checkout), consumption free
 * before paid and `insufficient` when none is left, and a refund once per consumption.
 */
import { provisionAccount } from '../../activities/accounts/commands';
import { consumeCheck, createCheckout, getBalance, handleCheckoutNotification, refundCheck } from '../../activities/credits/commands';
import { systemScope } from '../../activities/scope';
import { FREE_CHECKS_ALLOWANCE, PACK_PRICE_MINOR } from '../../domain/credits';
import { db } from '../../lib/db';
import { count, describeWithDb, ownerOf, rejection, testRequest, useActivityTier } from '../helpers/activity-env';

async function person() {
  const creds = await provisionAccount();
  const userId = await ownerOf(creds.account_id);
  return { c: systemScope(creds.account_id, true, testRequest), userId };
}

describeWithDb('credit commands', () => {
  useActivityTier();

  test('a new person starts with the free allowance', async () => {
    const { userId } = await person();
    expect(await getBalance(userId)).toEqual({ free_remaining: FREE_CHECKS_ALLOWANCE, paid_balance: 0, total_checks: 0 });
  });

  test('a paid notification for the exact price grants the pack once (credit.purchased once); a repeat grants nothing', async () => {
    const { c, userId } = await person();
    const co = await createCheckout(c, { pack: 10 });
    expect(co).toMatchObject({ status: 'open', amount_minor: PACK_PRICE_MINOR[10].toString() });
    const n = {
      provider: co.provider,
      sessionId: co.provider_session_id!,
      clientReference: co.id,
      outcome: 'paid' as const,
      paidAmountMinor: PACK_PRICE_MINOR[10],
      currency: 'USD',
      paymentReference: 'pi_1',
    };
    expect(await handleCheckoutNotification(n)).toMatchObject({ granted: true, checkout: { status: 'completed' } });
    expect(await handleCheckoutNotification(n)).toMatchObject({ granted: false, event: null });
    expect((await getBalance(userId)).paid_balance).toBe(10);
    expect(await count('events', `type = 'credit.purchased' AND $1 = ANY(related_object_ids)`, [co.id])).toBe(1);
  });

  test('a paid notification for another amount grants nothing and fails the checkout (amount_mismatch)', async () => {
    const { c, userId } = await person();
    const co = await createCheckout(c, { pack: 5 });
    const r = await handleCheckoutNotification({
      provider: co.provider,
      sessionId: co.provider_session_id!,
      clientReference: co.id,
      outcome: 'paid',
      paidAmountMinor: 1n,
      currency: 'USD',
      paymentReference: null,
    });
    expect(r).toMatchObject({ granted: false, checkout: { status: 'failed', failure_reason: 'amount_mismatch' } });
    expect((await getBalance(userId)).paid_balance).toBe(0);
  });

  test('consumption spends free checks first, then records insufficient with nothing left; a refund gives back once (409 credit_already_refunded)', async () => {
    const { c, userId } = await person();
    await getBalance(userId);
    await db().query('UPDATE credit_balances SET free_remaining = 1 WHERE user_id = $1', [userId]);
    const spent = await consumeCheck(c, { relatedObjectId: 'srp_a', cached: false });
    expect(spent).toMatchObject({ type: 'consume_free', free_remaining: 0, total_checks: 1 });
    expect(await consumeCheck(c, { relatedObjectId: 'srp_b', cached: false })).toMatchObject({ type: 'insufficient' });
    expect(await consumeCheck(c, { relatedObjectId: 'srp_c', cached: true })).toMatchObject({ type: 'cache_hit' });
    expect(await refundCheck(c, { id: spent.id })).toMatchObject({ type: 'refund', free_remaining: 1, total_checks: 0 });
    expect(await rejection(refundCheck(c, { id: spent.id }))).toMatchObject({ code: 'credit_already_refunded' });
    expect(await getBalance(userId)).toEqual({ free_remaining: 1, paid_balance: 0, total_checks: 0 });
  });
});
